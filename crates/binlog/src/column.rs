//! Crate-neutral column descriptions: [`ColumnType`] (MySQL's `enum_field_types` as written in
//! TABLE_MAP events) and [`ColumnDef`] (type, metadata, signedness, collation, name).
//!
//! `ColumnDef::meta` holds the per-column metadata the way MySQL's `table_def` unpacks it from a
//! TABLE_MAP event, so values can be compared with MySQL's code and documentation:
//!
//! | type | `meta` |
//! |---|---|
//! | FLOAT, DOUBLE | pack length (4, 8) |
//! | VARCHAR, VAR_STRING | maximum length in bytes |
//! | NEWDECIMAL | `precision << 8 \| scale` |
//! | BIT | `bytes << 8 \| bits % 8` (`bits = 8 * bytes + bits % 8`) |
//! | STRING (CHAR, ENUM, SET) | `byte0 << 8 \| byte1`, see [`ColumnDef::string_info`] |
//! | BLOB, JSON, GEOMETRY | length-prefix size (1–4) |
//! | TIMESTAMP2, DATETIME2, TIME2 | fractional seconds precision (0–6) |
//! | others | 0 |

use crate::bytes::{put_uint_le, Reader};
use crate::error::{BinlogError, Result};

/// The binary collation id (`binary` charset, `VARBINARY` and `BLOB` columns).
pub const BINARY_COLLATION: u16 = 63;
/// `utf8mb4_0900_ai_ci`, MySQL 8.4's default collation.
pub const UTF8MB4_0900_AI_CI: u16 = 255;

/// MySQL column type codes as they appear in TABLE_MAP events.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColumnType {
    Decimal,
    Tiny,
    Short,
    Long,
    Float,
    Double,
    Null,
    Timestamp,
    LongLong,
    Int24,
    Date,
    Time,
    DateTime,
    Year,
    NewDate,
    VarChar,
    Bit,
    Timestamp2,
    DateTime2,
    Time2,
    TypedArray,
    Json,
    NewDecimal,
    Enum,
    Set,
    TinyBlob,
    MediumBlob,
    LongBlob,
    Blob,
    VarString,
    String,
    Geometry,
}

impl ColumnType {
    /// The type byte.
    pub fn code(self) -> u8 {
        use ColumnType::*;
        match self {
            Decimal => 0,
            Tiny => 1,
            Short => 2,
            Long => 3,
            Float => 4,
            Double => 5,
            Null => 6,
            Timestamp => 7,
            LongLong => 8,
            Int24 => 9,
            Date => 10,
            Time => 11,
            DateTime => 12,
            Year => 13,
            NewDate => 14,
            VarChar => 15,
            Bit => 16,
            Timestamp2 => 17,
            DateTime2 => 18,
            Time2 => 19,
            TypedArray => 20,
            Json => 245,
            NewDecimal => 246,
            Enum => 247,
            Set => 248,
            TinyBlob => 249,
            MediumBlob => 250,
            LongBlob => 251,
            Blob => 252,
            VarString => 253,
            String => 254,
            Geometry => 255,
        }
    }

    /// The type for a type byte, if it is one.
    pub fn from_code(code: u8) -> Option<ColumnType> {
        use ColumnType::*;
        Some(match code {
            0 => Decimal,
            1 => Tiny,
            2 => Short,
            3 => Long,
            4 => Float,
            5 => Double,
            6 => Null,
            7 => Timestamp,
            8 => LongLong,
            9 => Int24,
            10 => Date,
            11 => Time,
            12 => DateTime,
            13 => Year,
            14 => NewDate,
            15 => VarChar,
            16 => Bit,
            17 => Timestamp2,
            18 => DateTime2,
            19 => Time2,
            20 => TypedArray,
            245 => Json,
            246 => NewDecimal,
            247 => Enum,
            248 => Set,
            249 => TinyBlob,
            250 => MediumBlob,
            251 => LongBlob,
            252 => Blob,
            253 => VarString,
            254 => String,
            255 => Geometry,
            _ => return None,
        })
    }

    /// Bytes of TABLE_MAP metadata this type carries.
    pub fn meta_len(self) -> usize {
        use ColumnType::*;
        match self {
            Float | Double | Blob | TinyBlob | MediumBlob | LongBlob | Json | Geometry
            | Timestamp2 | DateTime2 | Time2 => 1,
            VarChar | VarString | NewDecimal | Bit | String | Enum | Set => 2,
            _ => 0,
        }
    }
}

