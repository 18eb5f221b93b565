//! `matches()`: an RE2 subset (literals, `.`, classes with ranges and `\d \w \s`,
//! `^ $`, groups, `|`, `* + ? {n,m}`), searched unanchored as RE2's `MatchString`
//! does. A Pike VM: time linear in the text, no backtracking, no recursion in
//! matching; the pattern parser bounds group nesting. Anything else is an error
//! naming the construct.

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Regex {
    prog: Vec<Inst>,
}

#[derive(Debug, Clone)]
enum Inst {
    Char(char),
    Any,
    Class { ranges: Vec<(char, char)>, negated: bool },
    Start,
    End,
    Split(usize, usize),
    Jmp(usize),
    Match,
}

#[derive(Debug, Clone)]
enum Node {
    Empty,
    Char(char),
    Any,
    Class(Vec<(char, char)>, bool),
    Start,
    End,
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, u32, Option<u32>),
}

const MAX_NEST: usize = 32;
const MAX_REPEAT: u32 = 1000;
const MAX_PROG: usize = 10_000;

impl Regex {
    pub fn new(pattern: &str) -> Result<Regex, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut pos = 0;
        let node = parse_alt(&chars, &mut pos, 0)?;
        if pos < chars.len() {
            return Err(format!("error parsing regexp: unexpected ): `{pattern}`"));
        }
        let mut prog = Vec::new();
        emit(&node, &mut prog)?;
        prog.push(Inst::Match);
        Ok(Regex { prog })
    }

    /// Whether the pattern matches anywhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        let mut current: Vec<usize> = Vec::new();
        let mut seen = vec![usize::MAX; self.prog.len()];
        for i in 0..=chars.len() {
            // Unanchored: a new thread starts at every position.
            self.add(&mut current, &mut seen, 0, i, &chars);
            if current.iter().any(|&pc| matches!(self.prog.get(pc), Some(Inst::Match))) {
                return true;
            }
            let Some(&c) = chars.get(i) else { break };
            let mut next = Vec::new();
            for &pc in &current {
                let step = match self.prog.get(pc) {
                    Some(Inst::Char(x)) => *x == c,
                    Some(Inst::Any) => c != '\n',
                    Some(Inst::Class { ranges, negated }) => ranges.iter().any(|(a, b)| (*a..=*b).contains(&c)) != *negated,
                    _ => false,
                };
                if step {
                    self.add(&mut next, &mut seen, pc + 1, i + 1, &chars);
                }
            }
            current = next;
        }
        false
    }

    /// Follows splits, jumps and assertions with an explicit stack.
    fn add(&self, list: &mut Vec<usize>, seen: &mut [usize], pc: usize, at: usize, chars: &[char]) {
        let mut stack = vec![pc];
        while let Some(pc) = stack.pop() {
            match seen.get_mut(pc) {
                Some(s) if *s == at => continue,
                Some(s) => *s = at,
                None => continue,
            }
            match self.prog.get(pc) {
                Some(Inst::Split(a, b)) => {
                    stack.push(*b);
                    stack.push(*a);
                }
                Some(Inst::Jmp(a)) => stack.push(*a),
                Some(Inst::Start) if at == 0 => stack.push(pc + 1),
                Some(Inst::End) if at == chars.len() => stack.push(pc + 1),
                Some(Inst::Start | Inst::End) => {}
                Some(_) => list.push(pc),
                None => {}
            }
        }
    }
}

fn parse_alt(c: &[char], pos: &mut usize, depth: usize) -> Result<Node, String> {
    if depth > MAX_NEST {
        return Err(format!("groups nested deeper than {MAX_NEST} are not in the lab's regexp subset"));
    }
    let mut alts = vec![parse_concat(c, pos, depth)?];
    while c.get(*pos) == Some(&'|') {
        *pos += 1;
        alts.push(parse_concat(c, pos, depth)?);
    }
    Ok(if alts.len() == 1 { alts.pop().unwrap_or(Node::Empty) } else { Node::Alt(alts) })
}

