//! CEL's lexer (cel-go `parser/gen/CEL.g4`'s tokens) for the subset the lab reads.
//! Columns are 1-based and count characters, as cel-go's error locations do.

use super::error::CelError;

/// One token and the column it starts at.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub kind: Tok,
    pub column: u32,
}

/// The token kinds of CEL.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    Int(i64),
    /// An int literal one past `i64::MAX`, legal only after a unary minus.
    IntMinMagnitude,
    Uint(u64),
    Double(f64),
    Str(String),
    True,
    False,
    Null,
    In,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Dot,
    Comma,
    Colon,
    Question,
    Not,
    Minus,
    Plus,
    Star,
    Slash,
    Percent,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Eof,
}

impl Tok {
    /// How the token is spelled in cel-go's syntax errors.
    pub fn spelling(&self) -> String {
        match self {
            Tok::Ident(s) => s.clone(),
            Tok::Int(i) => i.to_string(),
            Tok::IntMinMagnitude => "9223372036854775808".into(),
            Tok::Uint(u) => format!("{u}u"),
            Tok::Double(d) => d.to_string(),
            Tok::Str(s) => format!("{s:?}"),
            Tok::True => "true".into(),
            Tok::False => "false".into(),
            Tok::Null => "null".into(),
            Tok::In => "in".into(),
            Tok::Eof => "<EOF>".into(),
            other => other.punct().to_string(),
        }
    }

    fn punct(&self) -> &'static str {
        match self {
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Dot => ".",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Question => "?",
            Tok::Not => "!",
            Tok::Minus => "-",
            Tok::Plus => "+",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Eq => "==",
            Tok::Ne => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::And => "&&",
            Tok::Or => "||",
            _ => "",
        }
    }
}

/// CEL's reserved words (the spec's "reserved identifiers"); using one as a name is
/// a syntax error upstream.
const RESERVED: [&str; 15] = [
    "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package",
    "namespace", "return", "var",
];

/// Splits `src` into tokens. Iterative; never panics.
pub fn lex(src: &str) -> Result<Vec<Token>, CelError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0usize;
    let at = |i: usize| chars.get(i).copied();
    while let Some(c) = at(i) {
        let column = i as u32 + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        // `//` comments run to the end of the line.
        if c == '/' && at(i + 1) == Some('/') {
            while at(i).is_some_and(|c| c != '\n') {
                i += 1;
            }
            continue;
        }
        let two = |a: char, b: char| c == a && at(i + 1) == Some(b);
        let punct2 = [
            ('=', '=', Tok::Eq),
            ('!', '=', Tok::Ne),
            ('<', '=', Tok::Le),
            ('>', '=', Tok::Ge),
            ('&', '&', Tok::And),
            ('|', '|', Tok::Or),
        ];
        if let Some((_, _, t)) = punct2.iter().find(|(a, b, _)| two(*a, *b)) {
            out.push(Token { kind: t.clone(), column });
            i += 2;
            continue;
        }
        let single = match c {
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            '[' => Some(Tok::LBracket),
            ']' => Some(Tok::RBracket),
            '{' => Some(Tok::LBrace),
            '}' => Some(Tok::RBrace),
            ',' => Some(Tok::Comma),
            ':' => Some(Tok::Colon),
            '?' => Some(Tok::Question),
            '!' => Some(Tok::Not),
            '-' => Some(Tok::Minus),
            '+' => Some(Tok::Plus),
            '*' => Some(Tok::Star),
            '/' => Some(Tok::Slash),
            '%' => Some(Tok::Percent),
            '<' => Some(Tok::Lt),
            '>' => Some(Tok::Gt),
            '.' if !at(i + 1).is_some_and(|d| d.is_ascii_digit()) => Some(Tok::Dot),
            _ => None,
        };
        if let Some(t) = single {
            out.push(Token { kind: t, column });
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || c == '.' {
            let (tok, next) = number(&chars, i)?;
            out.push(Token { kind: tok, column });
            i = next;
            continue;
        }
        // String prefixes: r / R raw strings; b / B bytes (not in the subset).
        let prefix = matches!(c, 'r' | 'R' | 'b' | 'B') && matches!(at(i + 1), Some('"' | '\''));
        if c == '"' || c == '\'' || prefix {
            if matches!(c, 'b' | 'B') {
                return Err(CelError::unsupported("bytes literals", column));
            }
            let raw = matches!(c, 'r' | 'R');
            let start = if raw { i + 1 } else { i };
            let (s, next) = string(&chars, start, raw, column)?;
            out.push(Token { kind: Tok::Str(s), column });
            i = next;
            continue;
        }
        if c == '_' || c.is_ascii_alphabetic() {
            let start = i;
            while at(i).is_some_and(|c| c == '_' || c.is_ascii_alphanumeric()) {
                i += 1;
            }
            let word: String = chars.get(start..i).unwrap_or_default().iter().collect();
            let kind = match word.as_str() {
                "true" => Tok::True,
                "false" => Tok::False,
                "null" => Tok::Null,
                "in" => Tok::In,
                w if RESERVED.contains(&w) => {
                    return Err(CelError::syntax(format!("reserved identifier: {w}"), column));
                }
                _ => Tok::Ident(word),
            };
            out.push(Token { kind, column });
            continue;
        }
        if c == '`' {
            return Err(CelError::unsupported("backquoted field names", column));
        }
        // ANTLR's text runs to where the lexer gave up: for `=` (half of `==`) and
        // friends that is one character more.
        let text: String = match (c, at(i + 1)) {
            ('=' | '&' | '|', Some(n)) => [c, n].iter().collect(),
            _ => c.to_string(),
        };
        return Err(CelError::syntax(format!("token recognition error at: '{text}'"), column));
    }
    out.push(Token { kind: Tok::Eof, column: chars.len() as u32 + 1 });
    Ok(out)
}

