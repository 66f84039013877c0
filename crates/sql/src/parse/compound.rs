//! The compound-statement language of routine bodies, compiled once per definition into a
//! [`Program`]: `BEGIN … END` blocks with labels, DECLARE (variables, conditions, cursors,
//! handlers), SET, IF, CASE, LOOP, WHILE, REPEAT, LEAVE, ITERATE, RETURN, OPEN / FETCH /
//! CLOSE, SIGNAL / RESIGNAL, and any other SQL statement.
//!
//! Local variables and parameters are resolved here to frame slots. The SQL statements and
//! expressions of the body are parsed here, once, by the normal parser; each reference to a
//! local variable becomes a numbered placeholder (`?k`) whose value the interpreter
//! (`crate::program`) passes as the statement's k-th parameter, so the statements run through
//! the normal bind / plan / exec stages unchanged. As in MySQL, a local variable hides a
//! column of the same name.

use std::ops::ControlFlow;

use common::{codes, Error, Result};
use sqlparser::ast::{self, Statement};
use sqlparser::tokenizer::Token;

use crate::parse::parser::{Parsed, SqlModeFlags, Stmt};
use crate::parse::routine::{Cur, RoutineStmt};

/// A condition a handler or SIGNAL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CondValue {
    /// `SQLSTATE 'xxxxx'`.
    SqlState(String),
    /// A MySQL error number.
    ErrNo(u16),
    /// `SQLWARNING`: SQLSTATE class 01.
    Warning,
    /// `NOT FOUND`: SQLSTATE class 02.
    NotFound,
    /// `SQLEXCEPTION`: any other class but 00.
    Exception,
}

/// An expression of the body, parsed, its local variables replaced by placeholders.
#[derive(Debug, Clone)]
pub struct SpExpr {
    /// The expression.
    pub expr: ast::Expr,
    /// Slot of placeholder `?k+1`.
    pub slots: Vec<usize>,
}

/// Where a value is stored: a local variable (slot) or a user variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A local variable or parameter.
    Local(usize),
    /// `@name` (lower case, without `@`).
    User(String),
}

/// A SQL statement of the body.
#[derive(Debug, Clone)]
pub struct SpSql {
    /// The statement, its local variables replaced by placeholders.
    pub parsed: Parsed,
    /// Slot of placeholder `?k+1`.
    pub slots: Vec<usize>,
    /// `SELECT … INTO` targets (empty otherwise; the statement no longer has the clause).
    pub into: Vec<Target>,
}

/// One assignment of SET.
#[derive(Debug, Clone)]
pub enum Assign {
    /// A local variable or user variable.
    Var(Target, SpExpr),
    /// A system variable: `[GLOBAL|SESSION] name` or `@@[scope.]name`, as written.
    Sys(String, SpExpr),
}

/// A handler declaration.
#[derive(Debug, Clone)]
pub struct Handler {
    /// CONTINUE (true) or EXIT.
    pub cont: bool,
    /// The conditions it handles.
    pub conds: Vec<CondValue>,
    /// Its statement.
    pub body: Box<Node>,
}

/// One instruction of the body.
#[derive(Debug, Clone)]
pub enum Node {
    /// `[label:] BEGIN … END`: its handlers, the cursors it declares, its statements.
    Block {
        /// Label.
        label: Option<String>,
        /// Handlers declared in it.
        handlers: Vec<Handler>,
        /// Ids of the cursors declared in it (closed when it ends).
        cursors: Vec<usize>,
        /// Statements (variable declarations included, in order).
        body: Vec<Node>,
    },
    /// `DECLARE a, b type [DEFAULT e]`: the slots set to the default (or NULL).
    Declare(Vec<usize>, Option<SpExpr>),
    /// SET.
    Set(Vec<Assign>),
    /// IF … ELSEIF … ELSE … END IF.
    If(Vec<(SpExpr, Vec<Node>)>, Option<Vec<Node>>),
    /// CASE [operand] WHEN … END CASE (no ELSE and no match: error 1339).
    Case(Option<SpExpr>, Vec<(SpExpr, Vec<Node>)>, Option<Vec<Node>>),
    /// `[label:] LOOP … END LOOP`.
    Loop(Option<String>, Vec<Node>),
    /// `[label:] WHILE cond DO … END WHILE`.
    While(Option<String>, SpExpr, Vec<Node>),
    /// `[label:] REPEAT … UNTIL cond END REPEAT`.
    Repeat(Option<String>, Vec<Node>, SpExpr),
    /// LEAVE label.
    Leave(String),
    /// ITERATE label.
    Iterate(String),
    /// RETURN expr.
    Return(SpExpr),
    /// OPEN cursor: (cursor id).
    Open(usize),
    /// FETCH cursor INTO targets.
    Fetch(usize, Vec<Target>),
    /// CLOSE cursor.
    Close(usize),
    /// SIGNAL / RESIGNAL: (resignal, condition, `SET item = value` list).
    Signal(bool, Option<CondValue>, Vec<(String, SpExpr)>),
    /// CALL with its arguments (placeholders for locals) and, per argument, the variable an
    /// OUT / INOUT parameter writes back to.
    Call {
        /// Database, if qualified.
        db: Option<String>,
        /// Name.
        name: String,
        /// Arguments.
        args: Vec<SpExpr>,
        /// The variable each argument names, if it is one.
        targets: Vec<Option<Target>>,
    },
    /// Any other SQL statement.
    Sql(Box<SpSql>),
}

