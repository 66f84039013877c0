//! ALTER TABLE's syntax: [`parse`] turns `ALTER TABLE t op, op, …` into an [`AlterStmt`].
//! sqlparser parses the operations it knows (ADD/DROP/MODIFY/CHANGE/RENAME COLUMN, ALTER
//! COLUMN … DEFAULT, ADD index constraints, DROP INDEX/PRIMARY KEY, ALGORITHM=, LOCK=,
//! AUTO_INCREMENT=, RENAME TO; converted by [`from_ast`]); the MySQL forms it lacks are parsed
//! here (`DROP KEY`, `RENAME INDEX|KEY a TO b`, `RENAME t2`, table options such as `ENGINE=`,
//! `COMMENT=`, `[DEFAULT] CHARSET=`, `COLLATE=`, `ROW_FORMAT=`, `CONVERT TO CHARACTER SET`,
//! `FORCE`, `ADD [COLUMN] (c1 …, c2 …)`), partition operations by [`crate::parse::partition`].
//! Executed by `crate::ddl::alter`.
//!
//! May use: [`crate::runtime`] and the rest of this stage.

use common::{Error, Result};
use sqlparser::ast::{self, ColumnOption, TableConstraint};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan};
use storage::catalog::IndexKind;

/// A parsed `ALTER TABLE` statement.
#[derive(Debug, Clone)]
pub struct AlterStmt {
    /// The table.
    pub table: ast::ObjectName,
    /// The operations, in statement order.
    pub ops: Vec<AlterOp>,
}

/// A column definition in ADD/MODIFY/CHANGE.
#[derive(Debug, Clone)]
pub struct ColumnSpecAst {
    /// The (new) column name.
    pub name: String,
    /// The declared type.
    pub data_type: ast::DataType,
    /// Column options (NOT NULL, DEFAULT, …).
    pub options: Vec<ColumnOption>,
}

/// An index definition in ADD INDEX / CREATE INDEX.
#[derive(Debug, Clone)]
pub struct IndexSpec {
    /// The name; `None`: named after its first column.
    pub name: Option<String>,
    /// PRIMARY, UNIQUE or normal.
    pub kind: IndexKind,
    /// Key parts (`c`, `c(10)`, `c DESC`).
    pub columns: Vec<ast::OrderByExpr>,
    /// COMMENT '…'.
    pub comment: String,
}

impl IndexSpec {
    /// The index of a table constraint; `None` for FOREIGN KEY and CHECK (accepted and
    /// ignored, as CREATE TABLE does).
    ///
    /// # Errors
    /// 1235 for FULLTEXT/SPATIAL and other unsupported constraints.
    pub fn from_constraint(c: &TableConstraint) -> Result<Option<IndexSpec>> {
        let cols = |v: &[ast::IndexColumn]| v.iter().map(|c| c.column.clone()).collect();
        Ok(Some(match c {
            TableConstraint::PrimaryKey(p) => IndexSpec {
                name: Some("PRIMARY".into()),
                kind: IndexKind::Primary,
                columns: cols(&p.columns),
                comment: index_comment(&p.index_options),
            },
            TableConstraint::Unique(u) => IndexSpec {
                name: u
                    .index_name
                    .as_ref()
                    .or(u.name.as_ref())
                    .map(|n| n.value.clone()),
                kind: IndexKind::Unique,
                columns: cols(&u.columns),
                comment: index_comment(&u.index_options),
            },
            TableConstraint::Index(ix) => IndexSpec {
                name: ix.name.as_ref().map(|n| n.value.clone()),
                kind: IndexKind::Normal,
                columns: cols(&ix.columns),
                comment: index_comment(&ix.index_options),
            },
            TableConstraint::ForeignKey(_) | TableConstraint::Check(_) => return Ok(None),
            TableConstraint::FulltextOrSpatial(_) => {
                return Err(Error::not_supported("FULLTEXT and SPATIAL indexes"))
            }
            other => return Err(Error::not_supported(format!("ALTER TABLE ADD {other}"))),
        }))
    }
}

