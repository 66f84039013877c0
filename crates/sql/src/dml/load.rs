//! `LOAD DATA [LOCAL] INFILE` (the statement is parsed by [`crate::parse::load`]): the field
//! splitter that turns a byte stream into records of fields with MySQL's
//! terminator / enclosure / escape rules, and the executor that inserts the records as one
//! statement with MySQL 8's warnings, strict-mode errors and duplicate handling.
//!
//! The file is read as a stream (a buffer of [`READ_CHUNK`] bytes), never whole. A server-side
//! file must lie inside `secure_file_priv` (error 1290) and needs the FILE privilege (checked
//! in `acl_check`); a LOCAL file comes from the client through `common::client::Client`
//! and needs `local_infile` ON. As in MySQL, LOCAL implies IGNORE for duplicates and turns
//! data errors into warnings (the server cannot stop the client's transfer).
//!
//! Into an empty table, the rows take the fast path of [`crate::dml::bulk_load`] when it
//! applies (sorted in bounded memory, then made visible at once); otherwise each row is
//! inserted through the statement's transaction, which buffers them all until it commits.

use std::io::Read;

use common::client::Client;
use common::{codes, DataType, Error, Result, Value, Warning};
use sqlparser::ast;
use storage::engine::KvEngine;
use storage::txn::InsertOutcome;

use crate::bind::expr::Binder;
use crate::bind::select::resolve_table;
use crate::bind::select::table_scope;
use crate::dml::single::convert_col;
use crate::dml::single::dup_error;
use crate::dml::single::implicit_default;
use crate::dml::single::RowFiller;
use crate::ir::expr::Expr;
use crate::parse::load::{Field, Format, LoadStmt, OnDup, Target};
use crate::session::session::Output;
use crate::session::session::Session;

/// Bytes read from the file at a time.
pub const READ_CHUNK: usize = 64 * 1024;

/// Splits a byte stream into records of fields (MySQL's READ_INFO rules):
/// * a record ends at LINES TERMINATED BY; with LINES STARTING BY, a record begins after the
///   prefix and text before it (and lines without it) is skipped;
/// * fields end at FIELDS TERMINATED BY;
/// * a field that starts with the ENCLOSED BY character runs to the next enclosure character
///   followed by a field or line terminator (or the end of input); a doubled enclosure
///   character inside stands for one; terminators inside are data;
/// * the ESCAPED BY character makes the next byte literal, with `\0 \b \n \r \t \Z` mapped to
///   NUL, backspace, newline, return, tab and Ctrl-Z; an unquoted field that is exactly `\N`
///   is NULL.
pub struct Splitter<R> {
    src: R,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    fmt: Format,
}

impl<R: Read> Splitter<R> {
    /// A splitter over `src`.
    pub fn new(src: R, fmt: Format) -> Self {
        Splitter {
            src,
            buf: Vec::with_capacity(READ_CHUNK),
            pos: 0,
            eof: false,
            fmt,
        }
    }

