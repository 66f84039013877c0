//! Building one transaction's events: [`TransactionBuilder`] collects BEGIN, TABLE_MAPs and
//! row events (split like MySQL's `binlog_row_event_max_size`) and the XID, or a single DDL
//! QUERY; [`PendingTransaction::seal`] prepends the GTID event once the GTID and logical clock
//! are assigned at commit, giving a [`Transaction`] ready for [`crate::BinlogFiles::append`].

use std::collections::HashMap;

use crate::error::{BinlogError, Result};
use crate::event::header::{frame_event, CHECKSUM_LEN, HEADER_LEN};
use crate::event::{
    types, Event, EventMeta, GtidEvent, QueryEvent, RowsEvent, RowsKind, StatusVars, TableMapEvent,
    FLAG_MAY_HAVE_SBR, STMT_END_F,
};
use crate::gtid::Uuid;
use crate::value::RowValue;

/// MySQL's default `binlog_row_event_max_size`.
pub const DEFAULT_ROWS_EVENT_MAX_SIZE: usize = 8192;

impl QueryEvent {
    /// The `BEGIN` that opens a row transaction.
    pub fn begin(thread_id: u32, status: StatusVars) -> Self {
        QueryEvent {
            thread_id,
            status,
            query: b"BEGIN".to_vec(),
            ..QueryEvent::default()
        }
    }

    /// A DDL statement run with default database `schema`. Set `status.ddl_xid` (MySQL logs
    /// atomic DDL with its XID) and, for CREATE/ALTER TABLE, `sql_require_primary_key` and
    /// `default_table_encryption`.
    pub fn ddl(thread_id: u32, schema: &str, sql: &str, status: StatusVars) -> Self {
        QueryEvent {
            thread_id,
            status,
            schema: schema.to_string(),
            query: sql.as_bytes().to_vec(),
            ..QueryEvent::default()
        }
    }
}

/// Collects the events of one row transaction.
///
/// Call [`TransactionBuilder::table_map`] for each table of a statement, then add rows, then
/// [`TransactionBuilder::end_statement`] (which sets `STMT_END_F` and forgets the table maps,
/// as MySQL does); [`TransactionBuilder::commit`] ends the last statement and adds the XID.
///
/// # Examples
/// ```
/// use binlog::{ColumnDef, EventMeta, QueryEvent, RowValue, StatusVars, TableMapEvent, TransactionBuilder};
/// let table = TableMapEvent::new(70, "db", "t", vec![ColumnDef::int("id", 4).unwrap()]);
/// let meta = EventMeta { timestamp: 1_700_000_000, server_id: 1, ..EventMeta::default() };
/// let mut b = TransactionBuilder::new(meta, QueryEvent::begin(1, StatusVars::mysql_defaults())).unwrap();
/// b.table_map(&table).unwrap();
/// b.write_row(70, &[RowValue::Int(1)]).unwrap();
/// let pending = b.commit(42).unwrap();
/// assert!(!pending.is_ddl());
/// ```
#[derive(Debug)]
pub struct TransactionBuilder {
    meta: EventMeta,
    events: Vec<u8>,
    tables: HashMap<u64, TableMapEvent>,
    pending: Option<RowsEvent>,
    max_event_size: usize,
    rows_flags: u16,
}

impl TransactionBuilder {
    /// Starts a transaction with its `BEGIN` QUERY event; every event gets `meta`'s timestamp,
    /// server id and flags.
    ///
    /// # Errors
    /// As [`Event::encode`].
    pub fn new(meta: EventMeta, begin: QueryEvent) -> Result<Self> {
        let mut b = TransactionBuilder {
            meta,
            events: Vec::new(),
            tables: HashMap::new(),
            pending: None,
            max_event_size: DEFAULT_ROWS_EVENT_MAX_SIZE,
            rows_flags: 0,
        };
        b.push(&Event::Query(begin))?;
        Ok(b)
    }

    /// Sets the row-data size at which a rows event is closed (`binlog_row_event_max_size`);
    /// a single larger row still gets an event of its own.
    pub fn max_rows_event_size(mut self, bytes: usize) -> Self {
        self.max_event_size = bytes.max(1);
        self
    }

    /// Flags added to every rows event (`NO_FOREIGN_KEY_CHECKS_F`, `RELAXED_UNIQUE_CHECKS_F`).
    pub fn rows_flags(mut self, flags: u16) -> Self {
        self.rows_flags = flags & !STMT_END_F;
        self
    }

