//! Permission engine (placeholder while layers are built).

pub mod sed;
pub mod shell;
pub mod wrappers;
