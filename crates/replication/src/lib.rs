//! Replication for Strata: the binary log a running server keeps ([`Binlog`]), built on the
//! `binlog` crate's MySQL 8.4 event format and the storage's commit hook
//! ([`storage::txn::changes::CommitLog`]).
//!
//! Owns: turning committed row changes and DDL statements into GTID transactions in binlog
//! files, atomically with the data ([`service`]); the conversion of Strata's table definitions
//! and values to binlog column types and row images ([`convert`]); the server's persistent
//! `server_uuid` ([`server_uuid`]); the source side of replication: streaming the files to a
//! replica or a binlog reader ([`dump`]), the registered replicas ([`replicas`]); the replica
//! side: CHANGE REPLICATION SOURCE's configuration, the receiver and applier threads and SHOW
//! REPLICA STATUS ([`replica`]). Depends on
//! `common`, `storage` and `binlog`, never on the SQL layer or the protocol (they use this
//! crate).

pub mod convert;
pub mod dump;
pub mod replica;
pub mod replicas;
pub mod server_uuid;
pub mod service;

pub use binlog::{GtidSet, Uuid};
pub use dump::{BinlogDump, DumpRequest, DumpStep};
pub use replicas::{ReplicaInfo, Replicas};
pub use service::{Binlog, BinlogOptions};
