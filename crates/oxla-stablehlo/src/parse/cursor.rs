//! A character-level reader over the MLIR text.
//!
//! MLIR's lexical rules depend on where a token stands (`2x3xf32` inside
//! `tensor<...>`, `0x7FC00000` inside `dense<...>`), so there is no separate
//! token stream: the grammar functions ask the cursor for the token they
//! expect next. Whitespace and `//` comments are skipped before every token.
//! Nothing here recurses; every loop consumes at least one byte.

use oxla_ir::{Error, Result};

use super::source::Source;

/// A reader over `src.text`, at byte offset `pos`.
pub(super) struct Cursor<'s, 'a> {
    pub(super) src: &'s Source<'a>,
    bytes: &'a [u8],
    pub(super) pos: usize,
    end: usize,
}

fn is_letter(c: u8) -> bool {
    c.is_ascii_alphabetic()
}

/// Characters after the first of a bare identifier (`stablehlo.add`).
pub(super) fn is_bare_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

/// Characters of a value or block name after `%` or `^` (`%cst_0`, `%12`).
fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

impl<'s, 'a> Cursor<'s, 'a> {
    pub(super) fn new(src: &'s Source<'a>) -> Cursor<'s, 'a> {
        Cursor {
            src,
            bytes: src.text.as_bytes(),
            pos: 0,
            end: src.text.len(),
        }
    }

    /// A cursor over `start..end` of the same text (a span read earlier).
    pub(super) fn sub(&self, start: usize, end: usize) -> Cursor<'s, 'a> {
        Cursor {
            src: self.src,
            bytes: self.bytes,
            pos: start,
            end: end.min(self.bytes.len()),
        }
    }