fn parse_concat(c: &[char], pos: &mut usize, depth: usize) -> Result<Node, String> {
    let mut items: Vec<Node> = Vec::new();
    while let Some(&ch) = c.get(*pos) {
        if ch == '|' || ch == ')' {
            break;
        }
        *pos += 1;
        let atom = match ch {
            '(' => {
                if c.get(*pos) == Some(&'?') {
                    if c.get(*pos + 1) == Some(&':') {
                        *pos += 2;
                    } else {
                        return Err("`(?` flags and lookarounds are not in the lab's regexp subset".into());
                    }
                }
                let inner = parse_alt(c, pos, depth + 1)?;
                if c.get(*pos) != Some(&')') {
                    return Err("error parsing regexp: missing closing ): ".into());
                }
                *pos += 1;
                inner
            }
            '.' => Node::Any,
            '^' => Node::Start,
            '$' => Node::End,
            '[' => parse_class(c, pos)?,
            '\\' => escape(c, pos)?,
            '*' | '+' | '?' | '{' => return Err(format!("error parsing regexp: missing argument to repetition operator: `{ch}`")),
            other => Node::Char(other),
        };
        let atom = repetition(c, pos, atom)?;
        items.push(atom);
    }
    Ok(match items.len() {
        0 => Node::Empty,
        1 => items.pop().unwrap_or(Node::Empty),
        _ => Node::Concat(items),
    })
}

fn repetition(c: &[char], pos: &mut usize, atom: Node) -> Result<Node, String> {
    let (min, max) = match c.get(*pos) {
        Some('*') => (0, None),
        Some('+') => (1, None),
        Some('?') => (0, Some(1)),
        Some('{') => {
            let close = c.get(*pos..).and_then(|r| r.iter().position(|&x| x == '}'));
            let Some(close) = close else { return Ok(atom) };
            let body: String = c.get(*pos + 1..*pos + close).unwrap_or_default().iter().collect();
            let (a, b) = match body.split_once(',') {
                Some((a, "")) => (a.parse::<u32>().ok(), Some(None)),
                Some((a, b)) => (a.parse::<u32>().ok(), Some(b.parse::<u32>().ok())),
                None => (body.parse::<u32>().ok(), Some(body.parse::<u32>().ok())),
            };
            let (Some(min), Some(max)) = (a, b) else { return Ok(atom) };
            if min > MAX_REPEAT || max.is_some_and(|m| m > MAX_REPEAT || m < min) {
                return Err(format!("error parsing regexp: invalid repeat count: `{{{body}}}`"));
            }
            *pos += close;
            (min, max)
        }
        _ => return Ok(atom),
    };
    *pos += 1;
    if c.get(*pos) == Some(&'?') {
        *pos += 1; // lazy: the same set of matches for a yes/no answer
    }
    if matches!(c.get(*pos), Some('*' | '+')) {
        return Err("error parsing regexp: invalid nested repetition operator".into());
    }
    Ok(Node::Repeat(Box::new(atom), min, max))
}