/// `ALGORITHM=` of an ALTER TABLE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// DEFAULT (or not given): the cheapest way.
    #[default]
    Default,
    /// INSTANT: metadata only.
    Instant,
    /// INPLACE: no table copy for column type changes.
    Inplace,
    /// COPY: always rebuild the table.
    Copy,
}

/// `LOCK=` of an ALTER TABLE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lock {
    /// DEFAULT (or not given).
    #[default]
    Default,
    /// NONE: concurrent reads and writes must be possible.
    None,
    /// SHARED.
    Shared,
    /// EXCLUSIVE.
    Exclusive,
}

/// One operation of an ALTER TABLE.
#[derive(Debug, Clone)]
pub enum AlterOp {
    /// A partition operation (`ADD PARTITION`, `PARTITION BY`, …).
    Partition(Box<crate::parse::partition::PartOp>),
    /// `ADD [COLUMN] def [FIRST | AFTER c]`.
    AddColumn {
        /// The definition.
        spec: ColumnSpecAst,
        /// FIRST / AFTER c; `None`: at the end.
        position: Option<ast::MySQLColumnPosition>,
    },
    /// `DROP [COLUMN] [IF EXISTS] c`.
    DropColumn {
        /// Column name (of the original table).
        name: String,
        /// IF EXISTS (a MariaDB extension): a missing column is a note.
        if_exists: bool,
    },
    /// `MODIFY [COLUMN] c def` (`old` = the new name) or `CHANGE [COLUMN] old def`.
    ChangeColumn {
        /// Column name in the original table.
        old: String,
        /// The new definition.
        spec: ColumnSpecAst,
        /// FIRST / AFTER c.
        position: Option<ast::MySQLColumnPosition>,
    },
    /// `RENAME COLUMN a TO b`.
    RenameColumn {
        /// Current name.
        old: String,
        /// New name.
        new: String,
    },
    /// `ALTER [COLUMN] c SET DEFAULT e` / `DROP DEFAULT` (`None`).
    SetDefault {
        /// Column name.
        column: String,
        /// The new default; `None` = DROP DEFAULT.
        value: Option<ast::Expr>,
    },
    /// `ADD {INDEX|KEY|UNIQUE|PRIMARY KEY|CONSTRAINT …} (…)`, `CREATE [UNIQUE] INDEX`.
    AddIndex(IndexSpec),
    /// `DROP {INDEX|KEY} name`.
    DropIndex(String),
    /// `DROP PRIMARY KEY`.
    DropPrimaryKey,
    /// `DROP CONSTRAINT name`: drops the CHECK constraint, index or FOREIGN KEY of that name.
    DropConstraint(String),
    /// `ADD [CONSTRAINT [name]] CHECK (…) [[NOT] ENFORCED]`.
    AddCheck(ast::CheckConstraint),
    /// `DROP CHECK name`.
    DropCheck(String),
    /// `ALTER {CHECK | CONSTRAINT} name [NOT] ENFORCED`.
    AlterCheck {
        /// Constraint name.
        name: String,
        /// ENFORCED (true) or NOT ENFORCED.
        enforced: bool,
    },
    /// `RENAME {INDEX|KEY} a TO b`.
    RenameIndex {
        /// Current name.
        old: String,
        /// New name.
        new: String,
    },
    /// A table option: `ENGINE`, `COMMENT`, `AUTO_INCREMENT`, `CHARSET`, `COLLATE`,
    /// `ROW_FORMAT`, …
    TableOption {
        /// Canonical upper-case key (`CHARSET` for every character-set spelling).
        key: String,
        /// The value, unquoted.
        value: String,
    },
    /// `CONVERT TO CHARACTER SET cs [COLLATE co]`.
    ConvertTo {
        /// Character set name (`DEFAULT` = the database's).
        charset: String,
        /// Collation name.
        collation: Option<String>,
    },
    /// `ALGORITHM [=] …`.
    Algorithm(Algorithm),
    /// `LOCK [=] …`.
    Lock(Lock),
    /// `FORCE`: rebuild the table.
    Force,
    /// `DISABLE KEYS` / `ENABLE KEYS` (every dump wraps its INSERTs in them): nothing to do
    /// for this engine, a 1031 note as InnoDB gives.
    Keys,
    /// `RENAME [TO | AS] name`.
    Rename(ast::ObjectName),
    /// `ADD [CONSTRAINT [name]] FOREIGN KEY …`: kept in the definition, not enforced.
    AddForeignKey(ast::ForeignKeyConstraint),
    /// `DROP FOREIGN KEY name`.
    DropForeignKey(String),
    /// Accepted and ignored: `ALTER INDEX i VISIBLE`.
    Ignored,
    /// Valid MySQL that Strata does not implement (fails with 1235 when executed).
    Unsupported(String),
}