    /// Ensures at least `n` unread bytes are buffered unless the input ends first.
    fn fill(&mut self, n: usize) -> std::io::Result<()> {
        while self.buf.len() - self.pos < n && !self.eof {
            if self.pos > 0 {
                self.buf.drain(..self.pos);
                self.pos = 0;
            }
            let old = self.buf.len();
            self.buf.resize(old + READ_CHUNK, 0);
            let got = loop {
                match self.src.read(&mut self.buf[old..]) {
                    Ok(k) => break k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.buf.truncate(old);
                        return Err(e);
                    }
                }
            };
            self.buf.truncate(old + got);
            if got == 0 {
                self.eof = true;
            }
        }
        Ok(())
    }

    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        self.fill(1)?;
        Ok(self.buf.get(self.pos).copied())
    }

    /// True (and consumed) if the input continues with `s` (non-empty).
    fn eat(&mut self, s: &[u8]) -> std::io::Result<bool> {
        if s.is_empty() {
            return Ok(false);
        }
        self.fill(s.len())?;
        if self.buf[self.pos..].starts_with(s) {
            self.pos += s.len();
            return Ok(true);
        }
        Ok(false)
    }

    /// True if the input continues with `s` (non-empty), without consuming it.
    fn at(&mut self, s: &[u8]) -> std::io::Result<bool> {
        if s.is_empty() {
            return Ok(false);
        }
        self.fill(s.len())?;
        Ok(self.buf[self.pos..].starts_with(s))
    }

    fn at_end(&mut self) -> std::io::Result<bool> {
        Ok(self.peek()?.is_none())
    }

    fn unescape(c: u8) -> u8 {
        match c {
            b'0' => 0,
            b'b' => 8,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'Z' => 0x1a,
            other => other,
        }
    }

    /// Skips one record without interpreting its fields (IGNORE n LINES): up to and including
    /// the next line terminator.
    pub fn skip_line(&mut self) -> std::io::Result<bool> {
        if self.at_end()? {
            return Ok(false);
        }
        loop {
            if self.eat(&self.fmt.line_term.clone())? {
                return Ok(true);
            }
            match self.peek()? {
                None => return Ok(true),
                Some(c) => {
                    self.pos += 1;
                    if Some(c) == self.fmt.escaped && !self.at_end()? {
                        self.pos += 1;
                    }
                }
            }
        }
    }

    /// The next record, or `None` at the end of the input.
    pub fn next_record(&mut self) -> std::io::Result<Option<Vec<Field>>> {
        let fmt = self.fmt.clone();
        if !fmt.line_start.is_empty() {
            // skip to just after the next line prefix
            loop {
                if self.eat(&fmt.line_start)? {
                    break;
                }
                if self.at_end()? {
                    return Ok(None);
                }
                self.pos += 1;
            }
        } else if self.at_end()? {
            return Ok(None);
        }
        let mut fields = Vec::new();
        loop {
            let (field, more) = self.next_field(&fmt)?;
            fields.push(field);
            if !more {
                return Ok(Some(fields));
            }
        }
    }

    /// One field; `true` when another field of the same record follows.
    fn next_field(&mut self, fmt: &Format) -> std::io::Result<(Field, bool)> {
        let mut out = Vec::new();
        if let Some(q) = fmt.enclosed {
            if self.peek()? == Some(q) {
                self.pos += 1;
                loop {
                    let Some(c) = self.peek()? else {
                        return Ok((Some(out), false));
                    };
                    self.pos += 1;
                    if Some(c) == fmt.escaped {
                        match self.peek()? {
                            Some(n) => {
                                self.pos += 1;
                                out.push(Self::unescape(n));
                            }
                            None => out.push(c),
                        }
                        continue;
                    }
                    if c == q {
                        if self.peek()? == Some(q) {
                            self.pos += 1;
                            out.push(q);
                            continue;
                        }
                        if self.eat(&fmt.field_term)? {
                            return Ok((Some(out), true));
                        }
                        if self.eat(&fmt.line_term)? || self.at_end()? {
                            return Ok((Some(out), false));
                        }
                    }
                    out.push(c);
                }
            }
        }
        // unquoted
        let mut escaped_n = false;
        let mut raw_len = 0usize;
        let (more, end) = loop {
            if self.eat(&fmt.field_term)? {
                break (true, true);
            }
            if self.at(&fmt.line_term)? {
                self.pos += fmt.line_term.len();
                break (false, true);
            }
            let Some(c) = self.peek()? else {
                break (false, true);
            };
            self.pos += 1;
            raw_len += 1;
            if Some(c) == fmt.escaped {
                match self.peek()? {
                    Some(n) => {
                        self.pos += 1;
                        raw_len += 1;
                        if n == b'N' && raw_len == 2 {
                            escaped_n = true;
                        }
                        out.push(Self::unescape(n));
                    }
                    None => out.push(c),
                }
                continue;
            }
            out.push(c);
        };
        debug_assert!(end);
        if escaped_n && raw_len == 2 {
            return Ok((None, more));
        }
        if fmt.enclosed.is_some() && out == b"NULL" {
            return Ok((None, more));
        }
        Ok((Some(out), more))
    }
}

