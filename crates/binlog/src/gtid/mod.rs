//! GTIDs: the source [`Uuid`] and [`GtidSet`] (text and binary forms).

mod set;
mod uuid;

pub use set::{GtidSet, MAX_GNO};
pub use uuid::Uuid;
