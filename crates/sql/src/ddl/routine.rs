//! The declared types of stored routines' parameters, local variables and RETURNS, written
//! as column types are (`VARCHAR(10) CHARSET latin1`), resolved to a [`DataType`].

use common::{Collation, DataType, Error, Result};

/// The [`DataType`] of a declared type text (`VARCHAR(10) CHARSET latin1`).
///
/// # Errors
/// 1064 for a type that does not parse, and the type errors of a column definition.
pub fn resolve_type(text: &str, name: &str) -> Result<DataType> {
    let upper = text.to_ascii_uppercase();
    let cut = [" CHARACTER SET ", " CHARSET ", " COLLATE "]
        .iter()
        .filter_map(|k| upper.find(k))
        .min()
        .unwrap_or(text.len());
    let mut coll = Collation::default();
    let attrs: Vec<&str> = text[cut..].split_whitespace().collect();
    for w in attrs.windows(2) {
        let (k, v) = (
            w[0].to_ascii_uppercase(),
            w[1].trim_matches(['`', '\'', '"']),
        );
        if k == "COLLATE" {
            coll = Collation::from_name(v).unwrap_or(coll);
        } else if k == "CHARSET" || k == "SET" {
            coll = Collation::default_for_charset(v).unwrap_or(coll);
        }
    }
    let dialect = crate::parse::dialect::StrataDialect::default();
    let dt = sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(&text[..cut])
        .and_then(|mut p| p.parse_data_type())
        .map_err(|_| Error::parse(text))?;
    crate::ddl::table::map_type(&dt, coll, name)
}
