//! Declared column types ([`DataType`]), collations, and result-set column metadata.

use serde::{Deserialize, Serialize};

/// A collation. Text is held as UTF-8 internally; the collation decides comparison and
/// key weights. `Binary` is the `binary` pseudo-collation of BINARY/VARBINARY/BLOB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Collation {
    /// utf8mb4_0900_ai_ci: accent- and case-insensitive, NO PAD (MySQL 8's default).
    #[default]
    Utf8mb4_0900AiCi,
    /// utf8mb4_general_ci / utf8_general_ci / utf8_unicode_ci: case-insensitive, PAD SPACE.
    Utf8mb4GeneralCi,
    /// utf8mb4_bin: code-point order, PAD SPACE.
    Utf8mb4Bin,
    /// latin1_swedish_ci: case-insensitive, PAD SPACE.
    Latin1SwedishCi,
    /// latin1_bin.
    Latin1Bin,
    /// binary: byte order, no padding.
    Binary,
    /// Any other collation, by its MySQL id: the language-specific UCA collations and the
    /// latin1 collations listed in `collation::registry` (which also implements them).
    Other(u16),
}

impl Collation {
    /// The MySQL collation id sent in column definitions.
    pub fn id(self) -> u16 {
        match self {
            Collation::Utf8mb4_0900AiCi => 255,
            Collation::Utf8mb4GeneralCi => 45,
            Collation::Utf8mb4Bin => 46,
            Collation::Latin1SwedishCi => 8,
            Collation::Latin1Bin => 47,
            Collation::Binary => 63,
            Collation::Other(id) => id,
        }
    }

    /// The collation's MySQL name.
    pub fn name(self) -> &'static str {
        match self {
            Collation::Utf8mb4_0900AiCi => "utf8mb4_0900_ai_ci",
            Collation::Utf8mb4GeneralCi => "utf8mb4_general_ci",
            Collation::Utf8mb4Bin => "utf8mb4_bin",
            Collation::Latin1SwedishCi => "latin1_swedish_ci",
            Collation::Latin1Bin => "latin1_bin",
            Collation::Binary => "binary",
            Collation::Other(id) => crate::collation::registry::by_id(id).name,
        }
    }

    /// The character set name.
    pub fn charset(self) -> &'static str {
        match self {
            Collation::Utf8mb4_0900AiCi | Collation::Utf8mb4GeneralCi | Collation::Utf8mb4Bin => {
                "utf8mb4"
            }
            Collation::Latin1SwedishCi | Collation::Latin1Bin => "latin1",
            Collation::Binary => "binary",
            Collation::Other(id) => crate::collation::registry::by_id(id).charset,
        }
    }

    /// Maximum bytes per character (used for column lengths in metadata).
    pub fn max_len(self) -> u32 {
        match self.charset() {
            "utf8mb4" => 4,
            _ => 1,
        }
    }

    /// Looks a collation up by name (also accepts utf8/utf8mb3 aliases).
    pub fn from_name(name: &str) -> Option<Collation> {
        // (every statement looks up its connection's collation: no copy for a lower-case name)
        let n: std::borrow::Cow<'_, str> = if name.bytes().any(|b| b.is_ascii_uppercase()) {
            name.to_ascii_lowercase().into()
        } else {
            name.into()
        };
        Some(match n.as_ref() {
            "utf8mb4_0900_ai_ci" => Collation::Utf8mb4_0900AiCi,
            "utf8mb4_general_ci" | "utf8_general_ci" | "utf8mb3_general_ci" | "ucs2_general_ci" => {
                Collation::Utf8mb4GeneralCi
            }
            "utf8mb4_bin" | "utf8_bin" | "utf8mb3_bin" | "utf8mb4_0900_bin" | "ascii_bin" => {
                Collation::Utf8mb4Bin
            }
            "latin1_swedish_ci" | "ascii_general_ci" => Collation::Latin1SwedishCi,
            "latin1_bin" => Collation::Latin1Bin,
            "binary" => Collation::Binary,
            // utf8mb3 is stored as utf8mb4 (as for utf8mb3_general_ci above)
            "utf8_unicode_ci" | "utf8mb3_unicode_ci" => Collation::Other(224),
            other => {
                return crate::collation::registry::by_name(other).map(|i| Collation::Other(i.id))
            }
        })
    }

    /// The default collation of a character set name.
    pub fn default_for_charset(cs: &str) -> Option<Collation> {
        Some(match cs.to_ascii_lowercase().as_str() {
            "utf8mb4" => Collation::Utf8mb4_0900AiCi,
            "utf8" | "utf8mb3" | "ucs2" | "utf16" | "utf32" => Collation::Utf8mb4GeneralCi,
            "latin1" | "ascii" => Collation::Latin1SwedishCi,
            "binary" => Collation::Binary,
            _ => return None,
        })
    }

    /// True if comparisons ignore trailing spaces (PAD SPACE collations).
    pub fn pad_space(self) -> bool {
        match self {
            Collation::Utf8mb4_0900AiCi | Collation::Binary => false,
            Collation::Other(id) => crate::collation::registry::by_id(id).pad_space,
            _ => true,
        }
    }

    /// The `Sortlen` column of SHOW COLLATION.
    pub fn sortlen(self) -> u32 {
        match self {
            Collation::Other(id) => crate::collation::registry::by_id(id).sortlen,
            _ => 1,
        }
    }

    /// True for case-insensitive collations.
    pub fn is_ci(self) -> bool {
        match self {
            Collation::Utf8mb4_0900AiCi
            | Collation::Utf8mb4GeneralCi
            | Collation::Latin1SwedishCi => true,
            Collation::Other(id) => crate::collation::registry::by_id(id).ci,
            _ => false,
        }
    }
}

