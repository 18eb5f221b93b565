//! Writing JSON as serde_json's compact writer does: members in the order given, no
//! spaces, `"` `\` and control characters escaped (`\n`, `\t`, `\r`, `\b`, `\f`,
//! otherwise `\u00XX`), everything else as UTF-8.

/// Appends `text` as a JSON string.
pub fn string(out: &mut String, text: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\t' => "\\t",
            b'\r' => "\\r",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[start..i]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 0xf)] as char);
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&text[start..]);
    out.push('"');
}

/// A JSON object being written: one call per member, closed by [`Object::end`].
pub struct Object<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Object<'a> {
    /// Opens an object at the end of `out`.
    pub fn new(out: &'a mut String) -> Self {
        out.push('{');
        Object { out, first: true }
    }

    fn key(&mut self, key: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        string(self.out, key);
        self.out.push(':');
        self.out
    }

    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        string(self.key(key), value);
        self
    }

    pub fn num(&mut self, key: &str, value: u64) -> &mut Self {
        let out = self.key(key);
        out.push_str(&value.to_string());
        self
    }

    pub fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.key(key).push_str(if value { "true" } else { "false" });
        self
    }

    /// A member whose value `write` appends (an object, an array).
    pub fn with(&mut self, key: &str, write: impl FnOnce(&mut String)) -> &mut Self {
        write(self.key(key));
        self
    }

    /// An array member of strings.
    pub fn strs<'s>(&mut self, key: &str, items: impl IntoIterator<Item = &'s str>) -> &mut Self {
        self.with(key, |out| array(out, items, string))
    }

    pub fn end(&mut self) {
        self.out.push('}');
    }
}

/// Appends `items` as a JSON array, each written by `write`.
pub fn array<T>(out: &mut String, items: impl IntoIterator<Item = T>, mut write: impl FnMut(&mut String, T)) {
    out.push('[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(out, item);
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strings come out byte for byte as serde_json writes them.
    #[test]
    fn strings_as_serde_json_writes_them() {
        let cases = ["", "plain", "quote \" backslash \\ slash /", "lines\n\ttab\r", "\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}", "한국어 é 😀", "[plugins.\"io.containerd.grpc.v1.cri\"]\n"];
        for text in cases {
            let mut out = String::new();
            string(&mut out, text);
            assert_eq!(out, serde_json::to_string(text).unwrap(), "{text:?}");
        }
    }

    /// Objects and arrays: members in order, no spaces.
    #[test]
    fn objects_and_arrays() {
        let mut out = String::new();
        Object::new(&mut out)
            .str("a", "x")
            .num("n", 42)
            .bool("t", true)
            .strs("list", ["p", "q"])
            .with("o", |out| Object::new(out).end())
            .end();
        assert_eq!(out, r#"{"a":"x","n":42,"t":true,"list":["p","q"],"o":{}}"#);
    }
}