/// One column as the binary log describes it; built by the server from its own catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDef {
    /// The column name (written only with `binlog_row_metadata=FULL`; empty when unknown).
    pub name: String,
    /// The type byte written in TABLE_MAP (ENUM and SET columns are [`ColumnType::String`]).
    pub column_type: ColumnType,
    /// Type metadata, see the module docs.
    pub meta: u16,
    /// UNSIGNED (numeric columns).
    pub unsigned: bool,
    /// Whether the column accepts NULL.
    pub nullable: bool,
    /// Collation id of character, ENUM and SET columns ([`BINARY_COLLATION`] for binary
    /// strings); 0 for other columns.
    pub collation: u16,
    /// The member strings of an ENUM or SET column (written with `binlog_row_metadata=FULL`).
    pub elements: Vec<Vec<u8>>,
    /// The real geometry type of a GEOMETRY column (0 = GEOMETRY).
    pub geometry_type: u32,
    /// An INVISIBLE column (written with `binlog_row_metadata=FULL`).
    pub invisible: bool,
}

impl ColumnDef {
    /// A column of `column_type` with `meta`, signed, nullable, no collation.
    pub fn new(name: &str, column_type: ColumnType, meta: u16) -> Self {
        ColumnDef {
            name: name.to_string(),
            column_type,
            meta,
            unsigned: false,
            nullable: true,
            collation: 0,
            elements: Vec::new(),
            geometry_type: 0,
            invisible: false,
        }
    }

    /// Marks the column UNSIGNED.
    pub fn unsigned(mut self) -> Self {
        self.unsigned = true;
        self
    }

    /// Marks the column NOT NULL.
    pub fn not_null(mut self) -> Self {
        self.nullable = false;
        self
    }

    /// Sets the collation id.
    pub fn collation(mut self, collation: u16) -> Self {
        self.collation = collation;
        self
    }

    /// An integer column of `bytes` (1, 2, 3, 4, 8) storage bytes.
    ///
    /// # Errors
    /// [`BinlogError::InvalidValue`] for another width.
    pub fn int(name: &str, bytes: u8) -> Result<Self> {
        let t = match bytes {
            1 => ColumnType::Tiny,
            2 => ColumnType::Short,
            3 => ColumnType::Int24,
            4 => ColumnType::Long,
            8 => ColumnType::LongLong,
            _ => {
                return Err(BinlogError::invalid(format!(
                    "no {bytes}-byte integer type"
                )))
            }
        };
        Ok(ColumnDef::new(name, t, 0))
    }

    /// FLOAT.
    pub fn float(name: &str) -> Self {
        ColumnDef::new(name, ColumnType::Float, 4)
    }

    /// DOUBLE.
    pub fn double(name: &str) -> Self {
        ColumnDef::new(name, ColumnType::Double, 8)
    }

    /// DECIMAL(precision, scale).
    pub fn decimal(name: &str, precision: u8, scale: u8) -> Self {
        ColumnDef::new(
            name,
            ColumnType::NewDecimal,
            u16::from(precision) << 8 | u16::from(scale),
        )
    }

    /// YEAR.
    pub fn year(name: &str) -> Self {
        ColumnDef::new(name, ColumnType::Year, 0)
    }

    /// DATE.
    pub fn date(name: &str) -> Self {
        ColumnDef::new(name, ColumnType::Date, 0)
    }

    /// TIME(fsp).
    pub fn time(name: &str, fsp: u8) -> Self {
        ColumnDef::new(name, ColumnType::Time2, u16::from(fsp))
    }

    /// DATETIME(fsp).
    pub fn datetime(name: &str, fsp: u8) -> Self {
        ColumnDef::new(name, ColumnType::DateTime2, u16::from(fsp))
    }

    /// TIMESTAMP(fsp).
    pub fn timestamp(name: &str, fsp: u8) -> Self {
        ColumnDef::new(name, ColumnType::Timestamp2, u16::from(fsp))
    }

    /// VARCHAR / VARBINARY of at most `max_bytes` bytes (characters × max bytes per character).
    pub fn varchar(name: &str, max_bytes: u16, collation: u16) -> Self {
        ColumnDef::new(name, ColumnType::VarChar, max_bytes).collation(collation)
    }

