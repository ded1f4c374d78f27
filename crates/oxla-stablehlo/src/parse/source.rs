//! The MLIR text being read, and the located errors that point into it.
//!
//! Every error the StableHLO reader returns is built here, as the same
//! [`Error::Parse`] the HLO text parser returns: a 1-based line and column,
//! the source line with a caret under the column, and what would have been
//! accepted there. Columns count characters, not bytes.

use oxla_ir::Error;

/// How many characters of a long source line an error shows on each side
/// of the column.
const SNIPPET_CONTEXT: usize = 60;

/// The text and where its lines start.
pub(super) struct Source<'a> {
    pub(super) text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    pub(super) fn new(text: &'a str) -> Source<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source { text, line_starts }
    }

    /// The 1-based line of byte offset `pos`.
    fn line_of(&self, pos: usize) -> usize {
        match self.line_starts.binary_search(&pos) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// A parse error at byte offset `pos`: `message` says what is wrong
    /// (naming the op when there is one), `expected` what would fit there.
    pub(super) fn error(
        &self,
        pos: usize,
        message: impl Into<String>,
        expected: impl Into<String>,
    ) -> Error {
        // Past the last visible character (end of input), point just after it.
        let visible_end = self.text.trim_end().len();
        let mut pos = pos.min(visible_end);
        while !self.text.is_char_boundary(pos) {
            pos -= 1;
        }
        let line = self.line_of(pos);
        let start = self.line_starts[line - 1];
        let end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |e| start + e);
        let line_text = self.text[start..end].trim_end_matches('\r');
        let column = self.text[start..pos].chars().count() + 1;
        let chars: Vec<char> = line_text.chars().collect();
        let from = (column - 1).saturating_sub(SNIPPET_CONTEXT);
        let to = (column - 1 + SNIPPET_CONTEXT).min(chars.len());
        let mut snippet = String::new();
        let mut caret = String::new();
        if from > 0 {
            snippet.push_str("...");
            caret.push_str("   ");
        }
        let visible = |c: char| if c.is_control() && c != '\t' { ' ' } else { c };
        snippet.extend(
            chars
                .get(from..to)
                .unwrap_or(&[])
                .iter()
                .map(|&c| visible(c)),
        );
        if to < chars.len() {
            snippet.push_str("...");
        }
        caret.extend(
            chars
                .get(from..column - 1)
                .unwrap_or(&[])
                .iter()
                .map(|&c| if c == '\t' { '\t' } else { ' ' }),
        );
        caret.push('^');
        Error::Parse {
            line,
            column,
            message: message.into(),
            snippet,
            caret,
            expected: expected.into(),
        }
    }
}

/// Puts `op: ` in front of a located error's message, so that an error
/// found inside an op's syntax names the op.
pub(super) fn in_op(mut e: Error, op: &str) -> Error {
    if let Error::Parse { message, .. } = &mut e
        && !names_an_op(message)
    {
        *message = format!("{op}: {message}");
    }
    e
}

/// Whether a message already starts with an op's name (`stablehlo.add: `),
/// as an error from an op nested in a region does.
fn names_an_op(message: &str) -> bool {
    message.split_once(": ").is_some_and(|(head, _)| {
        head.contains('.') && !head.contains(' ') && !head.starts_with(|c: char| c.is_ascii_digit())
    })
}