/// Size class of TEXT/BLOB types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LobSize {
    /// TINYTEXT/TINYBLOB (255 bytes)
    Tiny,
    /// TEXT/BLOB (64 KiB)
    Normal,
    /// MEDIUMTEXT/MEDIUMBLOB (16 MiB)
    Medium,
    /// LONGTEXT/LONGBLOB (4 GiB)
    Long,
}

impl LobSize {
    /// Maximum length in bytes.
    pub fn max_bytes(self) -> u64 {
        match self {
            LobSize::Tiny => 255,
            LobSize::Normal => 65_535,
            LobSize::Medium => 16_777_215,
            LobSize::Long => 4_294_967_295,
        }
    }
}

/// A declared SQL column type with its MySQL attributes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DataType {
    /// TINYINT/SMALLINT/MEDIUMINT/INT/BIGINT: `bytes` is 1, 2, 3, 4 or 8.
    Int {
        /// Storage width in bytes.
        bytes: u8,
        /// UNSIGNED attribute.
        unsigned: bool,
        /// Display width, e.g. the 11 of `int(11)`, if given.
        width: Option<u8>,
        /// ZEROFILL attribute.
        zerofill: bool,
    },
    /// BOOL / BOOLEAN is TINYINT(1).
    /// DECIMAL(precision, scale).
    Decimal {
        /// Total digits (1..=65).
        precision: u8,
        /// Digits after the point.
        scale: u8,
        /// UNSIGNED attribute.
        unsigned: bool,
    },
    /// FLOAT (4 bytes), optionally FLOAT(M,D).
    Float {
        /// (M,D) if given.
        md: Option<(u8, u8)>,
        /// UNSIGNED attribute.
        unsigned: bool,
    },
    /// DOUBLE / REAL, optionally DOUBLE(M,D).
    Double {
        /// (M,D) if given.
        md: Option<(u8, u8)>,
        /// UNSIGNED attribute.
        unsigned: bool,
    },
    /// CHAR(len).
    Char {
        /// Length in characters.
        len: u32,
        /// Collation.
        collation: Collation,
    },
    /// VARCHAR(len).
    VarChar {
        /// Maximum length in characters.
        len: u32,
        /// Collation.
        collation: Collation,
    },
    /// TINYTEXT/TEXT/MEDIUMTEXT/LONGTEXT.
    Text {
        /// Size class.
        size: LobSize,
        /// Collation.
        collation: Collation,
    },
    /// BINARY(len).
    Binary {
        /// Length in bytes.
        len: u32,
    },
    /// VARBINARY(len).
    VarBinary {
        /// Maximum length in bytes.
        len: u32,
    },
    /// TINYBLOB/BLOB/MEDIUMBLOB/LONGBLOB.
    Blob {
        /// Size class.
        size: LobSize,
    },
    /// DATE.
    Date,
    /// TIME(fsp).
    Time {
        /// Fractional seconds precision 0..=6.
        fsp: u8,
    },
    /// DATETIME(fsp).
    DateTime {
        /// Fractional seconds precision 0..=6.
        fsp: u8,
    },
    /// TIMESTAMP(fsp).
    Timestamp {
        /// Fractional seconds precision 0..=6.
        fsp: u8,
    },
    /// YEAR.
    Year,
    /// ENUM('a','b',...).
    Enum {
        /// The members, in declaration order (index 1 is the first).
        values: Vec<String>,
        /// Collation.
        collation: Collation,
    },
    /// SET('a','b',...).
    Set {
        /// The members (bit 0 is the first).
        values: Vec<String>,
        /// Collation.
        collation: Collation,
    },
    /// BIT(len).
    Bit {
        /// Number of bits 1..=64.
        len: u8,
    },
    /// JSON.
    Json,
}