    pub(super) fn text(&self, start: usize, end: usize) -> &'a str {
        let text: &'a str = self.src.text;
        text.get(start..end).unwrap_or("")
    }

    pub(super) fn err(
        &self,
        pos: usize,
        message: impl Into<String>,
        expected: impl Into<String>,
    ) -> Error {
        self.src.error(pos, message, expected)
    }

    /// The byte at the cursor, without skipping whitespace.
    pub(super) fn peek_raw(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.bytes[self.pos])
    }

    fn byte_at(&self, i: usize) -> Option<u8> {
        (i < self.end).then(|| self.bytes[i])
    }

    /// Skips whitespace and comments, then shows the next byte.
    pub(super) fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.peek_raw()
    }

    pub(super) fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.end
    }

    /// Whether the text at the cursor (after whitespace) starts with `s`.
    pub(super) fn at(&mut self, s: &str) -> bool {
        self.skip_ws();
        self.bytes[self.pos..self.end].starts_with(s.as_bytes())
    }

    /// Skips spaces, newlines and `//` comments.
    pub(super) fn skip_ws(&mut self) {
        while let Some(c) = self.peek_raw() {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
                b'/' if self.byte_at(self.pos + 1) == Some(b'/') => {
                    while let Some(c) = self.peek_raw() {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    /// What is at the cursor, for messages: `` `x` `` or "the end of the input".
    pub(super) fn found(&self) -> String {
        let mut probe = self.sub(self.pos, self.end);
        probe.skip_ws();
        if probe.pos >= self.end {
            return "the end of the input".into();
        }
        let rest = self.text(probe.pos, self.end);
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '%' | '@'))
            .take(40)
            .collect();
        if !word.is_empty() {
            return format!("`{word}`");
        }
        match rest.chars().next() {
            Some(c) if c.is_control() => format!("the control character U+{:04X}", u32::from(c)),
            Some(c) => format!("`{c}`"),
            None => "the end of the input".into(),
        }
    }

    /// Consumes `s` (punctuation) if it comes next.
    pub(super) fn eat(&mut self, s: &str) -> bool {
        if self.at(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Consumes `s`, or fails saying what it was for.
    pub(super) fn expect(&mut self, s: &str, context: &str) -> Result<usize> {
        self.skip_ws();
        let pos = self.pos;
        if self.eat(s) {
            return Ok(pos);
        }
        Err(self.err(
            pos,
            format!("expected `{s}` {context}, found {}", self.found()),
            format!("`{s}` {context}"),
        ))
    }

    /// The bare identifier at the cursor (`[A-Za-z_][A-Za-z0-9_$.]*`), not
    /// consumed; empty when there is none.
    pub(super) fn peek_bare(&mut self) -> &'a str {
        self.skip_ws();
        let mut i = self.pos;
        if i < self.end && (is_letter(self.bytes[i]) || self.bytes[i] == b'_') {
            i += 1;
            while i < self.end && is_bare_char(self.bytes[i]) {
                i += 1;
            }
        }
        self.text(self.pos, i)
    }

    /// Consumes a bare identifier if one comes next.
    pub(super) fn bare(&mut self) -> Option<(&'a str, usize)> {
        let word = self.peek_bare();
        if word.is_empty() {
            return None;
        }
        let pos = self.pos;
        self.pos += word.len();
        Some((word, pos))
    }

    /// Consumes a bare identifier, or fails saying what was expected.
    pub(super) fn expect_bare(&mut self, what: &str) -> Result<(&'a str, usize)> {
        match self.bare() {
            Some(w) => Ok(w),
            None => Err(self.err(
                self.pos,
                format!("expected {what}, found {}", self.found()),
                what.to_string(),
            )),
        }
    }

    /// Consumes the keyword `word` (a whole identifier) if it comes next.
    pub(super) fn eat_keyword(&mut self, word: &str) -> bool {
        if self.peek_bare() == word {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    pub(super) fn expect_keyword(&mut self, word: &str, context: &str) -> Result<usize> {
        self.skip_ws();
        let pos = self.pos;
        if self.eat_keyword(word) {
            return Ok(pos);
        }
        Err(self.err(
            pos,
            format!("expected `{word}` {context}, found {}", self.found()),
            format!("`{word}` {context}"),
        ))
    }

    /// A name after a sigil (`%` or `^`): `%cst_0`, `%12`. Returns the name
    /// without the sigil and the sigil's position.
    pub(super) fn sigil_name(&mut self, sigil: u8, what: &str) -> Result<(&'a str, usize)> {
        self.skip_ws();
        let pos = self.pos;
        if self.peek_raw() != Some(sigil) {
            return Err(self.err(
                pos,
                format!("expected {what}, found {}", self.found()),
                what.to_string(),
            ));
        }
        let mut i = pos + 1;
        while i < self.end && is_suffix_char(self.bytes[i]) {
            i += 1;
        }
        if i == pos + 1 {
            return Err(self.err(
                pos,
                format!("expected {what}: a name after `{}`", sigil as char),
                what.to_string(),
            ));
        }
        self.pos = i;
        Ok((self.text(pos + 1, i), pos))
    }

    /// A non-negative decimal number directly at the cursor (no whitespace,
    /// no sign): a dimension size, a result count, a result index.
    pub(super) fn raw_decimal(&mut self, what: &str) -> Result<i64> {
        let start = self.pos;
        while self.peek_raw().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.err(
                start,
                format!("expected {what}, found {}", self.found()),
                format!("{what} (digits)"),
            ));
        }
        self.text(start, self.pos).parse::<i64>().map_err(|_| {
            self.err(
                start,
                format!(
                    "{what} {} does not fit in 64 bits",
                    self.text(start, self.pos)
                ),
                format!("{what} below 2^63"),
            )
        })
    }

    /// `@name` or `@"quoted name"`; returns the name and the `@`'s position.
    pub(super) fn symbol(&mut self, what: &str) -> Result<(String, usize)> {
        self.skip_ws();
        let pos = self.pos;
        if self.peek_raw() != Some(b'@') {
            return Err(self.err(
                pos,
                format!("expected {what}, found {}", self.found()),
                format!("{what} (`@name`)"),
            ));
        }
        self.pos += 1;
        if self.peek_raw() == Some(b'"') {
            let (s, _) = self.string("a symbol name")?;
            return Ok((s, pos));
        }
        let mut i = self.pos;
        while i < self.end && (is_bare_char(self.bytes[i]) || self.bytes[i] == b'-') {
            i += 1;
        }
        if i == self.pos {
            return Err(self.err(pos, format!("expected {what}: a name after `@`"), what));
        }
        let name = self.text(self.pos, i).to_string();
        self.pos = i;
        Ok((name, pos))
    }

    /// A string literal with MLIR's escapes (`\"`, `\\`, `\n`, `\t`, `\XX`).
    pub(super) fn string(&mut self, what: &str) -> Result<(String, usize)> {
        self.skip_ws();
        let pos = self.pos;
        if self.peek_raw() != Some(b'"') {
            return Err(self.err(
                pos,
                format!("expected {what}, found {}", self.found()),
                format!("{what} (a string in double quotes)"),
            ));
        }
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.peek_raw() else {
                return Err(self.err(pos, "unterminated string", "a closing `\"`"));
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\n' => {
                    return Err(self.err(
                        pos,
                        "unterminated string",
                        "a closing `\"` on this line",
                    ));
                }
                b'\\' => {
                    let Some(e) = self.peek_raw() else {
                        return Err(self.err(pos, "unterminated string", "a closing `\"`"));
                    };
                    self.pos += 1;
                    match e {
                        b'"' | b'\\' => out.push(e),
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        _ => {
                            let hi = (e as char).to_digit(16);
                            let lo = self.peek_raw().and_then(|c| (c as char).to_digit(16));
                            match (hi, lo) {
                                (Some(h), Some(l)) => {
                                    self.pos += 1;
                                    out.push((h * 16 + l) as u8);
                                }
                                _ => {
                                    return Err(self.err(
                                        self.pos - 2,
                                        "invalid escape in a string",
                                        "`\\\"`, `\\\\`, `\\n`, `\\t` or `\\` and two hex digits",
                                    ));
                                }
                            }
                        }
                    }
                }
                _ => out.push(c),
            }
        }
        Ok((String::from_utf8_lossy(&out).into_owned(), pos))
    }

    /// The span of a number at the cursor (`-12`, `0x7FC00000`, `1.5e-3`),
    /// consumed, or `None` (nothing consumed) when no number starts here.
    /// The flag says whether it is a float literal (has `.` or an exponent).
    pub(super) fn number(&mut self) -> Option<(usize, usize, bool)> {
        self.skip_ws();
        let start = self.pos;
        let mut i = start;
        if matches!(self.byte_at(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if !self.byte_at(i).is_some_and(|c| c.is_ascii_digit()) {
            return None;
        }
        if self.byte_at(i) == Some(b'0')
            && self.byte_at(i + 1) == Some(b'x')
            && self.byte_at(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
        {
            i += 2;
            while self.byte_at(i).is_some_and(|c| c.is_ascii_hexdigit()) {
                i += 1;
            }
            self.pos = i;
            return Some((start, i, false));
        }
        while self.byte_at(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        let mut float = false;
        if self.byte_at(i) == Some(b'.') {
            float = true;
            i += 1;
            while self.byte_at(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
        }
        if matches!(self.byte_at(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(self.byte_at(j), Some(b'-' | b'+')) {
                j += 1;
            }
            if self.byte_at(j).is_some_and(|c| c.is_ascii_digit()) {
                float = true;
                i = j;
                while self.byte_at(i).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
            }
        }
        self.pos = i;
        Some((start, i, float))
    }

    /// A signed decimal integer that fits in `i64`.
    pub(super) fn integer(&mut self, what: &str) -> Result<(i64, usize)> {
        self.skip_ws();
        let pos = self.pos;
        match self.number() {
            Some((s, e, false)) => {
                let text = self.text(s, e);
                parse_int(text)
                    .and_then(|v| i64::try_from(v).ok())
                    .map(|v| (v, pos))
                    .ok_or_else(|| {
                        self.err(
                            pos,
                            format!("{what} {text} does not fit in 64 bits"),
                            format!("{what} (a 64-bit integer)"),
                        )
                    })
            }
            Some((s, e, true)) => Err(self.err(
                pos,
                format!("expected {what}, found the float {}", self.text(s, e)),
                format!("{what} (an integer)"),
            )),
            None => Err(self.err(
                pos,
                format!("expected {what}, found {}", self.found()),
                format!("{what} (an integer)"),
            )),
        }
    }

    /// `[1, 2, 3]` of integers.
    pub(super) fn int_list(&mut self, what: &str) -> Result<(Vec<i64>, usize)> {
        let pos = self.expect("[", &format!("opening {what}"))?;
        let mut out = Vec::new();
        if self.eat("]") {
            return Ok((out, pos));
        }
        loop {
            out.push(self.integer(what)?.0);
            if self.eat("]") {
                return Ok((out, pos));
            }
            self.expect(",", &format!("or `]` in {what}"))?;
        }
    }

    /// Skips a bracketed span that begins at the cursor with `open`: nested
    /// brackets of every kind and strings are skipped whole; `->` does not
    /// close a `<`. Returns the span inside the outer brackets.
    pub(super) fn skip_balanced(&mut self, what: &str) -> Result<(usize, usize)> {
        self.skip_ws();
        let start = self.pos;
        let mut stack: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.peek_raw() else {
                return Err(self.err(
                    start,
                    format!("unterminated {what}"),
                    "closing brackets for every opening one",
                ));
            };
            match c {
                b'"' => {
                    self.string(what)?;
                    continue;
                }
                b'(' | b'[' | b'{' | b'<' => stack.push(c),
                b'-' if self.byte_at(self.pos + 1) == Some(b'>') => {
                    self.pos += 2;
                    continue;
                }
                b')' | b']' | b'}' | b'>' => {
                    let open = match c {
                        b')' => b'(',
                        b']' => b'[',
                        b'}' => b'{',
                        _ => b'<',
                    };
                    if stack.pop() != Some(open) {
                        return Err(self.err(
                            self.pos,
                            format!("unbalanced `{}` in {what}", c as char),
                            "matching brackets",
                        ));
                    }
                    if stack.is_empty() {
                        self.pos += 1;
                        return Ok((start + 1, self.pos - 1));
                    }
                }
                _ => {}
            }
            if stack.is_empty() {
                return Err(self.err(start, format!("expected {what}"), "an opening bracket"));
            }
            self.pos += 1;
        }
    }
}

/// An MLIR integer literal (`-12`, `0x1F`) as `i128`; hex is read as an
/// unsigned bit pattern.
pub(super) fn parse_int(text: &str) -> Option<i128> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = match body.strip_prefix("0x") {
        Some(hex) => u128::from_str_radix(hex, 16).ok()?,
        None if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) => {
            body.parse::<u128>().ok()?
        }
        None => return None,
    };
    let v = i128::try_from(magnitude).ok()?;
    Some(if negative { -v } else { v })
}
