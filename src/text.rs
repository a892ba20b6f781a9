//! Making untrusted text (model output, tool output, file contents) safe to show in a terminal.
//!
//! Invariant: after `neutralize`, a string contains no C0 control character except `\n` and
//! `\t`, no DEL and no C1 control, so it cannot move the cursor, clear the screen, change colours,
//! set the window title or retype a prompt line (`\r`). Each removed character is shown visibly
//! (`ESC` as `␛`, others as `^X` or `\u{..}`), so nothing is silently hidden either.

/// Returns `text` with every terminal control character replaced by a visible stand-in.
pub(crate) fn neutralize(text: &str) -> String {
    if !text.chars().any(is_dangerous) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_dangerous(c) {
            out.push(c);
        } else if c == '\u{1b}' {
            out.push('␛');
        } else if (c as u32) < 0x20 {
            out.push('^');
            out.push(char::from(b'@' + c as u8));
        } else if c == '\u{7f}' {
            out.push_str("^?");
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    out
}

/// C0 controls except newline and tab, DEL, C1 controls, and the Unicode bidi overrides that can
/// make displayed text read differently from what it is.
fn is_dangerous(c: char) -> bool {
    let code = c as u32;
    (code < 0x20 && c != '\n' && c != '\t')
        || code == 0x7f
        || (0x80..0xa0).contains(&code)
        || matches!(code, 0x202a..=0x202e | 0x2066..=0x2069)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_controls_become_visible() {
        assert_eq!(neutralize("plain\ttext\nline"), "plain\ttext\nline");
        assert_eq!(neutralize("\x1b[2J\x1b[Hcleared"), "␛[2J␛[Hcleared");
        assert_eq!(neutralize("fake\r[y] yes once"), "fake^M[y] yes once");
        assert_eq!(neutralize("bell\x07 del\x7f"), "bell^G del^?");
        assert_eq!(neutralize("c1\u{9b}31m"), "c1\\u{9b}31m");
        assert_eq!(neutralize("title\x1b]0;pwned\x07"), "title␛]0;pwned^G");
        assert_eq!(neutralize("rtl\u{202e}txt"), "rtl\\u{202e}txt");
        assert_eq!(neutralize("ünïcödé ✓"), "ünïcödé ✓");
    }
}