impl DataType {
    /// True for integer types.
    pub fn is_int(&self) -> bool {
        matches!(self, DataType::Int { .. })
    }

    /// True for character (text) types.
    pub fn is_text(&self) -> bool {
        matches!(
            self,
            DataType::Char { .. } | DataType::VarChar { .. } | DataType::Text { .. }
        )
    }

    /// True for binary string types.
    pub fn is_binary(&self) -> bool {
        matches!(
            self,
            DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. }
        )
    }

    /// True for TEXT/BLOB types (which need a prefix length to be indexed and cannot have a literal default in MySQL < 8.0.13).
    pub fn is_lob(&self) -> bool {
        matches!(
            self,
            DataType::Text { .. } | DataType::Blob { .. } | DataType::Json
        )
    }

    /// The collation of a string type; `Binary` for everything else.
    pub fn collation(&self) -> Collation {
        match self {
            DataType::Char { collation, .. }
            | DataType::VarChar { collation, .. }
            | DataType::Text { collation, .. }
            | DataType::Enum { collation, .. }
            | DataType::Set { collation, .. } => *collation,
            _ => Collation::Binary,
        }
    }

    /// True if the integer or numeric type is UNSIGNED.
    pub fn unsigned(&self) -> bool {
        match self {
            DataType::Int { unsigned, .. }
            | DataType::Decimal { unsigned, .. }
            | DataType::Float { unsigned, .. }
            | DataType::Double { unsigned, .. } => *unsigned,
            DataType::Year | DataType::Bit { .. } => true,
            _ => false,
        }
    }

    /// The type as `SHOW CREATE TABLE` prints it (without charset/collation clauses).
    pub fn sql_name(&self) -> String {
        fn uns(u: bool) -> &'static str {
            if u {
                " unsigned"
            } else {
                ""
            }
        }
        fn quote_list(values: &[String]) -> String {
            values
                .iter()
                .map(|v| format!("'{}'", v.replace('\'', "''")))
                .collect::<Vec<_>>()
                .join(",")
        }
        match self {
            DataType::Int {
                bytes,
                unsigned,
                width,
                zerofill,
            } => {
                let base = match bytes {
                    1 => "tinyint",
                    2 => "smallint",
                    3 => "mediumint",
                    4 => "int",
                    _ => "bigint",
                };
                let w = width.map(|w| format!("({w})")).unwrap_or_default();
                format!(
                    "{base}{w}{}{}",
                    uns(*unsigned),
                    if *zerofill { " zerofill" } else { "" }
                )
            }
            DataType::Decimal {
                precision,
                scale,
                unsigned,
            } => {
                format!("decimal({precision},{scale}){}", uns(*unsigned))
            }
            DataType::Float { md, unsigned } => match md {
                Some((m, d)) => format!("float({m},{d}){}", uns(*unsigned)),
                None => format!("float{}", uns(*unsigned)),
            },
            DataType::Double { md, unsigned } => match md {
                Some((m, d)) => format!("double({m},{d}){}", uns(*unsigned)),
                None => format!("double{}", uns(*unsigned)),
            },
            DataType::Char { len, .. } => format!("char({len})"),
            DataType::VarChar { len, .. } => format!("varchar({len})"),
            DataType::Text { size, .. } => match size {
                LobSize::Tiny => "tinytext",
                LobSize::Normal => "text",
                LobSize::Medium => "mediumtext",
                LobSize::Long => "longtext",
            }
            .to_string(),
            DataType::Binary { len } => format!("binary({len})"),
            DataType::VarBinary { len } => format!("varbinary({len})"),
            DataType::Blob { size } => match size {
                LobSize::Tiny => "tinyblob",
                LobSize::Normal => "blob",
                LobSize::Medium => "mediumblob",
                LobSize::Long => "longblob",
            }
            .to_string(),
            DataType::Date => "date".into(),
            DataType::Time { fsp } => fsp_name("time", *fsp),
            DataType::DateTime { fsp } => fsp_name("datetime", *fsp),
            DataType::Timestamp { fsp } => fsp_name("timestamp", *fsp),
            DataType::Year => "year".into(),
            DataType::Enum { values, .. } => format!("enum({})", quote_list(values)),
            DataType::Set { values, .. } => format!("set({})", quote_list(values)),
            DataType::Bit { len } => format!("bit({len})"),
            DataType::Json => "json".into(),
        }
    }
}