    /// A DDL transaction: just the QUERY event.
    ///
    /// # Errors
    /// As [`Event::encode`].
    pub fn ddl(meta: EventMeta, query: QueryEvent) -> Result<PendingTransaction> {
        let events = Event::Query(query).encode(&EventMeta { log_pos: 0, ..meta })?;
        Ok(PendingTransaction {
            meta,
            events,
            ddl: true,
        })
    }

    fn push(&mut self, event: &Event) -> Result<()> {
        push_event(&mut self.events, &self.meta, event)
    }

    fn flush(&mut self, stmt_end: bool) -> Result<()> {
        flush_rows(&mut self.events, &self.meta, &mut self.pending, stmt_end)
    }

    /// Writes the TABLE_MAP of a table the current statement changes; its `table_id` is what
    /// the row methods take.
    ///
    /// # Errors
    /// As [`Event::encode`].
    pub fn table_map(&mut self, table: &TableMapEvent) -> Result<()> {
        self.push(&Event::TableMap(table.clone()))?;
        self.tables.insert(table.table_id, table.clone());
        Ok(())
    }

    fn add_row(
        &mut self,
        kind: RowsKind,
        table_id: u64,
        before: Option<&[RowValue]>,
        after: Option<&[RowValue]>,
    ) -> Result<()> {
        let table = self.tables.get(&table_id).ok_or_else(|| {
            BinlogError::invalid(format!(
                "table id {table_id} has no TABLE_MAP in this statement"
            ))
        })?;
        let columns = &table.columns;
        let (events, meta, pending) = (&mut self.events, &self.meta, &mut self.pending);
        if pending
            .as_ref()
            .is_some_and(|p| p.kind != kind || p.table_id != table_id)
        {
            flush_rows(events, meta, pending, false)?;
        }
        let flags = self.rows_flags;
        let new_event = || RowsEvent {
            flags,
            ..RowsEvent::new(kind, table_id, columns.len())
        };
        let ev = pending.get_or_insert_with(new_event);
        let before_len = ev.rows_data.len();
        ev.push_row(columns, before, after)?;
        if before_len > 0 && ev.body_len() > self.max_event_size {
            // Move the new row into an event of its own.
            let row = ev.rows_data.split_off(before_len);
            flush_rows(events, meta, pending, false)?;
            *pending = Some(RowsEvent {
                rows_data: row,
                ..new_event()
            });
        }
        Ok(())
    }

    /// Adds an inserted row (one value per column).
    ///
    /// # Errors
    /// [`BinlogError::InvalidValue`] when the table is not mapped or a value does not fit.
    pub fn write_row(&mut self, table_id: u64, after: &[RowValue]) -> Result<()> {
        self.add_row(RowsKind::Write, table_id, None, Some(after))
    }

    /// Adds an updated row: its full before and after images.
    ///
    /// # Errors
    /// As [`TransactionBuilder::write_row`].
    pub fn update_row(
        &mut self,
        table_id: u64,
        before: &[RowValue],
        after: &[RowValue],
    ) -> Result<()> {
        self.add_row(RowsKind::Update, table_id, Some(before), Some(after))
    }

    /// Adds a deleted row: its full before image.
    ///
    /// # Errors
    /// As [`TransactionBuilder::write_row`].
    pub fn delete_row(&mut self, table_id: u64, before: &[RowValue]) -> Result<()> {
        self.add_row(RowsKind::Delete, table_id, Some(before), None)
    }

    /// Ends the current statement: the last rows event gets `STMT_END_F` and the table maps are
    /// forgotten (the next statement maps its tables again).
    ///
    /// # Errors
    /// As [`Event::encode`].
    pub fn end_statement(&mut self) -> Result<()> {
        self.flush(true)?;
        self.tables.clear();
        Ok(())
    }

    /// Ends the last statement and adds the XID event.
    ///
    /// # Errors
    /// As [`Event::encode`].
    pub fn commit(mut self, xid: u64) -> Result<PendingTransaction> {
        self.end_statement()?;
        self.push(&Event::Xid(xid))?;
        Ok(PendingTransaction {
            meta: self.meta,
            events: self.events,
            ddl: false,
        })
    }
}

fn push_event(events: &mut Vec<u8>, meta: &EventMeta, event: &Event) -> Result<()> {
    let bytes = event.encode(&EventMeta {
        log_pos: 0,
        ..*meta
    })?;
    events.extend_from_slice(&bytes);
    Ok(())
}

