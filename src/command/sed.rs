//! A small reader for sed scripts that answers one question: can this script run a command
//! (`e`, `s///e`) or write a file (`w`, `W`, `s///w`)? The blacklist asks the narrower half:
//! can it run a command (what it is fed then becomes a command line)?
//!
//! Invariant: it fails closed — a command letter it does not know, or a script it cannot
//! follow, counts as "yes". It never evaluates anything.

/// True when `script` may run commands or write files.
pub(crate) fn script_runs_or_writes(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut reader = Reader { chars: &chars, pos: 0, writes_count: true };
    reader.risky().unwrap_or(true)
}

/// True when `script` may run commands (`e`, `s///e`); writing files does not count.
pub(crate) fn script_runs(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut reader = Reader { chars: &chars, pos: 0, writes_count: false };
    reader.risky().unwrap_or(true)
}

struct Reader<'a> {
    chars: &'a [char],
    pos: usize,
    /// `w`, `W` and `s///w` count as risky.
    writes_count: bool,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    /// Some(true) risky, Some(false) safe, None could not follow the script.
    fn risky(&mut self) -> Option<bool> {
        loop {
            while self.peek().is_some_and(|c| c.is_whitespace() || c == ';') {
                self.pos += 1;
            }
            let Some(_) = self.peek() else { return Some(false) };
            self.address()?;
            if self.peek() == Some(',') {
                self.pos += 1;
                self.address()?;
            }
            while self.peek().is_some_and(|c| c == '!' || c == ' ' || c == '\t') {
                self.pos += 1;
            }
            let command = self.peek()?;
            self.pos += 1;
            match command {
                '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {}
                'e' => return Some(true),
                'w' | 'W' if self.writes_count => return Some(true),
                'w' | 'W' => self.skip_argument('r'),
                '#' | ':' | 'b' | 't' | 'T' | 'r' | 'R' | 'v' | 'q' | 'Q' | 'l' | 'L' => self.skip_argument(command),
                'a' | 'i' | 'c' => self.skip_text(),
                's' => {
                    let delimiter = self.peek()?;
                    self.pos += 1;
                    self.skip_part(delimiter)?;
                    self.skip_part(delimiter)?;
                    while let Some(flag) = self.peek() {
                        match flag {
                            'e' => return Some(true),
                            'w' | 'W' if self.writes_count => return Some(true),
                            'w' | 'W' => {
                                self.skip_argument('r');
                                break;
                            }
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => self.pos += 1,
                            _ => break,
                        }
                    }
                }
                'y' => {
                    let delimiter = self.peek()?;
                    self.pos += 1;
                    self.skip_part(delimiter)?;
                    self.skip_part(delimiter)?;
                }
                _ => return None,
            }
        }
    }

    /// Skips an optional address: a line number, `$`, `first~step`, `/re/` or `\cREc`.
    fn address(&mut self) -> Option<()> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '~') {
                    self.pos += 1;
                }
            }
            Some('$') => self.pos += 1,
            Some('/') => {
                self.pos += 1;
                self.skip_part('/')?;
            }
            Some('\\') => {
                self.pos += 1;
                let delimiter = self.peek()?;
                self.pos += 1;
                self.skip_part(delimiter)?;
            }
            _ => return Some(()),
        }
        while self.peek().is_some_and(|c| c == 'I' || c == 'M') {
            self.pos += 1;
        }
        Some(())
    }

    /// Skips to the next unescaped `delimiter` (consumed).
    fn skip_part(&mut self, delimiter: char) -> Option<()> {
        loop {
            let c = self.peek()?;
            self.pos += 1;
            if c == '\\' {
                self.pos += 1;
            } else if c == delimiter {
                return Some(());
            }
        }
    }

    /// Label, file name or number arguments end at a newline (and at `;` for labels/numbers).
    fn skip_argument(&mut self, command: char) {
        let stops_at_semicolon = !matches!(command, '#' | 'r' | 'R');
        while let Some(c) = self.peek() {
            if c == '\n' || (stops_at_semicolon && c == ';') {
                break;
            }
            self.pos += 1;
        }
    }

    /// `a`, `i`, `c` text runs to the end of the line, with backslash-newline continuing it.
    fn skip_text(&mut self) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == '\\' {
                self.pos += 1;
            } else if c == '\n' {
                break;
            }
        }
    }
}

#[cfg(test)]
#[path = "sed_tests.rs"]
mod tests;
