//! `bench`: the `strata-bench` tool. It drives any MySQL-protocol server (Strata, MariaDB with
//! InnoDB or MyRocks, MySQL) over TCP with many concurrent client connections (one OS thread
//! and one synchronous [`mysql`] connection each), and writes markdown reports with PNG charts.
//!
//! `run` drives one given server; `compare` starts private MariaDB/InnoDB, MariaDB/MyRocks and
//! Strata instances with the same cache budget and durability, runs every workload on each on
//! fresh data, and reports every figure with its ratio to InnoDB.
//!
//! Modules:
//! * [`workloads`] — the workloads (iibench, uuid, cache, droptable, manytables, mvcc, connections,
//!   sysbench, tpcc), each split into [`workloads::Unit`]s;
//! * [`servers`] — installing and starting the private instances of `compare`;
//! * [`client`] — connections and many-client helpers;
//! * [`report`] and [`chart`] — markdown tables with ratio columns, PNG charts, the index;
//! * [`sysbench`] — running sysbench and parsing its output;
//! * [`cpuset`] — `--server-cpus` / `--client-cpus`: CPU lists and sched_setaffinity;
//! * [`gen`], [`stats`], [`machine`] — generators, percentiles, `/proc` facts.
//!
//! This crate must not depend on RocksDB or on any other Strata crate: it measures servers
//! from the outside only.

pub mod chart;
pub mod client;
pub mod cpuset;
pub mod gen;
pub mod machine;
pub mod report;
pub mod servers;
pub mod stats;
pub mod sysbench;
pub mod workloads;