/// A local variable (parameters first).
#[derive(Debug, Clone)]
pub struct VarDecl {
    /// Name as declared.
    pub name: String,
    /// Type as written.
    pub ty: String,
}

/// A compiled routine body.
#[derive(Debug, Clone)]
pub struct Program {
    /// The body.
    pub body: Node,
    /// Every local variable, parameters first; indexes are slots.
    pub vars: Vec<VarDecl>,
    /// Cursors by id: (name, query).
    pub cursors: Vec<(String, SpSql)>,
    /// True if a statement can return a result set to the client.
    pub returns_rows: bool,
}

#[derive(Default)]
struct Scope {
    vars: Vec<(String, usize)>,
    conds: Vec<(String, CondValue)>,
    cursors: Vec<(String, usize)>,
}

struct P<'a> {
    c: Cur<'a>,
    mode: SqlModeFlags,
    function: bool,
    scopes: Vec<Scope>,
    vars: Vec<VarDecl>,
    cursors: Vec<(String, SpSql)>,
    /// Open labels: (lower-case name, names a loop).
    labels: Vec<(String, bool)>,
    returns_rows: bool,
}

/// Compiles routine body `text` whose parameters are `params` (name, type); `function`
/// allows RETURN and refuses result sets (1415).
///
/// # Errors
/// 1064 and the stored-program errors MySQL gives when the routine is created.
pub fn compile(
    text: &str,
    params: &[(String, String)],
    function: bool,
    mode: SqlModeFlags,
) -> Result<Program> {
    let mut p = P {
        c: Cur::of_text(text)?,
        mode,
        function,
        scopes: vec![Scope::default()],
        vars: Vec::new(),
        cursors: Vec::new(),
        labels: Vec::new(),
        returns_rows: false,
    };
    for (name, ty) in params {
        p.add_var(name, ty);
    }
    let body = p.stmt()?;
    p.c.eat_tok(&Token::SemiColon);
    if !p.c.done() {
        return Err(p.c.err());
    }
    Ok(Program {
        body,
        vars: p.vars,
        cursors: p.cursors,
        returns_rows: p.returns_rows,
    })
}

fn err(code: common::ErrorCode, msg: impl Into<String>) -> Error {
    Error::new(code, msg)
}