fn flush_rows(
    events: &mut Vec<u8>,
    meta: &EventMeta,
    pending: &mut Option<RowsEvent>,
    stmt_end: bool,
) -> Result<()> {
    if let Some(mut ev) = pending.take() {
        if stmt_end {
            ev.flags |= STMT_END_F;
        }
        push_event(events, meta, &Event::Rows(ev))?;
    }
    Ok(())
}

/// A transaction's events without the leading GTID event.
#[derive(Clone, Debug)]
pub struct PendingTransaction {
    meta: EventMeta,
    events: Vec<u8>,
    ddl: bool,
}

impl PendingTransaction {
    /// Whether this is a DDL (QUERY) transaction.
    pub fn is_ddl(&self) -> bool {
        self.ddl
    }

    /// The encoded events after the GTID event.
    pub fn events(&self) -> &[u8] {
        &self.events
    }

    /// Prepends the GTID event: `gtid` as assigned at commit (uuid, gno, logical clock,
    /// timestamps, server versions). This fills in `transaction_length` (the whole transaction,
    /// the GTID event included) and sets `flags` to [`FLAG_MAY_HAVE_SBR`] for DDL and 0 for row
    /// transactions. A `gno` of 0 writes an ANONYMOUS_GTID event (`gtid_mode=OFF`).
    ///
    /// # Errors
    /// As [`Event::encode`].
    pub fn seal(self, mut gtid: GtidEvent) -> Result<Transaction> {
        gtid.flags = if self.ddl { FLAG_MAY_HAVE_SBR } else { 0 };
        let rest = self.events.len() + HEADER_LEN + CHECKSUM_LEN;
        gtid.transaction_length = 0;
        loop {
            let total = (rest + gtid.body_len()) as u64;
            if total == gtid.transaction_length {
                break;
            }
            gtid.transaction_length = total;
        }
        let anonymous = gtid.gno == 0;
        let mut body = Vec::with_capacity(gtid.body_len());
        gtid.encode_body(&mut body);
        let code = if anonymous {
            types::ANONYMOUS_GTID
        } else {
            types::GTID
        };
        let mut bytes = frame_event(
            code,
            &EventMeta {
                log_pos: 0,
                ..self.meta
            },
            &body,
            true,
        );
        bytes.extend_from_slice(&self.events);
        Ok(Transaction {
            bytes,
            gtid: (!anonymous).then_some((gtid.uuid, gtid.gno)),
            ddl: self.ddl,
        })
    }
}

/// A complete encoded transaction (GTID event first), ready to append.
#[derive(Clone, Debug)]
pub struct Transaction {
    /// The events back to back; `log_pos` is stamped on append.
    pub bytes: Vec<u8>,
    /// The GTID, or `None` for an anonymous transaction.
    pub gtid: Option<(Uuid, u64)>,
    /// Whether this is a DDL (QUERY) transaction.
    pub ddl: bool,
}

impl Transaction {
    /// Total bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether there are no bytes (never true for a sealed transaction).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::ColumnDef;
    use crate::event::{decode_event, EventHeader};

    fn meta() -> EventMeta {
        EventMeta {
            timestamp: 1_700_000_000,
            server_id: 1,
            ..EventMeta::default()
        }
    }

    fn gtid(gno: u64) -> GtidEvent {
        GtidEvent {
            uuid: Uuid::parse("3e11fa47-71ca-11e1-9e33-c80aa9429562").unwrap(),
            gno,
            last_committed: 0,
            sequence_number: 1,
            immediate_commit_timestamp: 1_700_000_000_000_000,
            original_commit_timestamp: 1_700_000_000_000_000,
            immediate_server_version: 80403,
            original_server_version: 80403,
            ..GtidEvent::default()
        }
    }

    fn events(bytes: &[u8]) -> Vec<Event> {
        let mut out = Vec::new();
        let mut off = 0;
        while off < bytes.len() {
            let size = EventHeader::decode(&bytes[off..]).unwrap().event_size as usize;
            out.push(decode_event(&bytes[off..off + size], true).unwrap().event);
            off += size;
        }
        out
    }

    fn table() -> TableMapEvent {
        TableMapEvent::new(
            70,
            "db",
            "t",
            vec![
                ColumnDef::int("id", 4).unwrap(),
                ColumnDef::blob("b", 2, 63),
            ],
        )
    }

