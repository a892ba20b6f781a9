//! Here-doc bodies for the shell parser: read after the next newline, never split as commands.
//!
//! Invariant: a body is consumed whole (up to its delimiter line, or to the end of input as bash
//! does with a warning), so its text can never be mistaken for commands of the outer script; an
//! unquoted body's substitutions are still parsed, because bash runs them, and its lines are
//! joined at backslash-newlines before the delimiter is looked for, as bash does.

use super::{Parser, Unparseable};

impl Parser<'_> {
    /// Reads here-doc bodies pending since the last newline.
    pub(super) fn read_heredoc_bodies(&mut self) -> Result<(), Unparseable> {
        for pending in std::mem::take(&mut self.pending) {
            let body_start = self.pos;
            let mut body = String::new();
            let mut closed = false;
            while self.pos < self.chars.len() {
                let line = self.read_body_line(!pending.quoted);
                let end_of_line = self.pos;
                if self.peek() == Some('\n') {
                    self.pos += 1;
                }
                let compared = if pending.strip_tabs { line.trim_start_matches('\t') } else { line.as_str() };
                if compared == pending.delimiter {
                    closed = true;
                    let span = self.offset_of(body_start)..self.offset_of(end_of_line);
                    let span = self.span(span);
                    self.out.other_spans.push(span);
                    break;
                }
                body.push_str(compared);
                body.push('\n');
            }
            if !closed {
                let span = self.span(self.offset_of(body_start)..self.src.len());
                self.out.other_spans.push(span);
            }
            if !pending.quoted {
                let span = self.span(self.offset_of(body_start)..self.offset());
                self.scan_substitutions(&body, span)?;
            }
            if let Some(redirect) = self
                .out
                .subcommands
                .get_mut(pending.command)
                .and_then(|command| command.redirections.get_mut(pending.redirect))
            {
                redirect.target = body;
            }
        }
        Ok(())
    }

    pub(super) fn finish_heredocs(&mut self) -> Result<(), Unparseable> {
        self.read_heredoc_bodies()?;
        self.check_stall()
    }

    fn offset_of(&self, index: usize) -> usize {
        self.chars.get(index).map_or(self.src.len(), |(offset, _)| *offset)
    }

    /// One line of a body. In an unquoted body bash joins a backslash-newline with the next
    /// line before it compares the line with the delimiter (`EO\` + newline + `F` ends a body
    /// delimited by `EOF`); an escaped backslash (`\\`) does not join.
    fn read_body_line(&mut self, join_continuations: bool) -> String {
        let mut line = String::new();
        while let Some(c) = self.peek().filter(|c| *c != '\n') {
            if join_continuations && c == '\\' {
                match self.peek_at(1) {
                    Some('\n') => {
                        self.pos += 2;
                        continue;
                    }
                    Some(next) => {
                        line.push(c);
                        line.push(next);
                        self.pos += 2;
                        continue;
                    }
                    None => {}
                }
            }
            line.push(c);
            self.pos += 1;
        }
        line
    }
}
