//! Permission engine (placeholder while layers are built).

pub mod blacklist;
pub mod command_rules;
pub mod normalize;
pub mod rules;
pub mod sandbox;
pub mod sed;
pub mod shell;
pub mod wrappers;