    /// CHAR / BINARY of `max_bytes` bytes (at most 1020).
    pub fn char(name: &str, max_bytes: u16, collation: u16) -> Self {
        Self::string_like(name, ColumnType::String, max_bytes, collation)
    }

    /// ENUM with `elements`; stored in 1 or 2 bytes.
    pub fn enumeration(name: &str, elements: Vec<Vec<u8>>, collation: u16) -> Self {
        let pack = if elements.len() < 256 { 1 } else { 2 };
        let mut c = Self::string_like(name, ColumnType::Enum, pack, collation);
        c.elements = elements;
        c
    }

    /// SET with `elements`; stored in 1, 2, 3, 4 or 8 bytes.
    pub fn set(name: &str, elements: Vec<Vec<u8>>, collation: u16) -> Self {
        let pack = match elements.len().div_ceil(8) {
            0 | 1 => 1,
            n @ 2..=4 => n as u16,
            _ => 8,
        };
        let mut c = Self::string_like(name, ColumnType::Set, pack, collation);
        c.elements = elements;
        c
    }

    fn string_like(name: &str, real: ColumnType, len: u16, collation: u16) -> Self {
        let byte0 = u16::from(real.code()) ^ ((len & 0x300) >> 4);
        ColumnDef::new(name, ColumnType::String, byte0 << 8 | (len & 0xff)).collation(collation)
    }

    /// TINYBLOB/BLOB/MEDIUMBLOB/LONGBLOB (or TEXT with a character collation): `pack_len` is
    /// the size of the length prefix, 1–4.
    pub fn blob(name: &str, pack_len: u8, collation: u16) -> Self {
        ColumnDef::new(name, ColumnType::Blob, u16::from(pack_len)).collation(collation)
    }

    /// BIT(bits), 1–64.
    pub fn bit(name: &str, bits: u8) -> Self {
        ColumnDef::new(
            name,
            ColumnType::Bit,
            u16::from(bits / 8) << 8 | u16::from(bits % 8),
        )
    }

    /// JSON.
    pub fn json(name: &str) -> Self {
        ColumnDef::new(name, ColumnType::Json, 4)
    }

    /// GEOMETRY (values are the internal WKB-with-SRID bytes).
    pub fn geometry(name: &str) -> Self {
        ColumnDef::new(name, ColumnType::Geometry, 4)
    }

    /// For [`ColumnType::String`]: the real type (STRING, ENUM or SET) and the maximum byte
    /// length (for ENUM/SET: the storage size), unpacked as MySQL does.
    pub fn string_info(&self) -> (ColumnType, u16) {
        let (b0, b1) = ((self.meta >> 8) as u8, self.meta & 0xff);
        if b0 & 0x30 != 0x30 {
            let len = b1 | (u16::from((b0 & 0x30) ^ 0x30) << 4);
            (ColumnType::String, len)
        } else {
            (ColumnType::from_code(b0).unwrap_or(ColumnType::String), b1)
        }
    }

    /// The type that decides the row encoding: ENUM/SET for STRING columns that are really ENUM
    /// or SET, the table-map type otherwise.
    pub fn real_type(&self) -> ColumnType {
        match self.column_type {
            ColumnType::String => self.string_info().0,
            t => t,
        }
    }

    /// DECIMAL precision and scale.
    pub fn decimal_info(&self) -> (u8, u8) {
        ((self.meta >> 8) as u8, self.meta as u8)
    }

    /// BIT width in bits.
    pub fn bit_width(&self) -> u32 {
        u32::from(self.meta >> 8) * 8 + u32::from(self.meta & 0xff)
    }

    /// Whether the SIGNEDNESS metadata has a bit for this column (MySQL's
    /// `has_signedess_information_type`: the numeric types and YEAR).
    pub fn is_numeric(&self) -> bool {
        use ColumnType::*;
        matches!(
            self.column_type,
            Tiny | Short | Int24 | Long | LongLong | Year | Float | Double | NewDecimal | Decimal
        )
    }

    /// Whether the column is a character column for the charset metadata (CHAR, VARCHAR,
    /// BLOB/TEXT, binary strings included; not ENUM/SET).
    pub fn is_character(&self) -> bool {
        use ColumnType::*;
        matches!(self.real_type(), String | VarString | VarChar | Blob)
    }

