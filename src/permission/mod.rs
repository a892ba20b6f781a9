//! Permission engine (placeholder while layers are built).

pub mod shell;