/// The absolute path of a server-side file: relative names resolve against `base` (the
/// secure_file_priv directory, else the data directory).
fn server_path(file: &str, base: &std::path::Path) -> std::path::PathBuf {
    let p = std::path::Path::new(file);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// Lexically normalises `p` (`.` and `..` removed) so a `..` cannot leave a directory.
fn normalise(p: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn secure_file_priv_error() -> Error {
    Error::new(
        codes::ER_OPTION_PREVENTS_STATEMENT,
        "The MySQL server is running with the --secure-file-priv option so it cannot execute this statement",
    )
}

/// Opens a server-side file, enforcing `secure_file_priv` (NULL = no file access; empty = any
/// path; a directory = only files under it, symlinks resolved).
fn open_server_file<E: KvEngine>(s: &Session<E>, file: &str) -> Result<std::fs::File> {
    let priv_dir = s.inst.globals.get("secure_file_priv");
    let datadir = s
        .inst
        .globals
        .get("datadir")
        .map(|v| v.to_string())
        .unwrap_or_default();
    let dir = match &priv_dir {
        Some(Value::Null) | None => return Err(secure_file_priv_error()),
        Some(v) => v.to_string(),
    };
    let base = if dir.is_empty() {
        std::path::PathBuf::from(&datadir)
    } else {
        std::path::PathBuf::from(&dir)
    };
    let path = normalise(&server_path(file, &base));
    let not_found = |e: &std::io::Error| {
        Error::new(
            codes::EE_FILENOTFOUND,
            format!(
                "File '{}' not found (OS errno {} - {})",
                path.display(),
                e.raw_os_error().unwrap_or(0),
                strip_os_error(e)
            ),
        )
    };
    if !dir.is_empty() {
        let allowed = std::fs::canonicalize(&dir).map_err(|_| secure_file_priv_error())?;
        // resolve symlinks, so a link inside the directory cannot point outside it
        let real = std::fs::canonicalize(&path).map_err(|e| {
            if path.starts_with(&allowed) {
                not_found(&e)
            } else {
                secure_file_priv_error()
            }
        })?;
        if !real.starts_with(&allowed) {
            return Err(secure_file_priv_error());
        }
    }
    let f = std::fs::File::open(&path).map_err(|e| not_found(&e))?;
    if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(Error::new(
            codes::ER_TEXTFILE_NOT_READABLE,
            format!(
                "The file '{}' must be in the database directory or be readable by all",
                path.display()
            ),
        ));
    }
    Ok(f)
}

/// The OS error text without Rust's " (os error N)" suffix.
fn strip_os_error(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// How the file's bytes become strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Charset {
    Utf8,
    Latin1,
    Binary,
}

fn charset_of(name: &str) -> Result<Charset> {
    match name {
        "utf8" | "utf8mb4" | "utf8mb3" | "ascii" | "default" => Ok(Charset::Utf8),
        "latin1" => Ok(Charset::Latin1),
        "binary" => Ok(Charset::Binary),
        other => Err(Error::new(
            codes::ER_UNKNOWN_CHARACTER_SET,
            format!("Unknown character set: '{other}'"),
        )),
    }
}

/// The value of a field for a column of type `ty`.
fn field_value(bytes: Vec<u8>, ty: Option<&DataType>, cs: Charset) -> Value {
    let binary_col = matches!(
        ty,
        Some(DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. })
    );
    if binary_col {
        return Value::Bytes(bytes);
    }
    match cs {
        Charset::Latin1 => Value::Str(bytes.iter().map(|&b| b as char).collect()),
        Charset::Utf8 | Charset::Binary => match String::from_utf8(bytes) {
            Ok(s) => Value::Str(s),
            Err(e) => Value::Str(String::from_utf8_lossy(e.as_bytes()).into_owned()),
        },
    }
}