impl P<'_> {
    fn add_var(&mut self, name: &str, ty: &str) -> usize {
        let slot = self.vars.len();
        self.vars.push(VarDecl {
            name: name.to_string(),
            ty: ty.to_string(),
        });
        let scope = self.scopes.last_mut().expect("a scope");
        scope.vars.push((name.to_lowercase(), slot));
        slot
    }

    fn var(&self, name: &str) -> Option<usize> {
        let l = name.to_lowercase();
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.vars.iter().rev().find(|(n, _)| *n == l).map(|(_, k)| *k))
    }

    fn cursor(&self, name: &str) -> Result<usize> {
        let l = name.to_lowercase();
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.cursors.iter().find(|(n, _)| *n == l).map(|(_, k)| *k))
            .ok_or_else(|| {
                err(
                    codes::ER_SP_CURSOR_MISMATCH,
                    format!("Undefined CURSOR: {name}"),
                )
            })
    }

    /// A statement (without its `;`).
    fn stmt(&mut self) -> Result<Node> {
        let label = match (self.c.peek(), self.c.at(self.c.i + 1)) {
            (Some(Token::Word(w)), Some(Token::Colon)) => {
                let l = w.value.clone();
                self.c.i += 2;
                Some(l)
            }
            _ => None,
        };
        let kw = self.c.kw_at(self.c.i).unwrap_or_default();
        if label.is_some() && !matches!(kw.as_str(), "BEGIN" | "LOOP" | "WHILE" | "REPEAT") {
            return Err(self.c.err());
        }
        if let Some(l) = &label {
            let lower = l.to_lowercase();
            if self.labels.iter().any(|(n, _)| *n == lower) {
                return Err(err(
                    codes::ER_SP_LABEL_REDEFINE,
                    format!("Redefining label {l}"),
                ));
            }
            self.labels.push((lower, kw != "BEGIN"));
        }
        let r = self.stmt_kw(&kw, label.clone());
        if label.is_some() {
            self.labels.pop();
        }
        let node = r?;
        if let Some(l) = label {
            // `END [label]`: an end label must match
            if let Some(Token::Word(w)) = self.c.peek() {
                if w.quote_style.is_some() || !is_reserved_after_end(&w.value) {
                    if !w.value.eq_ignore_ascii_case(&l) {
                        return Err(err(
                            codes::ER_SP_LABEL_MISMATCH,
                            format!("End-label {} without match", w.value),
                        ));
                    }
                    self.c.i += 1;
                }
            }
        } else if let Some(Token::Word(w)) = self.c.peek() {
            if matches!(kw.as_str(), "BEGIN" | "LOOP" | "WHILE" | "REPEAT")
                && (w.quote_style.is_some() || !is_reserved_after_end(&w.value))
            {
                return Err(err(
                    codes::ER_SP_LABEL_MISMATCH,
                    format!("End-label {} without match", w.value),
                ));
            }
        }
        Ok(node)
    }

    fn stmt_kw(&mut self, kw: &str, label: Option<String>) -> Result<Node> {
        match kw {
            "BEGIN" if !matches!(self.c.kw_at(self.c.i + 1).as_deref(), Some("WORK")) => {
                self.c.i += 1;
                self.block(label)
            }
            "IF" => {
                self.c.i += 1;
                self.if_stmt()
            }
            "CASE" => {
                self.c.i += 1;
                self.case_stmt()
            }
            "LOOP" => {
                self.c.i += 1;
                let body = self.list(&["END"])?;
                self.c.expect("END")?;
                self.c.expect("LOOP")?;
                Ok(Node::Loop(label, body))
            }
            "WHILE" => {
                self.c.i += 1;
                let cond = self.expr_until(&["DO"])?;
                self.c.expect("DO")?;
                let body = self.list(&["END"])?;
                self.c.expect("END")?;
                self.c.expect("WHILE")?;
                Ok(Node::While(label, cond, body))
            }
            "REPEAT" => {
                self.c.i += 1;
                let body = self.list(&["UNTIL"])?;
                self.c.expect("UNTIL")?;
                let cond = self.expr_until(&["END"])?;
                self.c.expect("END")?;
                self.c.expect("REPEAT")?;
                Ok(Node::Repeat(label, body, cond))
            }
            "LEAVE" | "ITERATE" => {
                self.c.i += 1;
                let l = self.c.ident()?;
                let lower = l.to_lowercase();
                let found = self.labels.iter().rev().find(|(n, _)| *n == lower);
                match found {
                    Some((_, is_loop)) if kw == "LEAVE" || *is_loop => {}
                    _ => {
                        return Err(err(
                            codes::ER_SP_LILABEL_MISMATCH,
                            format!("{kw} with no matching label: {l}"),
                        ))
                    }
                }
                Ok(if kw == "LEAVE" {
                    Node::Leave(lower)
                } else {
                    Node::Iterate(lower)
                })
            }
            "RETURN" => {
                if !self.function {
                    return Err(err(
                        codes::ER_SP_BADRETURN,
                        "RETURN is only allowed in a FUNCTION",
                    ));
                }
                self.c.i += 1;
                Ok(Node::Return(self.expr_until(&[])?))
            }
            "DECLARE" => Err(self.c.err()),
            "OPEN" | "CLOSE" => {
                self.c.i += 1;
                let name = self.c.ident()?;
                let id = self.cursor(&name)?;
                Ok(if kw == "OPEN" {
                    Node::Open(id)
                } else {
                    Node::Close(id)
                })
            }
            "FETCH" => {
                self.c.i += 1;
                if self.c.eat("NEXT") {
                    self.c.expect("FROM")?;
                } else {
                    self.c.eat("FROM");
                }
                let name = self.c.ident()?;
                let id = self.cursor(&name)?;
                self.c.expect("INTO")?;
                let mut into = vec![self.target()?];
                while self.c.eat_tok(&Token::Comma) {
                    into.push(self.target()?);
                }
                Ok(Node::Fetch(id, into))
            }
            "SIGNAL" | "RESIGNAL" => {
                self.c.i += 1;
                self.signal(kw == "RESIGNAL")
            }
            "SET" if self.is_var_set() => {
                self.c.i += 1;
                self.set_stmt()
            }
            _ => self.sql(),
        }
    }

    /// Statements until one of `ends` (each followed by `;`).
    fn list(&mut self, ends: &[&str]) -> Result<Vec<Node>> {
        let mut out = Vec::new();
        while !ends.iter().any(|e| self.c.is(e)) {
            if self.c.done() {
                return Err(self.c.err());
            }
            out.push(self.stmt()?);
            self.c.expect_tok(&Token::SemiColon)?;
        }
        Ok(out)
    }

    fn block(&mut self, label: Option<String>) -> Result<Node> {
        self.scopes.push(Scope::default());
        let r = self.block_inner(label);
        self.scopes.pop();
        r
    }

    fn block_inner(&mut self, label: Option<String>) -> Result<Node> {
        let mut handlers = Vec::new();
        let mut cursors = Vec::new();
        let mut body = Vec::new();
        // declarations come first: variables and conditions, then cursors, then handlers
        let mut stage = 0;
        while self.c.is("DECLARE") {
            self.c.i += 1;
            if matches!(
                self.c.kw_at(self.c.i).as_deref(),
                Some("CONTINUE" | "EXIT" | "UNDO")
            ) && self.c.kw_at(self.c.i + 1).as_deref() == Some("HANDLER")
            {
                stage = 2;
                let h = self.handler()?;
                if handlers
                    .iter()
                    .any(|x: &Handler| x.conds.iter().any(|c| h.conds.contains(c)))
                {
                    return Err(err(
                        codes::ER_SP_DUP_HANDLER,
                        "Duplicate handler declared in the same block",
                    ));
                }
                handlers.push(h);
            } else {
                let name = self.c.ident()?;
                if self.c.eat("CONDITION") {
                    if stage > 0 {
                        return Err(after_decl());
                    }
                    self.c.expect("FOR")?;
                    let v = self.cond_value(false)?;
                    let scope = self.scopes.last_mut().expect("scope");
                    let l = name.to_lowercase();
                    if scope.conds.iter().any(|(n, _)| *n == l) {
                        return Err(err(
                            codes::ER_SP_DUP_COND,
                            format!("Duplicate condition: {name}"),
                        ));
                    }
                    scope.conds.push((l, v));
                } else if self.c.eat("CURSOR") {
                    if stage > 1 {
                        return Err(err(
                            codes::ER_SP_CURSOR_AFTER_HANDLER,
                            "Cursor declaration after handler declaration",
                        ));
                    }
                    stage = 1;
                    self.c.expect("FOR")?;
                    cursors.push(self.cursor_decl(&name)?);
                } else {
                    if stage > 0 {
                        return Err(after_decl());
                    }
                    body.push(self.declare_vars(name)?);
                }
            }
            self.c.expect_tok(&Token::SemiColon)?;
        }
        body.extend(self.list(&["END"])?);
        self.c.expect("END")?;
        Ok(Node::Block {
            label: label.map(|l| l.to_lowercase()),
            handlers,
            cursors,
            body,
        })
    }

    fn declare_vars(&mut self, first: String) -> Result<Node> {
        let mut names = vec![first];
        while self.c.eat_tok(&Token::Comma) {
            names.push(self.c.ident()?);
        }
        let ty = self.c.data_type()?;
        let default = if self.c.eat("DEFAULT") {
            Some(self.expr_until(&[])?)
        } else {
            None
        };
        let mut slots = Vec::new();
        for n in names {
            let l = n.to_lowercase();
            if self
                .scopes
                .last()
                .expect("scope")
                .vars
                .iter()
                .any(|(x, _)| *x == l)
            {
                return Err(err(
                    codes::ER_SP_DUP_VAR,
                    format!("Duplicate variable: {n}"),
                ));
            }
            slots.push(self.add_var(&n, &ty));
        }
        Ok(Node::Declare(slots, default))
    }

    fn cursor_decl(&mut self, name: &str) -> Result<usize> {
        let l = name.to_lowercase();
        if self
            .scopes
            .last()
            .expect("scope")
            .cursors
            .iter()
            .any(|(n, _)| *n == l)
        {
            return Err(err(
                codes::ER_SP_DUP_CURS,
                format!("Duplicate cursor: {name}"),
            ));
        }
        if !self.c.is("SELECT") && !self.c.is("WITH") && self.c.peek() != Some(&Token::LParen) {
            return Err(err(
                codes::ER_SP_BAD_CURSOR_QUERY,
                "Cursor statement must be a SELECT",
            ));
        }
        let q = self.sql_stmt()?;
        if !q.into.is_empty() {
            return Err(err(
                codes::ER_SP_BAD_CURSOR_SELECT,
                "Cursor SELECT must not have INTO",
            ));
        }
        let id = self.cursors.len();
        self.cursors.push((name.to_string(), q));
        self.scopes.last_mut().expect("scope").cursors.push((l, id));
        Ok(id)
    }

    fn handler(&mut self) -> Result<Handler> {
        let cont = match self.c.kw_at(self.c.i).as_deref() {
            Some("CONTINUE") => true,
            Some("EXIT") => false,
            _ => return Err(Error::not_supported("UNDO handlers")),
        };
        self.c.i += 2;
        self.c.expect("FOR")?;
        let mut conds = vec![self.cond_value(true)?];
        while self.c.eat_tok(&Token::Comma) {
            conds.push(self.cond_value(true)?);
        }
        // the handler's statement sees the block's variables, not its labels
        let labels = std::mem::take(&mut self.labels);
        let body = self.stmt();
        self.labels = labels;
        Ok(Handler {
            cont,
            conds,
            body: Box::new(body?),
        })
    }

    /// `SQLSTATE [VALUE] 'x'`, an error number, or (for handlers) SQLWARNING / NOT FOUND /
    /// SQLEXCEPTION / a declared condition's name.
    fn cond_value(&mut self, handler: bool) -> Result<CondValue> {
        if self.c.eat("SQLSTATE") {
            self.c.eat("VALUE");
            let s = self.c.string()?;
            return sqlstate(&s, handler);
        }
        if let Some(Token::Number(n, _)) = self.c.peek() {
            let n: u16 = n.parse().map_err(|_| self.c.err())?;
            self.c.i += 1;
            if n == 0 {
                return Err(err(codes::ER_WRONG_VALUE, "Incorrect CONDITION value: '0'"));
            }
            return Ok(CondValue::ErrNo(n));
        }
        if handler {
            if self.c.eat("SQLWARNING") {
                return Ok(CondValue::Warning);
            }
            if self.c.eat_seq(&["NOT", "FOUND"]) {
                return Ok(CondValue::NotFound);
            }
            if self.c.eat("SQLEXCEPTION") {
                return Ok(CondValue::Exception);
            }
            let name = self.c.ident()?;
            return self.named_cond(&name);
        }
        Err(self.c.err())
    }

    fn named_cond(&self, name: &str) -> Result<CondValue> {
        let l = name.to_lowercase();
        self.scopes
            .iter()
            .rev()
            .find_map(|s| {
                s.conds
                    .iter()
                    .find(|(n, _)| *n == l)
                    .map(|(_, v)| v.clone())
            })
            .ok_or_else(|| {
                err(
                    codes::ER_SP_COND_MISMATCH,
                    format!("Undefined CONDITION: {name}"),
                )
            })
    }

    fn signal(&mut self, resignal: bool) -> Result<Node> {
        let cond = if self.c.is("SQLSTATE") {
            let v = self.cond_value(false)?;
            Some(v)
        } else if !self.c.done() && !self.c.is("SET") && self.c.peek() != Some(&Token::SemiColon) {
            let name = self.c.ident()?;
            Some(self.named_cond(&name)?)
        } else {
            None
        };
        if !resignal && cond.is_none() {
            return Err(self.c.err());
        }
        if let Some(CondValue::SqlState(s)) = &cond {
            if s.starts_with("00") {
                return Err(err(
                    codes::ER_SP_BAD_SQLSTATE,
                    format!("Bad SQLSTATE: '{s}'"),
                ));
            }
        }
        let mut items: Vec<(String, SpExpr)> = Vec::new();
        if self.c.eat("SET") {
            loop {
                let item = self.c.ident()?.to_ascii_uppercase();
                if !SIGNAL_ITEMS.contains(&item.as_str()) {
                    return Err(self.c.err());
                }
                if items.iter().any(|(n, _)| *n == item) {
                    return Err(err(
                        codes::ER_DUP_SIGNAL_SET,
                        format!("Duplicate condition information item '{item}'"),
                    ));
                }
                self.c.expect_tok(&Token::Eq)?;
                let e = self.expr_until(&[])?;
                items.push((item, e));
                if !self.c.eat_tok(&Token::Comma) {
                    break;
                }
            }
        }
        Ok(Node::Signal(resignal, cond, items))
    }

    fn if_stmt(&mut self) -> Result<Node> {
        let mut branches = Vec::new();
        let mut otherwise = None;
        loop {
            let cond = self.expr_until(&["THEN"])?;
            self.c.expect("THEN")?;
            let body = self.list(&["ELSEIF", "ELSE", "END"])?;
            branches.push((cond, body));
            if self.c.eat("ELSEIF") {
                continue;
            }
            if self.c.eat("ELSE") {
                otherwise = Some(self.list(&["END"])?);
            }
            self.c.expect("END")?;
            self.c.expect("IF")?;
            return Ok(Node::If(branches, otherwise));
        }
    }

    fn case_stmt(&mut self) -> Result<Node> {
        let operand = if self.c.is("WHEN") {
            None
        } else {
            Some(self.expr_until(&["WHEN"])?)
        };
        let mut whens = Vec::new();
        while self.c.eat("WHEN") {
            let v = self.expr_until(&["THEN"])?;
            self.c.expect("THEN")?;
            whens.push((v, self.list(&["WHEN", "ELSE", "END"])?));
        }
        if whens.is_empty() {
            return Err(self.c.err());
        }
        let otherwise = if self.c.eat("ELSE") {
            Some(self.list(&["END"])?)
        } else {
            None
        };
        self.c.expect("END")?;
        self.c.expect("CASE")?;
        Ok(Node::Case(operand, whens, otherwise))
    }

    /// True if the SET at the cursor assigns variables (`SET x = …`, `@x`, `@@x`, `SESSION x`),
    /// not `SET NAMES`, `SET TRANSACTION`, `SET PASSWORD`, ….
    fn is_var_set(&self) -> bool {
        // `SET names = 'x'` assigns a variable called `names`
        matches!(self.c.at(self.c.i + 2), Some(Token::Eq | Token::Assignment))
            || !matches!(
                self.c.kw_at(self.c.i + 1).as_deref(),
                Some(
                    "NAMES"
                        | "CHARACTER"
                        | "CHARSET"
                        | "TRANSACTION"
                        | "PASSWORD"
                        | "ROLE"
                        | "DEFAULT"
                )
            )
    }

    fn set_stmt(&mut self) -> Result<Node> {
        let mut out = Vec::new();
        loop {
            let from = self.c.i;
            let mut scope = String::new();
            for s in ["GLOBAL", "SESSION", "LOCAL", "PERSIST", "PERSIST_ONLY"] {
                if self.c.is(s)
                    && !matches!(self.c.at(self.c.i + 1), Some(Token::Eq | Token::Assignment))
                {
                    scope = s.to_string();
                    self.c.i += 1;
                    break;
                }
            }
            let name = self.c.ident()?;
            // `@@session.x` / `a.b` arrive as several tokens
            let mut dotted = false;
            while self.c.eat_tok(&Token::Period) {
                self.c.ident()?;
                dotted = true;
            }
            let name_text = self.c.slice(from, self.c.i);
            if !self.c.eat_tok(&Token::Eq) {
                self.c.expect_tok(&Token::Assignment)?;
            }
            let e = self.expr_until(&[])?;
            let bare = scope.is_empty() && !dotted && !name.starts_with('@');
            let local = if bare { self.var(&name) } else { None };
            out.push(match local {
                Some(slot) => Assign::Var(Target::Local(slot), e),
                None if name.starts_with('@') && !name.starts_with("@@") && !dotted => {
                    Assign::Var(Target::User(name[1..].trim_matches('`').to_lowercase()), e)
                }
                None if bare
                    && crate::runtime::sysvars::lookup(&name.to_ascii_lowercase()).is_none() =>
                {
                    return Err(Error::unknown_sysvar(&name));
                }
                None => Assign::Sys(name_text, e),
            });
            if !self.c.eat_tok(&Token::Comma) {
                return Ok(Node::Set(out));
            }
        }
    }

    fn target(&mut self) -> Result<Target> {
        let name = self.c.ident()?;
        self.target_of(&name)
    }

    fn target_of(&self, name: &str) -> Result<Target> {
        if let Some(u) = name.strip_prefix('@') {
            return Ok(Target::User(u.trim_matches('`').to_lowercase()));
        }
        self.var(name).map(Target::Local).ok_or_else(|| {
            err(
                codes::ER_SP_UNDECLARED_VAR,
                format!("Undeclared variable: {name}"),
            )
        })
    }

    /// The end (exclusive) of the expression starting at the cursor: the first `;`, `,` or
    /// one of `stops` outside parentheses and CASE … END.
    fn expr_end(&self, stops: &[&str]) -> usize {
        let (mut depth, mut cases) = (0i32, 0i32);
        let mut k = self.c.i;
        while let Some(t) = self.c.at(k) {
            match t {
                Token::LParen => depth += 1,
                Token::RParen if depth == 0 => return k,
                Token::RParen => depth -= 1,
                Token::SemiColon => return k,
                Token::Comma if depth == 0 => return k,
                _ => {}
            }
            if depth == 0 {
                let w = self.c.kw_at(k).unwrap_or_default();
                if w == "CASE" {
                    cases += 1;
                } else if w == "END" && cases > 0 {
                    cases -= 1;
                } else if cases == 0 && stops.contains(&w.as_str()) {
                    return k;
                }
            }
            k += 1;
        }
        k
    }

    fn expr_until(&mut self, stops: &[&str]) -> Result<SpExpr> {
        let end = self.expr_end(stops);
        if end == self.c.i {
            return Err(self.c.err());
        }
        let toks: Vec<Token> = self.c.toks[self.c.i..end]
            .iter()
            .map(|t| t.token.clone())
            .collect();
        let mut expr = crate::parse::parser::parse_expr_tokens(toks)?;
        self.c.i = end;
        let slots = self.subst(&mut expr)?;
        Ok(SpExpr { expr, slots })
    }

    /// Replaces the local variables in `node` by placeholders; the slot of each.
    fn subst<V: ast::VisitMut>(&self, node: &mut V) -> Result<Vec<usize>> {
        let mut slots: Vec<usize> = Vec::new();
        let _ = ast::visit_expressions_mut(node, |e| {
            if let ast::Expr::Identifier(id) = e {
                if !id.value.starts_with('@') {
                    if let Some(slot) = self.var(&id.value) {
                        let k = match slots.iter().position(|s| *s == slot) {
                            Some(k) => k,
                            None => {
                                slots.push(slot);
                                slots.len() - 1
                            }
                        };
                        *e = ast::Expr::value(ast::Value::Placeholder(format!("?{}", k + 1)));
                    }
                }
            }
            ControlFlow::<()>::Continue(())
        });
        Ok(slots)
    }

    /// The SQL statement at the cursor, up to its `;`.
    fn sql_stmt(&mut self) -> Result<SpSql> {
        let from = self.c.i;
        while !self.c.done() && self.c.peek() != Some(&Token::SemiColon) {
            self.c.i += 1;
        }
        let text = self.c.slice(from, self.c.i);
        let mut parsed = crate::parse::parser::parse_with(&text, self.mode)?;
        if parsed.len() != 1 {
            return Err(Error::parse(text));
        }
        let mut p = parsed.remove(0);
        let mut into = Vec::new();
        if let Stmt::Ast(Statement::Query(q)) = &mut p.stmt {
            if let ast::SetExpr::Select(sel) = q.body.as_mut() {
                if let Some(i) = sel.into.take() {
                    for t in &i.targets {
                        into.push(self.target_of(&t.to_string())?);
                    }
                }
            }
        }
        let slots = match &mut p.stmt {
            Stmt::Ast(s) => self.subst(s)?,
            Stmt::Do(s) => self.subst(s.as_mut())?,
            _ => Vec::new(),
        };
        Ok(SpSql {
            parsed: p,
            slots,
            into,
        })
    }

    fn sql(&mut self) -> Result<Node> {
        let s = self.sql_stmt()?;
        if let Stmt::Routine(r) = &s.parsed.stmt {
            return match r {
                RoutineStmt::Call { db, name, args } => {
                    let mut out = Vec::new();
                    let mut targets = Vec::new();
                    for a in args {
                        targets.push(match a {
                            ast::Expr::Identifier(id) => self.target_of(&id.value).ok(),
                            _ => None,
                        });
                        let mut e = a.clone();
                        let slots = self.subst(&mut e)?;
                        out.push(SpExpr { expr: e, slots });
                    }
                    Ok(Node::Call {
                        db: db.clone(),
                        name: name.clone(),
                        args: out,
                        targets,
                    })
                }
                RoutineStmt::Create(c) => Err(err(
                    codes::ER_SP_NO_RECURSIVE_CREATE,
                    format!(
                        "Can't create a {} from within another stored routine",
                        c.kind.name()
                    ),
                )),
                _ => Err(err(
                    codes::ER_SP_BADSTATEMENT,
                    "ALTER / DROP of a routine is not allowed in stored procedures",
                )),
            };
        }
        let rows = s.into.is_empty()
            && matches!(
                &s.parsed.stmt,
                Stmt::Ast(Statement::Query(_))
                    | Stmt::Show(_)
                    | Stmt::Ast(Statement::Explain { .. })
                    | Stmt::Ast(Statement::ExplainTable { .. })
            );
        if rows && self.function {
            return Err(err(
                codes::ER_SP_NO_RETSET,
                "Not allowed to return a result set from a function",
            ));
        }
        let commits = matches!(
            &s.parsed.stmt,
            Stmt::Ast(
                Statement::Commit { .. }
                    | Statement::Rollback { .. }
                    | Statement::StartTransaction { .. }
            )
        );
        if commits && self.function {
            return Err(err(
                codes::ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG,
                "Explicit or implicit commit is not allowed in stored function or trigger.",
            ));
        }
        self.returns_rows |= rows;
        Ok(Node::Sql(Box::new(s)))
    }
}