fn number(chars: &[char], start: usize) -> Result<(Tok, usize), CelError> {
    let column = start as u32 + 1;
    let at = |i: usize| chars.get(i).copied();
    let mut i = start;
    if at(i) == Some('0') && matches!(at(i + 1), Some('x' | 'X')) {
        i += 2;
        let digits_from = i;
        while at(i).is_some_and(|c| c.is_ascii_hexdigit()) {
            i += 1;
        }
        let text: String = chars.get(digits_from..i).unwrap_or_default().iter().collect();
        let unsigned = matches!(at(i), Some('u' | 'U'));
        let v = u64::from_str_radix(&text, 16).map_err(|_| CelError::syntax("invalid int literal", column))?;
        return if unsigned {
            Ok((Tok::Uint(v), i + 1))
        } else {
            int_token(v, column).map(|t| (t, i))
        };
    }
    while at(i).is_some_and(|c| c.is_ascii_digit()) {
        i += 1;
    }
    let mut double = false;
    if at(i) == Some('.') && at(i + 1).is_some_and(|c| c.is_ascii_digit()) {
        double = true;
        i += 1;
        while at(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
    }
    if matches!(at(i), Some('e' | 'E')) {
        let mut j = i + 1;
        if matches!(at(j), Some('+' | '-')) {
            j += 1;
        }
        if at(j).is_some_and(|c| c.is_ascii_digit()) {
            double = true;
            i = j;
            while at(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
        }
    }
    let text: String = chars.get(start..i).unwrap_or_default().iter().collect();
    if double {
        let v: f64 = text.parse().map_err(|_| CelError::syntax("invalid double literal", column))?;
        return Ok((Tok::Double(v), i));
    }
    if matches!(at(i), Some('u' | 'U')) {
        let v: u64 = text.parse().map_err(|_| CelError::syntax("invalid uint literal", column))?;
        return Ok((Tok::Uint(v), i + 1));
    }
    let v: u64 = text.parse().map_err(|_| CelError::syntax("invalid int literal", column))?;
    int_token(v, column).map(|t| (t, i))
}

fn int_token(v: u64, column: u32) -> Result<Tok, CelError> {
    match i64::try_from(v) {
        Ok(i) => Ok(Tok::Int(i)),
        Err(_) if v == 1u64 << 63 => Ok(Tok::IntMinMagnitude),
        Err(_) => Err(CelError::syntax("invalid int literal", column)),
    }
}

/// A quoted string from `chars[start]` (the opening quote). Triple quotes are not
/// in the subset.
fn string(chars: &[char], start: usize, raw: bool, column: u32) -> Result<(String, usize), CelError> {
    let at = |i: usize| chars.get(i).copied();
    let Some(q) = at(start) else { return Err(CelError::syntax("unterminated string", column)) };
    if at(start + 1) == Some(q) && at(start + 2) == Some(q) {
        return Err(CelError::unsupported("triple-quoted strings", column));
    }
    let mut s = String::new();
    let mut i = start + 1;
    loop {
        let Some(c) = at(i) else {
            return Err(CelError::syntax(format!("token recognition error at: '{}'", tail(chars, start)), column));
        };
        if c == q {
            return Ok((s, i + 1));
        }
        if c == '\n' {
            return Err(CelError::syntax(format!("token recognition error at: '{}'", tail(chars, start)), column));
        }
        if c == '\\' && !raw {
            let e = at(i + 1).unwrap_or('\\');
            let ch = match e {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                '\\' => '\\',
                '\'' => '\'',
                '"' => '"',
                '`' => '`',
                '?' => '?',
                'a' => '\u{7}',
                'b' => '\u{8}',
                'f' => '\u{c}',
                'v' => '\u{b}',
                _ => return Err(CelError::unsupported(format!("the string escape \\{e}"), i as u32 + 1)),
            };
            s.push(ch);
            i += 2;
            continue;
        }
        s.push(c);
        i += 1;
    }
}

fn tail(chars: &[char], start: usize) -> String {
    chars.get(start..).unwrap_or_default().iter().take_while(|c| **c != '\n').collect()
}