    /// Whether the column is ENUM or SET.
    pub fn is_enum_or_set(&self) -> bool {
        matches!(self.real_type(), ColumnType::Enum | ColumnType::Set)
    }

    /// Appends this column's TABLE_MAP metadata bytes.
    pub fn encode_meta(&self, out: &mut Vec<u8>) {
        use ColumnType::*;
        let m = self.meta;
        match self.column_type {
            VarChar | VarString => put_uint_le(out, u64::from(m), 2),
            NewDecimal | String | Enum | Set => out.extend_from_slice(&[(m >> 8) as u8, m as u8]),
            Bit => out.extend_from_slice(&[m as u8, (m >> 8) as u8]),
            t if t.meta_len() == 1 => out.push(m as u8),
            _ => {}
        }
    }

    /// Reads the metadata of a `column_type` column, returning `meta`.
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] when the metadata block is short.
    pub fn decode_meta(column_type: ColumnType, r: &mut Reader<'_>) -> Result<u16> {
        use ColumnType::*;
        const W: &str = "column metadata";
        Ok(match column_type {
            VarChar | VarString => r.u16(W)?,
            NewDecimal | String | Enum | Set => {
                let b = r.bytes(2, W)?;
                u16::from(b[0]) << 8 | u16::from(b[1])
            }
            Bit => {
                let b = r.bytes(2, W)?;
                u16::from(b[1]) << 8 | u16::from(b[0])
            }
            t if t.meta_len() == 1 => u16::from(r.u8(W)?),
            _ => 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for c in 0..=255u8 {
            if let Some(t) = ColumnType::from_code(c) {
                assert_eq!(t.code(), c);
            }
        }
        assert_eq!(ColumnType::from_code(100), None);
    }

    #[test]
    fn string_meta_packing_matches_mysql() {
        // CHAR(10) utf8mb4 = 40 bytes: [0xfe, 40].
        let c = ColumnDef::char("c", 40, UTF8MB4_0900_AI_CI);
        let mut m = Vec::new();
        c.encode_meta(&mut m);
        assert_eq!(m, [0xfe, 40]);
        assert_eq!(c.string_info(), (ColumnType::String, 40));
        // CHAR(255) utf8mb4 = 1020 bytes: 0xfe ^ ((1020 & 0x300) >> 4) = 0xce, 1020 & 0xff = 0xfc.
        let c = ColumnDef::char("c", 1020, UTF8MB4_0900_AI_CI);
        m.clear();
        c.encode_meta(&mut m);
        assert_eq!(m, [0xce, 0xfc]);
        assert_eq!(c.string_info(), (ColumnType::String, 1020));
        let e = ColumnDef::enumeration("e", vec![b"a".to_vec()], 255);
        m.clear();
        e.encode_meta(&mut m);
        assert_eq!(m, [247, 1]);
        assert_eq!(e.real_type(), ColumnType::Enum);
        let s = ColumnDef::set("s", (0..20).map(|i| vec![b'a' + i]).collect(), 255);
        assert_eq!(s.string_info(), (ColumnType::Set, 3));
        assert!(s.is_enum_or_set() && !s.is_character());
    }

    #[test]
    fn meta_round_trip() {
        let cols = [
            ColumnDef::float("f"),
            ColumnDef::double("d"),
            ColumnDef::decimal("n", 14, 4),
            ColumnDef::bit("b", 10),
            ColumnDef::varchar("v", 1000, 255),
            ColumnDef::char("c", 600, 255),
            ColumnDef::blob("t", 2, 255),
            ColumnDef::json("j"),
            ColumnDef::datetime("dt", 6),
            ColumnDef::int("i", 4).unwrap(),
        ];
        for c in cols {
            let mut m = Vec::new();
            c.encode_meta(&mut m);
            assert_eq!(m.len(), c.column_type.meta_len(), "{c:?}");
            let back = ColumnDef::decode_meta(c.column_type, &mut Reader::new(&m)).unwrap();
            assert_eq!(back, c.meta, "{c:?}");
        }
        let mut m = Vec::new();
        ColumnDef::bit("b", 10).encode_meta(&mut m);
        assert_eq!(m, [2, 1]);
        assert_eq!(ColumnDef::bit("b", 10).bit_width(), 10);
        assert_eq!(ColumnDef::decimal("n", 14, 4).decimal_info(), (14, 4));
    }
}