/// Items of SIGNAL … SET.
const SIGNAL_ITEMS: &[&str] = &[
    "CLASS_ORIGIN",
    "SUBCLASS_ORIGIN",
    "MESSAGE_TEXT",
    "MYSQL_ERRNO",
    "CONSTRAINT_CATALOG",
    "CONSTRAINT_SCHEMA",
    "CONSTRAINT_NAME",
    "CATALOG_NAME",
    "SCHEMA_NAME",
    "TABLE_NAME",
    "COLUMN_NAME",
    "CURSOR_NAME",
];

fn after_decl() -> Error {
    err(
        codes::ER_SP_VARCOND_AFTER_CURSHNDLR,
        "Variable or condition declaration after cursor or handler declaration",
    )
}

/// A SQLSTATE value: five characters of `[0-9A-Z]`, not class 00 for a handler (1407).
fn sqlstate(s: &str, handler: bool) -> Result<CondValue> {
    let ok = s.len() == 5
        && s.bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase());
    if !ok || (handler && s.starts_with("00")) {
        return Err(err(
            codes::ER_SP_BAD_SQLSTATE,
            format!("Bad SQLSTATE: '{s}'"),
        ));
    }
    Ok(CondValue::SqlState(s.to_string()))
}

/// Words that may follow `END` of a construct without being an end label.
fn is_reserved_after_end(w: &str) -> bool {
    matches!(
        w.to_ascii_uppercase().as_str(),
        "IF" | "LOOP" | "WHILE" | "REPEAT" | "CASE" | "END" | "ELSE" | "ELSEIF" | "WHEN" | "UNTIL"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prog(body: &str) -> Result<Program> {
        compile(
            body,
            &[("p".into(), "INT".into())],
            false,
            SqlModeFlags::default(),
        )
    }

    #[test]
    fn locals_become_placeholders_and_columns_stay() {
        let p = prog(
            "BEGIN DECLARE x, y INT DEFAULT p + 1; SELECT a INTO x FROM t WHERE b = p AND c = y; END",
        )
        .unwrap();
        let Node::Block { body, .. } = &p.body else {
            panic!()
        };
        assert_eq!(p.vars.len(), 3);
        let Node::Sql(s) = &body[1] else { panic!() };
        assert_eq!(s.into, vec![Target::Local(1)]);
        assert_eq!(s.slots, vec![0, 2]);
    }

    #[test]
    fn mysql_errors_at_create() {
        let code = |b: &str| prog(b).unwrap_err().code.num;
        assert_eq!(code("BEGIN LEAVE x; END"), 1308);
        assert_eq!(code("l: BEGIN ITERATE l; END"), 1308);
        assert_eq!(
            code("BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE x INT; END"),
            1337
        );
        assert_eq!(code("BEGIN DECLARE x INT; DECLARE x INT; END"), 1331);
        assert_eq!(code("BEGIN OPEN c; END"), 1324);
        assert_eq!(code("BEGIN RETURN 1; END"), 1313);
        assert_eq!(code("BEGIN SET q = 1; END"), 1193);
        assert_eq!(code("BEGIN FETCH c INTO z; END"), 1324);
        assert_eq!(
            code("BEGIN DECLARE EXIT HANDLER FOR nope SET p = 1; END"),
            1319
        );
        assert_eq!(code("a: BEGIN END b"), 1310);
        let f = compile("SELECT 1", &[], true, SqlModeFlags::default());
        assert_eq!(f.unwrap_err().code.num, 1415);
    }

    #[test]
    fn control_flow_parses() {
        let p = prog(
            "lbl: BEGIN
               DECLARE done INT DEFAULT FALSE;
               DECLARE cur CURSOR FOR SELECT a FROM t;
               DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = TRUE;
               OPEN cur;
               r: LOOP
                 FETCH cur INTO p;
                 IF done THEN LEAVE r; ELSEIF p > 2 THEN ITERATE r; ELSE SET @s = @s + p; END IF;
                 CASE p WHEN 1 THEN SET p = 2; ELSE BEGIN END; END CASE;
               END LOOP r;
               WHILE p < 10 DO SET p = p + 1; END WHILE;
               REPEAT SET p = p - 1; UNTIL p < 0 END REPEAT;
               CLOSE cur;
               SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'x', MYSQL_ERRNO = 1234;
             END lbl",
        )
        .unwrap();
        assert_eq!(p.cursors.len(), 1);
    }
}
