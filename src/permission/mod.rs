//! Permission engine (placeholder while layers are built).

pub mod blacklist;
pub mod normalize;
pub mod sandbox;
pub mod sed;
pub mod shell;
pub mod wrappers;
