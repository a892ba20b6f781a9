//! Here-doc bodies for the shell parser: read after the next newline, never split as commands.
//!
//! Invariant: a body is consumed whole (up to its delimiter line, or to the end of input as bash
//! does with a warning), so its text can never be mistaken for commands of the outer script; an
//! unquoted body's substitutions are still parsed, because bash runs them.

use super::{Parser, Unparseable, WordInfo};

impl Parser<'_> {
    /// Reads here-doc bodies pending since the last newline.
    pub(super) fn read_heredoc_bodies(&mut self) -> Result<(), Unparseable> {
        for pending in std::mem::take(&mut self.pending) {
            let body_start = self.pos;
            let mut body = String::new();
            let mut closed = false;
            while self.pos < self.chars.len() {
                let line_start = self.pos;
                while self.peek().is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
                let line: String = self.chars[line_start..self.pos].iter().map(|(_, c)| *c).collect();
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
                self.scan_heredoc_substitutions(body_start, &body)?;
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
        self.read_heredoc_bodies()
    }

    fn offset_of(&self, index: usize) -> usize {
        self.chars.get(index).map_or(self.src.len(), |(offset, _)| *offset)
    }

    /// An unquoted here-doc body is expanded by bash, so its substitutions run: parse them.
    fn scan_heredoc_substitutions(&mut self, body_start: usize, body: &str) -> Result<(), Unparseable> {
        if !body.contains("$(") && !body.contains('`') {
            return Ok(());
        }
        let mut inner = Parser::new(body, self.depth + 1);
        inner.span_override = Some(self.span(self.offset_of(body_start)..self.offset()));
        while inner.pos < inner.chars.len() {
            match (inner.peek(), inner.peek_at(1)) {
                (Some('\\'), _) => inner.pos += 2,
                (Some('$'), Some('(')) | (Some('`'), _) => {
                    let mut sink = String::new();
                    let mut info = WordInfo::default();
                    inner.read_dollar_or_backtick(&mut sink, &mut info)?;
                }
                _ => inner.pos += 1,
            }
        }
        self.merge(inner.out);
        Ok(())
    }
}