fn fsp_name(base: &str, fsp: u8) -> String {
    if fsp == 0 {
        base.to_string()
    } else {
        format!("{base}({fsp})")
    }
}

/// MySQL protocol column type codes (`enum_field_types`).
#[allow(missing_docs)]
pub mod field_type {
    pub const DECIMAL: u8 = 0x00;
    pub const TINY: u8 = 0x01;
    pub const SHORT: u8 = 0x02;
    pub const LONG: u8 = 0x03;
    pub const FLOAT: u8 = 0x04;
    pub const DOUBLE: u8 = 0x05;
    pub const NULL: u8 = 0x06;
    pub const TIMESTAMP: u8 = 0x07;
    pub const LONGLONG: u8 = 0x08;
    pub const INT24: u8 = 0x09;
    pub const DATE: u8 = 0x0a;
    pub const TIME: u8 = 0x0b;
    pub const DATETIME: u8 = 0x0c;
    pub const YEAR: u8 = 0x0d;
    pub const VARCHAR: u8 = 0x0f;
    pub const BIT: u8 = 0x10;
    pub const JSON: u8 = 0xf5;
    pub const NEWDECIMAL: u8 = 0xf6;
    pub const ENUM: u8 = 0xf7;
    pub const SET: u8 = 0xf8;
    pub const TINY_BLOB: u8 = 0xf9;
    pub const MEDIUM_BLOB: u8 = 0xfa;
    pub const LONG_BLOB: u8 = 0xfb;
    pub const BLOB: u8 = 0xfc;
    pub const VAR_STRING: u8 = 0xfd;
    pub const STRING: u8 = 0xfe;
    pub const GEOMETRY: u8 = 0xff;
}

/// MySQL column definition flags.
#[allow(missing_docs)]
pub mod column_flags {
    pub const NOT_NULL: u16 = 1;
    pub const PRI_KEY: u16 = 2;
    pub const UNIQUE_KEY: u16 = 4;
    pub const MULTIPLE_KEY: u16 = 8;
    pub const BLOB: u16 = 16;
    pub const UNSIGNED: u16 = 32;
    pub const ZEROFILL: u16 = 64;
    pub const BINARY: u16 = 128;
    pub const ENUM: u16 = 256;
    pub const AUTO_INCREMENT: u16 = 512;
    pub const TIMESTAMP: u16 = 1024;
    pub const SET: u16 = 2048;
    pub const NO_DEFAULT_VALUE: u16 = 4096;
    pub const ON_UPDATE_NOW: u16 = 8192;
    pub const NUM: u16 = 32768;
}

/// A result-set column as the client sees it (the protocol's ColumnDefinition41).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ColumnMeta {
    /// Schema of the underlying table ("" for expressions).
    pub schema: String,
    /// Table alias ("" for expressions).
    pub table: String,
    /// Underlying table name.
    pub org_table: String,
    /// Column alias (what the client shows as the header).
    pub name: String,
    /// Underlying column name.
    pub org_name: String,
    /// Character set / collation id (63 = binary).
    pub charset: u16,
    /// Maximum display length.
    pub length: u32,
    /// A [`field_type`] code.
    pub field_type: u8,
    /// [`column_flags`] bits.
    pub flags: u16,
    /// Decimals (fractional digits; 0x1f for "not fixed").
    pub decimals: u8,
}

