//! What a simple command does, read from its words: the analysis the blacklist, the rules and
//! the read-only check share. The shell reader (`crate::shell`) splits a command line into
//! simple commands; this module peels their wrappers (`sudo`, `env`, `timeout`, `xargs`, …) down
//! to the program that runs, names it, normalises its words (braces, variables set earlier in
//! the same script, `$IFS`, paths), expands globs against the files that exist, tells which
//! paths are system directories, block devices or terminals, and knows which options,
//! variables and builtins make a program run code nobody named.
//!
//! Invariant: every answer over-approximates what could run or be touched — an unknown wrapper
//! option, builtin flag or sed command counts as the dangerous reading — so a check built on it
//! fails closed. It decides nothing: no allow, ask or deny is made here, and it knows no rule or
//! mode; `crate::permission` does. It uses only the shell reader below it.
//!
//! - `mod.rs` — this map
//! - `wrappers.rs` — wrappers peeled to the effective command; program names, shells, interpreters
//! - `runners.rs` — the reviewed table of options and variables that make a tool run other code
//! - `builtins.rs` — builtins that assign variables, rebind names or register code for later
//! - `normalize.rs` — words as bash would produce them (braces, variables, `$IFS`); critical paths
//! - `expansion.rs` — what a glob or brace word may become against the files that exist
//! - `glob.rs` — glob patterns (bash's and the rules') as regexes
//! - `options.rs` — a command's options as written: split GNU-style, or looked up by letter or name
//! - `sed.rs` — whether a sed script can run a command or write a file
//! - `wrappers_tests.rs` — unit tests of wrappers.rs
//! - `runners_tests.rs` — unit tests of runners.rs
//! - `builtins_tests.rs` — unit tests of builtins.rs
//! - `expansion_tests.rs` — unit tests of expansion.rs
//! - `sed_tests.rs` — unit tests of sed.rs

pub(crate) mod builtins;
pub(crate) mod expansion;
pub(crate) mod glob;
pub(crate) mod normalize;
pub(crate) mod options;
pub(crate) mod runners;
pub(crate) mod sed;
pub(crate) mod wrappers;
