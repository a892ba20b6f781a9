//! The symbols the front ends draw their chrome with, in two sets: Unicode for a UTF-8 locale
//! and plain ASCII for any other (a serial line, the Linux console under `LANG=C`), where a
//! multi-byte symbol would arrive as two or three bytes of mojibake.
//!
//! Invariant: every symbol a front end prints that is not ASCII comes from this table, and every
//! symbol of `ASCII` is ASCII (a test checks it), so under a non-UTF-8 locale the product's own
//! output is pure ASCII. Which set applies is decided once, from the locale, by `app/`
//! (`plan_terminal_style`). Text made by the model, tools or files is never transliterated: it is
//! the person's content. Strings built below the front ends (errors, previews, summaries) use
//! ASCII in every locale, since they also reach logs, JSON and the model.

/// One set of symbols.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Glyphs {
    /// The prompt's mark, the picker's selected row, the approval legend's arrow: `›`.
    pub prompt: &'static str,
    /// Before a warning: `⚠`.
    pub warning: &'static str,
    /// Before a finished tool call: `●`.
    pub tool: &'static str,
    /// Before a tool's result, under its call: `⎿`.
    pub result: &'static str,
    /// Before an error, and a failed call's result without colour: `✗`.
    pub error: &'static str,
    /// Before a notice: `·`.
    pub notice: &'static str,
    /// Before a retry or a restarted stream: `⟲`.
    pub retry: &'static str,
    /// Before the summary of the model's thinking: `✻`.
    pub thought: &'static str,
    /// Where text was cut: `…`.
    pub ellipsis: &'static str,
    /// Between the fields of one line (banner, status line, picker titles): ` · `.
    pub separator: &'static str,
    /// Removed lines' count in `+3 −1`: `−`.
    pub minus: &'static str,
    /// From one size to another: `→`.
    pub arrow: &'static str,
    /// "Above": `↑`.
    pub up: &'static str,
    /// The keys that move a picker's selection: `↑/↓`.
    pub up_down: &'static str,
    /// Around a folded run of blank lines: `⋯`.
    pub blank_run: &'static str,
    /// A space made visible (trailing blanks of an argument): `␠`.
    pub space: &'static str,
    /// Between a visible space and its count (`␠×16`): `×`.
    pub times: &'static str,
    /// A timeline point that is a rewind (the picker of `/rewind`): `↺`.
    pub undo: &'static str,
    /// A bullet list item's mark in a rendered answer: `•`.
    pub bullet: &'static str,
    /// A block quote's bar in a rendered answer: `│`.
    pub bar: &'static str,
    /// One column of a horizontal rule (rules, code fences, headings of expanded output): `─`.
    pub rule: &'static str,
    /// Pointing back at where something comes from (a rule's file): `←`.
    pub from: &'static str,
    /// The spinner's frames, drawn in turn.
    pub spinner: &'static [char],
}

/// The symbols of a UTF-8 terminal.
pub(crate) const UNICODE: Glyphs = Glyphs {
    prompt: "›",
    warning: "⚠",
    tool: "●",
    result: "⎿",
    error: "✗",
    notice: "·",
    retry: "⟲",
    thought: "✻",
    ellipsis: "…",
    separator: " · ",
    minus: "−",
    arrow: "→",
    up: "↑",
    up_down: "↑/↓",
    blank_run: "⋯",
    space: "␠",
    times: "×",
    undo: "↺",
    bullet: "•",
    bar: "│",
    rule: "─",
    from: "←",
    spinner: &['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'],
};

/// The symbols of any other terminal: ASCII only.
pub(crate) const ASCII: Glyphs = Glyphs {
    prompt: ">",
    warning: "!",
    tool: "*",
    result: "|_",
    error: "x",
    notice: "-",
    retry: "~",
    thought: "*",
    ellipsis: "...",
    separator: " | ",
    minus: "-",
    arrow: "->",
    up: "^",
    up_down: "Up/Down",
    blank_run: "...",
    space: "<sp>",
    times: "x",
    undo: "<",
    bullet: "*",
    bar: "|",
    rule: "-",
    from: "<-",
    spinner: &['|', '/', '-', '\\'],
};

impl Glyphs {
    /// The set for a terminal whose locale is UTF-8 (`unicode`) or not.
    pub(crate) fn pick(unicode: bool) -> &'static Glyphs {
        if unicode { &UNICODE } else { &ASCII }
    }
}

#[cfg(test)]
#[path = "glyphs_tests.rs"]
mod tests;