impl ColumnMeta {
    /// Metadata for a column of declared type `ty`.
    pub fn for_type(name: &str, ty: &DataType) -> ColumnMeta {
        use field_type as ft;
        let coll = ty.collation();
        let mut flags = 0u16;
        if ty.unsigned() {
            flags |= column_flags::UNSIGNED;
        }
        let (field_type, length, decimals, charset) = match ty {
            DataType::Int {
                bytes,
                width,
                unsigned,
                zerofill,
            } => {
                if *zerofill {
                    flags |= column_flags::ZEROFILL;
                }
                let t = match bytes {
                    1 => ft::TINY,
                    2 => ft::SHORT,
                    3 => ft::INT24,
                    4 => ft::LONG,
                    _ => ft::LONGLONG,
                };
                let default_w = match (bytes, unsigned) {
                    (1, false) => 4,
                    (1, true) => 3,
                    (2, false) => 6,
                    (2, true) => 5,
                    (3, _) => 8 + (!unsigned) as u32,
                    (4, false) => 11,
                    (4, true) => 10,
                    (_, false) => 20,
                    (_, true) => 20,
                };
                (t, width.map(|w| w as u32).unwrap_or(default_w), 0, 63)
            }
            DataType::Decimal {
                precision,
                scale,
                unsigned,
            } => {
                let len = *precision as u32 + (*scale > 0) as u32 + (!unsigned) as u32;
                (ft::NEWDECIMAL, len, *scale, 63)
            }
            DataType::Float { md, .. } => (
                ft::FLOAT,
                md.map_or(12, |m| m.0 as u32),
                md.map_or(31, |m| m.1),
                63,
            ),
            DataType::Double { md, .. } => (
                ft::DOUBLE,
                md.map_or(22, |m| m.0 as u32),
                md.map_or(31, |m| m.1),
                63,
            ),
            DataType::Char { len, .. } => (ft::STRING, len * coll.max_len(), 0, coll.id()),
            DataType::VarChar { len, .. } => (ft::VAR_STRING, len * coll.max_len(), 0, coll.id()),
            DataType::Text { size, .. } => {
                flags |= column_flags::BLOB;
                (
                    ft::BLOB,
                    size.max_bytes().min(u32::MAX as u64) as u32,
                    0,
                    coll.id(),
                )
            }
            DataType::Binary { len } => {
                flags |= column_flags::BINARY;
                (ft::STRING, *len, 0, 63)
            }
            DataType::VarBinary { len } => {
                flags |= column_flags::BINARY;
                (ft::VAR_STRING, *len, 0, 63)
            }
            DataType::Blob { size } => {
                flags |= column_flags::BLOB | column_flags::BINARY;
                (
                    ft::BLOB,
                    size.max_bytes().min(u32::MAX as u64) as u32,
                    0,
                    63,
                )
            }
            DataType::Date => (ft::DATE, 10, 0, 63),
            DataType::Time { fsp } => (ft::TIME, 10 + fsp_len(*fsp), *fsp, 63),
            DataType::DateTime { fsp } => (ft::DATETIME, 19 + fsp_len(*fsp), *fsp, 63),
            DataType::Timestamp { fsp } => {
                flags |= column_flags::TIMESTAMP;
                (ft::TIMESTAMP, 19 + fsp_len(*fsp), *fsp, 63)
            }
            DataType::Year => {
                flags |= column_flags::ZEROFILL;
                (ft::YEAR, 4, 0, 63)
            }
            DataType::Enum { values, .. } => {
                flags |= column_flags::ENUM;
                let l = values.iter().map(|v| v.chars().count()).max().unwrap_or(0) as u32;
                (ft::STRING, l * coll.max_len(), 0, coll.id())
            }
            DataType::Set { values, .. } => {
                flags |= column_flags::SET;
                let l = values
                    .iter()
                    .map(|v| v.chars().count() + 1)
                    .sum::<usize>()
                    .saturating_sub(1) as u32;
                (ft::STRING, l * coll.max_len(), 0, coll.id())
            }
            DataType::Bit { len } => {
                flags |= column_flags::UNSIGNED;
                (ft::BIT, *len as u32, 0, 63)
            }
            DataType::Json => {
                flags |= column_flags::BLOB | column_flags::BINARY;
                (ft::JSON, u32::MAX, 0, 63)
            }
        };
        if matches!(
            ty,
            DataType::Int { .. }
                | DataType::Decimal { .. }
                | DataType::Float { .. }
                | DataType::Double { .. }
                | DataType::Year
        ) {
            flags |= column_flags::NUM;
        }
        ColumnMeta {
            name: name.to_string(),
            org_name: name.to_string(),
            charset,
            length,
            field_type,
            flags,
            decimals,
            ..Default::default()
        }
    }
}

fn fsp_len(fsp: u8) -> u32 {
    if fsp == 0 {
        0
    } else {
        fsp as u32 + 1
    }
}