/// Runs LOAD DATA.
pub fn execute<E: KvEngine>(
    s: &mut Session<E>,
    st: &LoadStmt,
    files: &mut dyn Client,
) -> Result<Output> {
    let t = resolve_table(s, &st.table)?;
    if t.options.view.is_some() {
        return Err(Error::not_supported("LOAD DATA into a view"));
    }
    let t = if st.partitions.is_empty() {
        t
    } else {
        std::sync::Arc::new(crate::catalog::partition::select_partitions(
            &t,
            &st.partitions,
        )?)
    };
    if st.format.field_term.is_empty() && st.format.enclosed.is_none() {
        // fixed-size rows (column display widths) are not implemented
        return Err(Error::not_supported(
            "LOAD DATA with empty FIELDS TERMINATED BY and ENCLOSED BY (fixed-size rows)",
        ));
    }
    let charset = match &st.charset {
        Some(c) => charset_of(c)?,
        None => charset_of(
            &s.var("character_set_database")
                .map(|v| v.to_string().to_ascii_lowercase())
                .unwrap_or_else(|| "utf8mb4".into()),
        )
        .unwrap_or(Charset::Utf8),
    };
    let on_dup = match (st.on_dup, st.local) {
        (Some(d), _) => d,
        (None, true) => OnDup::Ignore,
        (None, false) => OnDup::Error,
    };
    let ignore = on_dup == OnDup::Ignore;
    let strict = s.strict() && !ignore;
    // targets: column indexes or variables
    let col_index = |name: &str| {
        t.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::bad_field(name, "field list"))
    };
    #[derive(Clone)]
    enum Slot {
        Col(usize),
        Var(String),
    }
    let slots: Vec<Slot> = if st.targets.is_empty() {
        (0..t.columns.len())
            .filter(|&i| !t.columns[i].is_hidden())
            .map(Slot::Col)
            .collect()
    } else {
        st.targets
            .iter()
            .map(|tg| match tg {
                Target::Column(n) => col_index(n).map(Slot::Col),
                Target::Var(v) => Ok(Slot::Var(v.clone())),
            })
            .collect::<Result<_>>()?
    };
    let set_cols: Vec<(usize, &ast::Expr)> = st
        .set
        .iter()
        .map(|(n, e)| col_index(n).map(|ci| (ci, e)))
        .collect::<Result<_>>()?;
    let has_vars = slots.iter().any(|sl| matches!(sl, Slot::Var(_)));
    let scope = table_scope(&t, None);
    // SET expressions read user variables at bind time: bound once, or per row when the
    // field list assigns variables
    let bind_set = |s: &Session<E>| -> Result<Vec<(usize, Expr)>> {
        set_cols
            .iter()
            .map(|(ci, e)| Ok((*ci, Binder::new(&scope, s, "field list").bind(e)?)))
            .collect()
    };
    let mut bound_set = bind_set(s)?;
    let mut filler = RowFiller::new(s, &t, strict, ignore)?;
    let checks = crate::dml::check::RowChecks::bind(&*s, &t)?;
    // open the source last: a LOCAL request goes out only for a statement that can run
    let mut local_reader;
    let mut server_file;
    let src: &mut dyn Read = if st.local {
        let enabled = !matches!(
            s.inst.globals.get("local_infile"),
            Some(Value::Int(0)) | Some(Value::Null)
        );
        if !enabled {
            return Err(common::client::local_files_disabled());
        }
        local_reader = files.open(&st.file)?;
        &mut *local_reader
    } else {
        server_file = open_server_file(s, &st.file)?;
        &mut server_file
    };
    let mut split = Splitter::new(src, st.format.clone());
    let io_err = |e: std::io::Error| {
        Error::new(
            codes::ER_NET_READ_ERROR,
            format!("Error reading file '{}' (Errcode: {e})", st.file),
        )
    };
    for _ in 0..st.ignore_lines {
        if !split.skip_line().map_err(io_err)? {
            break;
        }
    }
    let strict_div = strict && s.mode("ERROR_FOR_DIVISION_BY_ZERO");
    let ncols = t.columns.len();
    // into an empty table: sorted and written as whole files (see `bulk_load`)
    let mut bulk = if st.partitions.is_empty() {
        crate::dml::bulk_load::BulkLoad::start(s, &t, on_dup)?
    } else {
        None
    };
    let (records, inserted, deleted, skipped) = s.with_ctx(&[], strict_div, |s, ctx| {
        let mut records = 0u64;
        let mut inserted = 0u64;
        let mut deleted = 0u64;
        let mut skipped = 0u64;
        // a warning, or in strict mode the same condition as an error
        let warn = |ctx: &mut crate::ir::expr::EvalCtx<'_>, code, msg: String| -> Result<()> {
            if strict {
                return Err(Error::new(code, msg));
            }
            ctx.warnings.push(Warning::warn(code, msg));
            Ok(())
        };
        while let Some(fields) = split.next_record().map_err(io_err)? {
            records += 1;
            let row_no = records;
            if records.is_multiple_of(1024) && ctx.killed.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(Error::interrupted());
            }
            let mut row: Vec<Option<Value>> = vec![None; ncols];
            let nfields = fields.len();
            let mut fields = fields.into_iter();
            for slot in &slots {
                let f = fields.next();
                match (slot, f) {
                    (Slot::Var(v), Some(f)) => {
                        let val = match f {
                            None => Value::Null,
                            Some(b) => field_value(b, None, charset),
                        };
                        s.user_vars.insert(v.clone(), val);
                    }
                    (Slot::Var(v), None) => {
                        s.user_vars.insert(v.clone(), Value::Null);
                        warn(
                            ctx,
                            codes::ER_WARN_TOO_FEW_RECORDS,
                            format!("Row {row_no} doesn't contain data for all columns"),
                        )?;
                    }
                    (Slot::Col(ci), Some(None)) => {
                        let c = &t.columns[*ci];
                        let ts_now = matches!(c.ty, DataType::Timestamp { .. })
                            && c.default.as_deref().is_some_and(|d| {
                                d.to_ascii_uppercase().starts_with("CURRENT_TIMESTAMP")
                            });
                        row[*ci] = Some(if c.nullable || c.auto_increment || ts_now {
                            Value::Null
                        } else {
                            warn(
                                ctx,
                                codes::ER_WARN_NULL_TO_NOTNULL,
                                format!(
                                    "Column set to default value; NULL supplied to NOT NULL column '{}' at row {row_no}",
                                    c.name
                                ),
                            )?;
                            implicit_default(&c.ty)
                        });
                    }
                    (Slot::Col(ci), Some(Some(b))) => {
                        let v = field_value(b, Some(&t.columns[*ci].ty), charset);
                        row[*ci] = Some(convert_col(&t, *ci, v, strict, row_no, false, ctx)?);
                    }
                    (Slot::Col(_), None) => {
                        // the column keeps its default
                        warn(
                            ctx,
                            codes::ER_WARN_TOO_FEW_RECORDS,
                            format!("Row {row_no} doesn't contain data for all columns"),
                        )?;
                    }
                }
            }
            if nfields > slots.len() {
                warn(
                    ctx,
                    codes::ER_WARN_TOO_MANY_RECORDS,
                    format!(
                        "Row {row_no} was truncated; it contained more data than there were input columns"
                    ),
                )?;
            }
            if !bound_set.is_empty() {
                if has_vars {
                    bound_set = bind_set(&*s)?;
                }
                // SET expressions see the row as loaded so far (unset columns NULL)
                let env: Vec<Value> = row
                    .iter()
                    .map(|v| v.clone().unwrap_or(Value::Null))
                    .collect();
                for (ci, e) in &bound_set {
                    let v = crate::exec::query::eval(s, e, &env, ctx)?;
                    row[*ci] = Some(convert_col(&t, *ci, v, strict, row_no, false, ctx)?);
                }
            }
            let full = filler.fill(s, &t, row, row_no, ctx)?;
            if !checks.passes(&full, ignore, ctx)? {
                skipped += 1;
                continue;
            }
            if let Some(b) = bulk.as_mut() {
                b.add(&*s, &t, &full)?;
                continue;
            }
            let mut attempts = 0;
            loop {
                attempts += 1;
                if attempts > 64 {
                    return Err(Error::internal("REPLACE did not converge"));
                }
                match crate::catalog::partition::insert(s, &t, &full, ctx)? {
                    InsertOutcome::Inserted(h) => {
                        if crate::dml::foreign_key::check_inserted(s, &t, &h, &full, ignore, ctx)? {
                            inserted += 1;
                        } else {
                            skipped += 1;
                        }
                        break;
                    }
                    InsertOutcome::Duplicate {
                        index_no,
                        handle,
                        row: existing,
                    } => match on_dup {
                        OnDup::Replace => {
                            crate::dml::foreign_key::delete(s, &t, &handle, &existing, false, ctx)?;
                            deleted += 1;
                        }
                        OnDup::Ignore => {
                            skipped += 1;
                            let e = dup_error(&t, index_no, &full);
                            ctx.warnings.push(Warning::warn(codes::ER_DUP_ENTRY, e.msg));
                            break;
                        }
                        OnDup::Error => return Err(dup_error(&t, index_no, &full)),
                    },
                }
            }
        }
        if let Some(b) = bulk.take() {
            let c = b.finish(&*s, &t, ctx)?;
            inserted += c.inserted;
            deleted += c.deleted;
            skipped += c.skipped;
        }
        Ok((records, inserted, deleted, skipped))
    })?;
    if let Some(id) = filler.first_id {
        s.last_insert_id = id;
    }
    Ok(Output::Ok {
        affected: inserted + deleted,
        last_insert_id: filler.first_id.unwrap_or(0),
        info: format!(
            "Records: {records}  Deleted: {deleted}  Skipped: {skipped}  Warnings: {}",
            s.warnings.len()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(input: &[u8], fmt: Format) -> Vec<Vec<Field>> {
        let mut sp = Splitter::new(input, fmt);
        let mut out = Vec::new();
        while let Some(r) = sp.next_record().unwrap() {
            out.push(r);
        }
        out
    }

    fn f(s: &str) -> Field {
        Some(s.as_bytes().to_vec())
    }

    fn csv() -> Format {
        Format {
            field_term: b",".to_vec(),
            enclosed: Some(b'"'),
            ..Format::default()
        }
    }

    #[test]
    fn default_format_tabs_newlines_escapes() {
        let r = split(b"1\tab\\tc\t\\N\n2\t\\\\x\\n\tN\n", Format::default());
        assert_eq!(
            r,
            vec![
                vec![f("1"), f("ab\tc"), None],
                vec![f("2"), f("\\x\n"), f("N")]
            ]
        );
    }

    #[test]
    fn last_line_without_terminator_and_empty_lines() {
        let r = split(b"a\n\nb", Format::default());
        assert_eq!(r, vec![vec![f("a")], vec![f("")], vec![f("b")]]);
        assert!(split(b"", Format::default()).is_empty());
    }

    #[test]
    fn enclosed_fields() {
        let r = split(
            b"1,\"a,b\",\"say \"\"hi\"\"\"\n2,\"multi\nline\",NULL\n3,\"NULL\",x\"y\n",
            csv(),
        );
        assert_eq!(
            r,
            vec![
                vec![f("1"), f("a,b"), f("say \"hi\"")],
                vec![f("2"), f("multi\nline"), None],
                vec![f("3"), f("NULL"), f("x\"y")],
            ]
        );
    }

    #[test]
    fn enclosure_not_followed_by_terminator_is_data() {
        let r = split(b"\"a\"b\",c\n", csv());
        assert_eq!(r, vec![vec![f("a\"b"), f("c")]]);
    }

    #[test]
    fn multi_byte_terminators_and_line_prefix() {
        let fmt = Format {
            field_term: b"||".to_vec(),
            line_start: b"xxx".to_vec(),
            line_term: b"\r\n".to_vec(),
            ..Format::default()
        };
        let r = split(b"xxx1||a|b\r\nskip me\r\nyyyxxx2||c\r\n", fmt);
        assert_eq!(r, vec![vec![f("1"), f("a|b")], vec![f("2"), f("c")]]);
    }

    #[test]
    fn escapes_can_be_disabled() {
        let fmt = Format {
            escaped: None,
            ..Format::default()
        };
        let r = split(b"a\\tb\t\\N\n", fmt);
        assert_eq!(r, vec![vec![f("a\\tb"), f("\\N")]]);
    }

    #[test]
    fn escaped_terminator_is_data() {
        let r = split(b"a\\\tb\tc\n", Format::default());
        assert_eq!(r, vec![vec![f("a\tb"), f("c")]]);
    }

    #[test]
    fn skip_line_counts_records() {
        let mut sp = Splitter::new(&b"h1\th2\n1\t2\n"[..], Format::default());
        assert!(sp.skip_line().unwrap());
        assert_eq!(sp.next_record().unwrap(), Some(vec![f("1"), f("2")]));
        assert_eq!(sp.next_record().unwrap(), None);
        assert!(!sp.skip_line().unwrap());
    }

    #[test]
    fn small_reads_across_buffer_boundaries() {
        // a reader returning one byte at a time exercises every refill path
        struct OneByte<'a>(&'a [u8]);
        impl Read for OneByte<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                if self.0.is_empty() || out.is_empty() {
                    return Ok(0);
                }
                out[0] = self.0[0];
                self.0 = &self.0[1..];
                Ok(1)
            }
        }
        let fmt = Format {
            field_term: b"::".to_vec(),
            line_term: b"<>".to_vec(),
            ..csv()
        };
        let mut sp = Splitter::new(OneByte(b"\"a::b\"::c<>d::\\N<>"), fmt);
        assert_eq!(sp.next_record().unwrap(), Some(vec![f("a::b"), f("c")]));
        assert_eq!(sp.next_record().unwrap(), Some(vec![f("d"), None]));
        assert_eq!(sp.next_record().unwrap(), None);
    }

    fn parse_sql(sql: &str) -> LoadStmt {
        let p = crate::parse::parser::parse(sql).unwrap();
        match &p[0].stmt {
            crate::parse::parser::Stmt::LoadData(l) => (**l).clone(),
            other => panic!("not LOAD DATA: {other:?}"),
        }
    }

    #[test]
    fn parses_every_clause() {
        let l = parse_sql(
            "LOAD DATA LOCAL INFILE '/tmp/x.csv' REPLACE INTO TABLE db.t PARTITION (p0, p1) \
             CHARACTER SET latin1 FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '\\\\' \
             LINES STARTING BY '>' TERMINATED BY '\\r\\n' IGNORE 2 LINES (a, @v, c) SET b = @v * 2, d = NOW()",
        );
        assert!(l.local);
        assert_eq!(l.file, "/tmp/x.csv");
        assert_eq!(l.on_dup, Some(OnDup::Replace));
        assert_eq!(l.table.to_string(), "db.t");
        assert_eq!(l.partitions, vec!["p0", "p1"]);
        assert_eq!(l.charset.as_deref(), Some("latin1"));
        assert_eq!(l.format.field_term, b",");
        assert_eq!(l.format.enclosed, Some(b'"'));
        assert_eq!(l.format.escaped, Some(b'\\'));
        assert_eq!(l.format.line_start, b">");
        assert_eq!(l.format.line_term, b"\r\n");
        assert_eq!(l.ignore_lines, 2);
        assert_eq!(
            l.targets,
            vec![
                Target::Column("a".into()),
                Target::Var("v".into()),
                Target::Column("c".into())
            ]
        );
        assert_eq!(l.set.len(), 2);
        assert_eq!(l.set[0].0, "b");
    }

    #[test]
    fn defaults_and_errors() {
        let l = parse_sql("load data infile 'f' into table t");
        assert!(!l.local && l.on_dup.is_none());
        assert_eq!(l.format, Format::default());
        let e = crate::parse::parser::parse(
            "LOAD DATA INFILE 'f' INTO TABLE t FIELDS ENCLOSED BY 'ab'",
        )
        .unwrap_err();
        assert_eq!(e.code.num, 1083);
        let e = crate::parse::parser::parse("LOAD DATA INFILE 'f' INTO t").unwrap_err();
        assert_eq!(e.code.num, 1064);
    }
}