    #[test]
    fn row_transaction_shape_and_length() {
        let mut b =
            TransactionBuilder::new(meta(), QueryEvent::begin(9, StatusVars::mysql_defaults()))
                .unwrap();
        b.table_map(&table()).unwrap();
        b.write_row(70, &[RowValue::Int(1), RowValue::Bytes(b"x".to_vec())])
            .unwrap();
        b.update_row(
            70,
            &[RowValue::Int(1), RowValue::Null],
            &[RowValue::Int(2), RowValue::Null],
        )
        .unwrap();
        b.end_statement().unwrap();
        assert!(
            b.write_row(70, &[RowValue::Int(3), RowValue::Null])
                .is_err(),
            "unmapped after statement end"
        );
        b.table_map(&table()).unwrap();
        b.delete_row(70, &[RowValue::Int(2), RowValue::Null])
            .unwrap();
        let trx = b.commit(77).unwrap().seal(gtid(5)).unwrap();
        assert_eq!(trx.gtid.map(|g| g.1), Some(5));
        let evs = events(&trx.bytes);
        let names: Vec<&str> = evs.iter().map(|e| e.type_name()).collect();
        assert_eq!(
            names,
            [
                "Gtid",
                "Query",
                "Table_map",
                "Write_rows",
                "Update_rows",
                "Table_map",
                "Delete_rows",
                "Xid"
            ]
        );
        let Event::Gtid(g) = &evs[0] else { panic!() };
        assert_eq!(g.transaction_length, trx.len() as u64);
        assert_eq!(g.flags, 0);
        let flags: Vec<u16> = evs
            .iter()
            .filter_map(|e| {
                if let Event::Rows(r) = e {
                    Some(r.flags)
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(flags, [0, STMT_END_F, STMT_END_F]);
        assert_eq!(evs[7], Event::Xid(77));
    }

    #[test]
    fn rows_are_split_by_event_size() {
        let mut b =
            TransactionBuilder::new(meta(), QueryEvent::begin(1, StatusVars::mysql_defaults()))
                .unwrap()
                .max_rows_event_size(1000);
        b.table_map(&table()).unwrap();
        for i in 0..30 {
            b.write_row(70, &[RowValue::Int(i), RowValue::Bytes(vec![b'a'; 100])])
                .unwrap();
        }
        // A row bigger than the limit gets its own event.
        b.write_row(70, &[RowValue::Int(99), RowValue::Bytes(vec![b'b'; 5000])])
            .unwrap();
        let evs = events(b.commit(1).unwrap().events());
        let rows: Vec<&RowsEvent> = evs
            .iter()
            .filter_map(|e| {
                if let Event::Rows(r) = e {
                    Some(r)
                } else {
                    None
                }
            })
            .collect();
        assert!(rows.len() >= 4);
        let cols = table().columns;
        let mut total = 0;
        for (i, r) in rows.iter().enumerate() {
            let n = r.rows(&cols).unwrap().len();
            assert!(n >= 1);
            if n > 1 {
                assert!(r.body_len() <= 1000);
            }
            assert_eq!(r.flags & STMT_END_F != 0, i == rows.len() - 1);
            total += n;
        }
        assert_eq!(total, 31);
    }

    #[test]
    fn ddl_transaction_and_transaction_length_fixpoint() {
        let status = StatusVars {
            ddl_xid: Some(3),
            ..StatusVars::mysql_defaults()
        };
        // Query sizes around the 251-byte packed-integer boundary of transaction_length.
        for n in 30..100 {
            let sql = format!("CREATE TABLE t (a INT) COMMENT '{}'", "x".repeat(n));
            let q = QueryEvent::ddl(1, "db", &sql, status.clone());
            let trx = TransactionBuilder::ddl(meta(), q)
                .unwrap()
                .seal(gtid(1))
                .unwrap();
            let evs = events(&trx.bytes);
            let Event::Gtid(g) = &evs[0] else { panic!() };
            assert_eq!(g.transaction_length, trx.len() as u64, "{n}");
            assert_eq!(g.flags, FLAG_MAY_HAVE_SBR);
            assert!(trx.ddl);
        }
        let anon =
            TransactionBuilder::ddl(meta(), QueryEvent::ddl(1, "", "DROP DATABASE d", status))
                .unwrap()
                .seal(gtid(0))
                .unwrap();
        assert!(anon.gtid.is_none());
        assert!(matches!(events(&anon.bytes)[0], Event::AnonymousGtid(_)));
    }
}