fn word_up(t: &Token) -> Option<String> {
    match t {
        Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

fn ident_text(n: &ast::Ident) -> String {
    n.value.clone()
}

/// A column option, a CHECK keeping its `CONSTRAINT name` (sqlparser keeps the name beside
/// the option).
pub fn named_option(o: ast::ColumnOptionDef) -> ColumnOption {
    match (o.option, o.name) {
        (ColumnOption::Check(mut c), Some(name)) if c.name.is_none() => {
            c.name = Some(name);
            ColumnOption::Check(c)
        }
        (option, _) => option,
    }
}

/// Parses `ALTER TABLE name op[, op …]` from the statement's tokens (`text` for messages).
///
/// # Errors
/// 1064 for syntax errors; 1235 for operations Strata does not support.
pub fn parse(tokens: Vec<TokenWithSpan>, text: &str) -> Result<AlterStmt> {
    let dialect = crate::parse::dialect::StrataDialect::default();
    let mut p = Parser::new(&dialect).with_tokens_with_locations(tokens);
    let perr =
        |e: ParserError| Error::parse(crate::parse::parser::short_near(text, &e.to_string()));
    p.expect_keyword_is(Keyword::ALTER).map_err(perr)?;
    p.expect_keyword_is(Keyword::TABLE).map_err(perr)?;
    let table = p.parse_object_name(false).map_err(perr)?;
    let mut ops = Vec::new();
    loop {
        if matches!(p.peek_token().token, Token::EOF | Token::SemiColon) {
            break;
        }
        let before = ops.len();
        let is_option = parse_op(&mut p, &mut ops).map_err(perr)?;
        debug_assert!(ops.len() > before);
        match p.peek_token().token {
            Token::EOF | Token::SemiColon => break,
            Token::Comma => {
                p.next_token();
                if matches!(p.peek_token().token, Token::EOF | Token::SemiColon) {
                    return Err(Error::parse(""));
                }
            }
            // table options may be separated by spaces
            _ if is_option => {}
            other => {
                return Err(Error::parse(crate::parse::parser::near_text(
                    text,
                    &other.to_string(),
                )))
            }
        }
    }
    Ok(AlterStmt { table, ops })
}

/// Parses one operation into `ops` (ADD (a, b) gives several); true for a table option.
fn parse_op(p: &mut Parser<'_>, ops: &mut Vec<AlterOp>) -> std::result::Result<bool, ParserError> {
    let [t0, t1, t2] = p.peek_tokens::<3>();
    let (w0, w1, w2) = (word_up(&t0), word_up(&t1), word_up(&t2));
    let w0 = w0.unwrap_or_default();
    let w1 = w1.unwrap_or_default();
    let w2 = w2.unwrap_or_default();
    if let Some(op) = crate::parse::partition::parse_alter_op(p)? {
        ops.push(AlterOp::Partition(Box::new(op)));
        return Ok(false);
    }
    // ADD [COLUMN] (c1 def, c2 def, ...)
    if w0 == "ADD" && (t1 == Token::LParen || (w1 == "COLUMN" && t2 == Token::LParen)) {
        p.next_token();
        let _ = p.parse_keyword(Keyword::COLUMN);
        p.expect_token(&Token::LParen)?;
        loop {
            let cd = p.parse_column_def()?;
            ops.push(AlterOp::AddColumn {
                spec: ColumnSpecAst {
                    name: ident_text(&cd.name),
                    data_type: cd.data_type,
                    options: cd.options.into_iter().map(named_option).collect(),
                },
                position: None,
            });
            if !p.consume_token(&Token::Comma) {
                break;
            }
        }
        p.expect_token(&Token::RParen)?;
        return Ok(false);
    }
    // DROP {KEY|INDEX} name, DROP CHECK name
    if w0 == "DROP" && (w1 == "KEY" || w1 == "INDEX") {
        p.next_token();
        p.next_token();
        let name = p.parse_identifier()?;
        ops.push(AlterOp::DropIndex(ident_text(&name)));
        return Ok(false);
    }
    if w0 == "DROP" && w1 == "CHECK" {
        p.next_token();
        p.next_token();
        let name = p.parse_identifier()?;
        ops.push(AlterOp::DropCheck(ident_text(&name)));
        return Ok(false);
    }
    // ALTER {CHECK | CONSTRAINT} name [NOT] ENFORCED
    if w0 == "ALTER" && (w1 == "CHECK" || w1 == "CONSTRAINT") {
        p.next_token();
        p.next_token();
        let name = p.parse_identifier()?;
        let enforced = !p.parse_keyword(Keyword::NOT);
        p.expect_keyword_is(Keyword::ENFORCED)?;
        ops.push(AlterOp::AlterCheck {
            name: ident_text(&name),
            enforced,
        });
        return Ok(false);
    }
    // RENAME {INDEX|KEY} a TO b; RENAME new_name
    if w0 == "RENAME" {
        if w1 == "INDEX" || w1 == "KEY" {
            p.next_token();
            p.next_token();
            let old = p.parse_identifier()?;
            p.expect_keyword_is(Keyword::TO)?;
            let new = p.parse_identifier()?;
            ops.push(AlterOp::RenameIndex {
                old: ident_text(&old),
                new: ident_text(&new),
            });
            return Ok(false);
        }
        if !matches!(w1.as_str(), "TO" | "AS" | "COLUMN") && matches!(t1, Token::Word(_)) {
            p.next_token();
            ops.push(AlterOp::Rename(p.parse_object_name(false)?));
            return Ok(false);
        }
    }
    // ALTER INDEX i {VISIBLE|INVISIBLE}
    if w0 == "ALTER" && (w1 == "INDEX" || w1 == "KEY") {
        p.next_token();
        p.next_token();
        p.parse_identifier()?;
        let vis = p.next_token();
        return match word_up(&vis.token).as_deref() {
            Some("VISIBLE") => {
                ops.push(AlterOp::Ignored);
                Ok(false)
            }
            Some("INVISIBLE") => {
                ops.push(AlterOp::Unsupported("invisible indexes".into()));
                Ok(false)
            }
            _ => p.expected("VISIBLE or INVISIBLE", vis),
        };
    }
    // CONVERT TO {CHARACTER SET|CHARSET} cs [COLLATE co]
    if w0 == "CONVERT" && w1 == "TO" {
        p.next_token();
        p.next_token();
        if !p.parse_keyword(Keyword::CHARSET) {
            p.expect_keywords(&[Keyword::CHARACTER, Keyword::SET])?;
        }
        let charset = option_value(p)?;
        let collation = if p.parse_keyword(Keyword::COLLATE) {
            Some(option_value(p)?)
        } else {
            None
        };
        ops.push(AlterOp::ConvertTo { charset, collation });
        return Ok(false);
    }
    if w0 == "FORCE" {
        p.next_token();
        ops.push(AlterOp::Force);
        return Ok(false);
    }
    if (w0 == "DISABLE" || w0 == "ENABLE") && w1 == "KEYS" {
        p.next_token();
        p.next_token();
        ops.push(AlterOp::Keys);
        return Ok(false);
    }
    // table options
    let charset_kw = |a: &str, b: &str| a == "CHARSET" || (a == "CHARACTER" && b == "SET");
    if w0 == "DEFAULT" && (charset_kw(&w1, &w2) || w1 == "COLLATE")
        || charset_kw(&w0, &w1)
        || TABLE_OPTIONS.contains(&w0.as_str())
    {
        let _ = p.parse_keyword(Keyword::DEFAULT);
        let key = if p.parse_keyword(Keyword::CHARSET)
            || p.parse_keywords(&[Keyword::CHARACTER, Keyword::SET])
        {
            "CHARSET".to_string()
        } else {
            let k = p.next_token();
            word_up(&k.token).unwrap_or_default()
        };
        let value = option_value(p)?;
        ops.push(AlterOp::TableOption { key, value });
        return Ok(true);
    }
    let op = p.parse_alter_table_operation()?;
    from_ast(op, ops).map_err(|e| ParserError::ParserError(e.msg))?;
    Ok(matches!(ops.last(), Some(AlterOp::TableOption { .. })))
}

/// Table options accepted by ALTER TABLE (CHARSET spellings are handled separately).
const TABLE_OPTIONS: &[&str] = &[
    "ENGINE",
    "AUTO_INCREMENT",
    "COMMENT",
    "COLLATE",
    "ROW_FORMAT",
    "KEY_BLOCK_SIZE",
    "STATS_PERSISTENT",
    "STATS_AUTO_RECALC",
    "STATS_SAMPLE_PAGES",
    "PACK_KEYS",
    "CHECKSUM",
    "COMPRESSION",
    "ENCRYPTION",
    "MAX_ROWS",
    "MIN_ROWS",
    "AVG_ROW_LENGTH",
    "DELAY_KEY_WRITE",
    "INSERT_METHOD",
];

/// `[=] value` of a table option: a word, number or string.
fn option_value(p: &mut Parser<'_>) -> std::result::Result<String, ParserError> {
    let _ = p.consume_token(&Token::Eq);
    let t = p.next_token();
    match &t.token {
        Token::Word(w) => Ok(w.value.clone()),
        Token::Number(n, _) => Ok(n.clone()),
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(s.clone()),
        _ => p.expected("an option value", t),
    }
}

/// Converts a sqlparser ALTER TABLE operation, appending to `ops`.
///
/// # Errors
/// 1235 for operations MySQL (or Strata) does not have.
pub fn from_ast(op: ast::AlterTableOperation, ops: &mut Vec<AlterOp>) -> Result<()> {
    use ast::AlterTableOperation as A;
    let spec =
        |name: &ast::Ident, data_type: ast::DataType, options: Vec<ColumnOption>| ColumnSpecAst {
            name: ident_text(name),
            data_type,
            options,
        };
    match op {
        A::AddConstraint { constraint, .. } => match IndexSpec::from_constraint(&constraint)? {
            Some(ix) => ops.push(AlterOp::AddIndex(ix)),
            None => match constraint {
                TableConstraint::ForeignKey(fk) => ops.push(AlterOp::AddForeignKey(fk)),
                TableConstraint::Check(c) => ops.push(AlterOp::AddCheck(c)),
                other => return Err(Error::not_supported(format!("ALTER TABLE ADD {other}"))),
            },
        },
        A::AddColumn {
            column_def,
            column_position,
            ..
        } => ops.push(AlterOp::AddColumn {
            spec: spec(
                &column_def.name,
                column_def.data_type,
                column_def.options.into_iter().map(named_option).collect(),
            ),
            position: column_position,
        }),
        A::DropColumn {
            column_names,
            if_exists,
            ..
        } => {
            for n in column_names {
                ops.push(AlterOp::DropColumn {
                    name: ident_text(&n),
                    if_exists,
                });
            }
        }
        A::DropPrimaryKey { .. } => ops.push(AlterOp::DropPrimaryKey),
        A::DropForeignKey { name, .. } => ops.push(AlterOp::DropForeignKey(ident_text(&name))),
        A::DropIndex { name } => ops.push(AlterOp::DropIndex(ident_text(&name))),
        A::DropConstraint { name, .. } => ops.push(AlterOp::DropConstraint(ident_text(&name))),
        A::RenameColumn {
            old_column_name,
            new_column_name,
        } => ops.push(AlterOp::RenameColumn {
            old: ident_text(&old_column_name),
            new: ident_text(&new_column_name),
        }),
        A::RenameTable { table_name } => {
            let (ast::RenameTableNameKind::As(n) | ast::RenameTableNameKind::To(n)) = table_name;
            ops.push(AlterOp::Rename(n));
        }
        A::ChangeColumn {
            old_name,
            new_name,
            data_type,
            options,
            column_position,
        } => ops.push(AlterOp::ChangeColumn {
            old: ident_text(&old_name),
            spec: spec(&new_name, data_type, options),
            position: column_position,
        }),
        A::ModifyColumn {
            col_name,
            data_type,
            options,
            column_position,
        } => ops.push(AlterOp::ChangeColumn {
            old: ident_text(&col_name),
            spec: spec(&col_name, data_type, options),
            position: column_position,
        }),
        A::AlterColumn { column_name, op } => match op {
            ast::AlterColumnOperation::SetDefault { value } => ops.push(AlterOp::SetDefault {
                column: ident_text(&column_name),
                value: Some(value),
            }),
            ast::AlterColumnOperation::DropDefault => ops.push(AlterOp::SetDefault {
                column: ident_text(&column_name),
                value: None,
            }),
            other => return Err(Error::not_supported(format!("ALTER COLUMN … {other}"))),
        },
        A::Algorithm { algorithm, .. } => ops.push(AlterOp::Algorithm(match algorithm {
            ast::AlterTableAlgorithm::Default => Algorithm::Default,
            ast::AlterTableAlgorithm::Instant => Algorithm::Instant,
            ast::AlterTableAlgorithm::Inplace => Algorithm::Inplace,
            ast::AlterTableAlgorithm::Copy => Algorithm::Copy,
        })),
        A::Lock { lock, .. } => ops.push(AlterOp::Lock(match lock {
            ast::AlterTableLock::Default => Lock::Default,
            ast::AlterTableLock::None => Lock::None,
            ast::AlterTableLock::Shared => Lock::Shared,
            ast::AlterTableLock::Exclusive => Lock::Exclusive,
        })),
        A::AutoIncrement { value, .. } => ops.push(AlterOp::TableOption {
            key: "AUTO_INCREMENT".into(),
            value: value.to_string(),
        }),
        other => return Err(Error::not_supported(format!("ALTER TABLE {other}"))),
    }
    Ok(())
}

fn index_comment(opts: &[ast::IndexOption]) -> String {
    opts.iter()
        .find_map(|o| match o {
            ast::IndexOption::Comment(c) => Some(c.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mysql_forms() {
        for sql in [
            "ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 3 AFTER b",
            "ALTER TABLE t ADD c INT FIRST, ADD d INT AFTER c",
            "ALTER TABLE t ADD COLUMN (c INT, d INT)",
            "ALTER TABLE t ADD (c INT)",
            "ALTER TABLE t DROP COLUMN c, DROP d",
            "ALTER TABLE t MODIFY COLUMN c BIGINT NOT NULL AFTER a",
            "ALTER TABLE t CHANGE a b INT FIRST",
            "ALTER TABLE t RENAME COLUMN a TO b",
            "ALTER TABLE t ALTER COLUMN a SET DEFAULT 5, ALTER a DROP DEFAULT",
            "ALTER TABLE t ADD INDEX i (a, b), ADD KEY (a), ADD UNIQUE KEY u (a)",
            "ALTER TABLE t ADD CONSTRAINT pk PRIMARY KEY (a)",
            "ALTER TABLE t DROP INDEX i, DROP KEY j, DROP PRIMARY KEY",
            "ALTER TABLE t RENAME INDEX a TO b, RENAME KEY c TO d",
            "ALTER TABLE t ENGINE=InnoDB",
            "ALTER TABLE t ENGINE InnoDB COMMENT 'x' AUTO_INCREMENT 5",
            "ALTER TABLE t ENGINE=InnoDB, COMMENT='x', AUTO_INCREMENT=5",
            "ALTER TABLE t DEFAULT CHARSET=latin1",
            "ALTER TABLE t DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
            "ALTER TABLE t CHARACTER SET = latin1, COLLATE=latin1_bin",
            "ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
            "ALTER TABLE t ADD COLUMN c INT, ALGORITHM=INSTANT, LOCK=DEFAULT",
            "ALTER TABLE t ALGORITHM=COPY, ADD COLUMN c INT",
            "ALTER TABLE t RENAME TO u",
            "ALTER TABLE t RENAME u",
            "ALTER TABLE t RENAME AS d.u",
            "ALTER TABLE t FORCE",
            "ALTER TABLE t ROW_FORMAT=DYNAMIC",
            "ALTER TABLE t",
            "ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0), DROP CHECK c, DROP FOREIGN KEY f",
            "ALTER TABLE t ADD CHECK (a > 0) NOT ENFORCED, ALTER CHECK c ENFORCED",
            "ALTER TABLE t ALTER CONSTRAINT c NOT ENFORCED, DROP CONSTRAINT d",
            "ALTER TABLE t ADD COLUMN b INT CONSTRAINT b_pos CHECK (b > 0)",
            "ALTER TABLE t ALTER INDEX i VISIBLE",
        ] {
            let p = crate::parse::parser::parse(sql).unwrap_or_else(|e| panic!("{sql}: {}", e.msg));
            assert!(
                matches!(p[0].stmt, crate::parse::parser::Stmt::AlterTable(_)),
                "{sql}"
            );
        }
        let p = crate::parse::parser::parse("ALTER TABLE t ADD (c INT, d INT), RENAME KEY a TO b")
            .unwrap();
        let crate::parse::parser::Stmt::AlterTable(a) = &p[0].stmt else {
            panic!()
        };
        assert_eq!(a.ops.len(), 3);
        assert!(matches!(&a.ops[2], AlterOp::RenameIndex { old, new } if old == "a" && new == "b"));
        let p = crate::parse::parser::parse(
            "ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0) NOT ENFORCED, ALTER CHECK c ENFORCED, \
             ADD b INT CONSTRAINT b_pos CHECK (b > 0)",
        )
        .unwrap();
        let crate::parse::parser::Stmt::AlterTable(a) = &p[0].stmt else {
            panic!()
        };
        assert!(matches!(&a.ops[0], AlterOp::AddCheck(c)
            if c.name.as_ref().map(|n| n.value.as_str()) == Some("c") && c.enforced == Some(false)));
        assert!(matches!(&a.ops[1], AlterOp::AlterCheck { name, enforced: true } if name == "c"));
        assert!(
            matches!(&a.ops[2], AlterOp::AddColumn { spec, .. } if matches!(
            &spec.options[0], ColumnOption::Check(c) if c.name.as_ref().map(|n| n.value.as_str()) == Some("b_pos")))
        );
        for bad in [
            "ALTER TABLE t ADD",
            "ALTER TABLE t ADD c INT,",
            "ALTER TABLE t ADD c INT DROP d",
            "ALTER TABLE t RENAME INDEX a b",
        ] {
            assert_eq!(
                crate::parse::parser::parse(bad)
                    .map(|_| ())
                    .unwrap_err()
                    .num(),
                1064,
                "{bad}"
            );
        }
    }
}
