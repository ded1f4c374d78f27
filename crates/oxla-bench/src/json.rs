//! A small JSON reader for the two files the model benchmark reads: a
//! model's `meta.json` and the measurements `bench.py --json` writes.
//!
//! The workspace has no JSON crate and the benchmark needs a few fields
//! from trusted, machine-written files, so this is a plain recursive-descent
//! reader of RFC 8259 values (numbers as `f64`, `\uXXXX` escapes outside the
//! basic plane kept as the replacement character). Bad input is an error
//! naming the byte offset, never a panic.

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`, and the `NaN`/`Infinity` Python's `json` writes.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// Any number.
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, keys in file order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Parses one JSON document.
    ///
    /// ```
    /// use oxla_bench::json::Json;
    /// let v = Json::parse(r#"{"a": [1, 2.5, "x"], "b": null}"#).unwrap();
    /// assert_eq!(v.get("a").and_then(|a| a.at(1)).and_then(Json::as_f64), Some(2.5));
    /// assert_eq!(v.get("b"), Some(&Json::Null));
    /// assert!(Json::parse("{\"a\": }").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("JSON: trailing text at byte {}", p.i));
        }
        Ok(v)
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) | Json::Array(_) => None,
        }
    }

    /// Element `k` of an array.
    pub fn at(&self, k: usize) -> Option<&Json> {
        self.as_array().and_then(|a| a.get(k))
    }

    /// The elements of an array.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::String(_) | Json::Object(_) => {
                None
            }
        }
    }

    /// A number's value.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(x) => Some(*x),
            Json::Null | Json::Bool(_) | Json::String(_) | Json::Array(_) | Json::Object(_) => None,
        }
    }

    /// A string's text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            Json::Null | Json::Bool(_) | Json::Number(_) | Json::Array(_) | Json::Object(_) => None,
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("JSON: {what} at byte {}", self.i))
    }

    fn eat(&mut self, word: &str) -> bool {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        let Some(&c) = self.s.get(self.i) else {
            return self.err("unexpected end");
        };
        match c {
            b'{' => {
                self.i += 1;
                let mut members = Vec::new();
                self.ws();
                if self.eat("}") {
                    return Ok(Json::Object(members));
                }
                loop {
                    self.ws();
                    let Json::String(key) = self.value()? else {
                        return self.err("expected a string key");
                    };
                    self.ws();
                    if !self.eat(":") {
                        return self.err("expected `:`");
                    }
                    members.push((key, self.value()?));
                    self.ws();
                    if self.eat("}") {
                        return Ok(Json::Object(members));
                    }
                    if !self.eat(",") {
                        return self.err("expected `,` or `}`");
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.eat("]") {
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    if self.eat("]") {
                        return Ok(Json::Array(items));
                    }
                    if !self.eat(",") {
                        return self.err("expected `,` or `]`");
                    }
                }
            }
            b'"' => self.string().map(Json::String),
            _ if self.eat("true") => Ok(Json::Bool(true)),
            _ if self.eat("false") => Ok(Json::Bool(false)),
            _ if self.eat("null") || self.eat("NaN") => Ok(Json::Null),
            _ if self.eat("Infinity") => Ok(Json::Number(f64::INFINITY)),
            _ if self.eat("-Infinity") => Ok(Json::Number(f64::NEG_INFINITY)),
            _ => {
                let start = self.i;
                while self.i < self.s.len()
                    && matches!(
                        self.s[self.i],
                        b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'
                    )
                {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                match text.parse::<f64>() {
                    Ok(x) if !text.is_empty() => Ok(Json::Number(x)),
                    _ => {
                        self.i = start;
                        self.err("expected a value")
                    }
                }
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1; // the opening quote
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return self.err("unterminated string");
            };
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).or_else(|_| self.err("invalid UTF-8")),
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else {
                        return self.err("unterminated escape");
                    };
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hex = self
                                .s
                                .get(self.i..self.i + 4)
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u32::from_str_radix(h, 16).ok());
                            let Some(code) = hex else {
                                return self.err("bad \\u escape");
                            };
                            self.i += 4;
                            char::from_u32(code).unwrap_or('\u{fffd}')
                        }
                        _ => return self.err("bad escape"),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                _ => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Json;

    #[test]
    fn reads_nested_values_escapes_and_python_specials() {
        let v = Json::parse(
            r#" {"s": "a\"b\\c\u00e9\n", "n": -1.5e3, "t": true, "f": false,
                 "x": NaN, "i": Infinity, "e": [], "o": {}, "a": [[1], {"k": 2}]} "#,
        )
        .unwrap();
        assert_eq!(v.get("s").and_then(Json::as_str), Some("a\"b\\cé\n"));
        assert_eq!(v.get("n").and_then(Json::as_f64), Some(-1500.0));
        assert_eq!(v.get("t"), Some(&Json::Bool(true)));
        assert_eq!(v.get("f"), Some(&Json::Bool(false)));
        assert_eq!(v.get("x"), Some(&Json::Null));
        assert_eq!(v.get("i").and_then(Json::as_f64), Some(f64::INFINITY));
        assert_eq!(
            v.get("e").and_then(Json::as_array).map(<[Json]>::len),
            Some(0)
        );
        assert_eq!(v.get("o"), Some(&Json::Object(vec![])));
        let a = v.get("a").unwrap();
        assert_eq!(
            a.at(0).and_then(|x| x.at(0)).and_then(Json::as_f64),
            Some(1.0)
        );
        assert_eq!(
            a.at(1).and_then(|x| x.get("k")).and_then(Json::as_f64),
            Some(2.0)
        );
        assert_eq!(v.get("missing"), None);
    }

    #[test]
    fn bad_documents_are_errors_with_an_offset() {
        for bad in [
            "",
            "{",
            "[1,",
            "{\"a\" 1}",
            "\"abc",
            "tru",
            "[1] 2",
            "{1: 2}",
            "\"\\q\"",
        ] {
            let e = Json::parse(bad).unwrap_err();
            assert!(e.contains("at byte"), "{bad}: {e}");
        }
    }
}
