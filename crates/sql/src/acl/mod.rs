//! **acl**, access control: the account and grant cache ([`accounts`]), the execution of
//! account statements (CREATE USER, GRANT, … in [`stmt`]; their syntax is
//! [`crate::parse::acl`]'s) and the privilege check every statement passes before it runs
//! ([`check`]).
//!
//! May use: every stage before it (runtime … ddl).

pub mod accounts;
pub mod check;
pub mod stmt;
