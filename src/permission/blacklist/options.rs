//! GNU-style option reading for the family checks: a program's arguments split into long
//! flags, short option letters and operands, the way GNU getopt permutes them.
//!
//! Invariant: options are read up to `--` wherever they stand (`rm / -rf` is `rm -rf /`), a lone
//! `-` is an operand, and a short cluster counts every letter (`-rf` is `-r -f`), so no spelling
//! of a flag hides it. It does not know which options take a value: a value is read as more
//! letters or as an operand, which only ever adds candidates.

/// Options and operands of a GNU-style command line.
pub(super) struct CommandLine<'a> {
    /// Long names (without dashes and without `=value`) given before `--`.
    pub(super) flags: Vec<&'a str>,
    /// Short option letters given before `--`, clusters concatenated.
    pub(super) short: String,
    pub(super) operands: Vec<&'a str>,
}

/// Splits `args` into long flags, short letters and operands (GNU permutation, `--` ends options).
pub(super) fn split_options(args: &[String]) -> CommandLine<'_> {
    let mut line = CommandLine { flags: Vec::new(), short: String::new(), operands: Vec::new() };
    let mut options_done = false;
    for arg in args {
        if options_done || arg == "-" || !arg.starts_with('-') {
            line.operands.push(arg);
        } else if arg == "--" {
            options_done = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            line.flags.push(long.split('=').next().unwrap_or(long));
        } else {
            line.short.push_str(&arg[1..]);
        }
    }
    line
}
