//! The built-in schemas: information_schema, mysql, performance_schema and sys.

/// Databases that exist without being created.
pub const SYSTEM_DBS: &[&str] = &["information_schema", "mysql", "performance_schema", "sys"];

/// True for a built-in schema name (case-insensitive, as MySQL treats information_schema).
pub fn is_system_db(db: &str) -> bool {
    SYSTEM_DBS.iter().any(|d| d.eq_ignore_ascii_case(db))
}