fn class_escape(e: char) -> Option<(Vec<(char, char)>, bool)> {
    let digits = vec![('0', '9')];
    let word = vec![('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
    let space = vec![('\t', '\n'), ('\u{c}', '\r'), (' ', ' ')];
    Some(match e {
        'd' => (digits, false),
        'D' => (digits, true),
        'w' => (word, false),
        'W' => (word, true),
        's' => (space, false),
        'S' => (space, true),
        _ => return None,
    })
}

fn escape(c: &[char], pos: &mut usize) -> Result<Node, String> {
    let Some(&e) = c.get(*pos) else { return Err("error parsing regexp: trailing backslash at end of expression: ``".into()) };
    *pos += 1;
    if let Some((r, n)) = class_escape(e) {
        return Ok(Node::Class(r, n));
    }
    match e {
        'n' => Ok(Node::Char('\n')),
        't' => Ok(Node::Char('\t')),
        c if c.is_ascii_punctuation() => Ok(Node::Char(c)),
        other => Err(format!("error parsing regexp: invalid escape sequence: `\\{other}`")),
    }
}

fn parse_class(c: &[char], pos: &mut usize) -> Result<Node, String> {
    let negated = c.get(*pos) == Some(&'^');
    if negated {
        *pos += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let Some(&ch) = c.get(*pos) else { return Err("error parsing regexp: missing closing ]".into()) };
        *pos += 1;
        if ch == ']' && !first {
            break;
        }
        first = false;
        let lo = if ch == '\\' {
            let Some(&e) = c.get(*pos) else { return Err("error parsing regexp: missing closing ]".into()) };
            *pos += 1;
            if let Some((r, n)) = class_escape(e) {
                if n {
                    return Err(format!("negated `\\{e}` inside a class is not in the lab's regexp subset"));
                }
                ranges.extend(r);
                continue;
            }
            e
        } else if ch == '[' && c.get(*pos) == Some(&':') {
            return Err("POSIX classes `[:name:]` are not in the lab's regexp subset".into());
        } else {
            ch
        };
        if c.get(*pos) == Some(&'-') && c.get(*pos + 1).is_some_and(|&n| n != ']') {
            let hi = c.get(*pos + 1).copied().unwrap_or(lo);
            *pos += 2;
            if hi < lo {
                return Err(format!("error parsing regexp: invalid character class range: `{lo}-{hi}`"));
            }
            ranges.push((lo, hi));
        } else {
            ranges.push((lo, lo));
        }
    }
    Ok(Node::Class(ranges, negated))
}

fn emit(n: &Node, p: &mut Vec<Inst>) -> Result<(), String> {
    if p.len() > MAX_PROG {
        return Err("error parsing regexp: expression too large".into());
    }
    match n {
        Node::Empty => {}
        Node::Char(c) => p.push(Inst::Char(*c)),
        Node::Any => p.push(Inst::Any),
        Node::Class(r, neg) => p.push(Inst::Class { ranges: r.clone(), negated: *neg }),
        Node::Start => p.push(Inst::Start),
        Node::End => p.push(Inst::End),
        Node::Concat(items) => {
            for i in items {
                emit(i, p)?;
            }
        }
        Node::Alt(alts) => {
            let mut jumps = Vec::new();
            for (i, a) in alts.iter().enumerate() {
                if i + 1 < alts.len() {
                    let split = p.len();
                    p.push(Inst::Split(split + 1, 0));
                    emit(a, p)?;
                    jumps.push(p.len());
                    p.push(Inst::Jmp(0));
                    let next = p.len();
                    if let Some(Inst::Split(_, b)) = p.get_mut(split) {
                        *b = next;
                    }
                } else {
                    emit(a, p)?;
                }
            }
            let end = p.len();
            for j in jumps {
                if let Some(Inst::Jmp(t)) = p.get_mut(j) {
                    *t = end;
                }
            }
        }
        Node::Repeat(atom, min, max) => {
            for _ in 0..*min {
                emit(atom, p)?;
            }
            match max {
                None => {
                    let split = p.len();
                    p.push(Inst::Split(split + 1, 0));
                    emit(atom, p)?;
                    p.push(Inst::Jmp(split));
                    let end = p.len();
                    if let Some(Inst::Split(_, b)) = p.get_mut(split) {
                        *b = end;
                    }
                }
                Some(max) => {
                    for _ in *min..*max {
                        let split = p.len();
                        p.push(Inst::Split(split + 1, 0));
                        emit(atom, p)?;
                        let end = p.len();
                        if let Some(Inst::Split(_, b)) = p.get_mut(split) {
                            *b = end;
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
