//! CEL's grammar (cel-go `parser/gen/CEL.g4`) by recursive descent, with cel-go's
//! macro expansion (`has`, `all`, `exists`, `exists_one`, `cel.bind`).
//!
//! Bad input never overflows the stack: every recursion goes through [`Parser::expr`],
//! which counts nesting, and every node knows its depth ([`ast::MAX_DEPTH`]); chains
//! of operators are read in loops, `&&`/`||` chains become one flat node (cel-go
//! balances them for the same reason), and runs of `!` or `-` collapse as cel-go's
//! parser collapses them (an even run is the operand itself).
//!
//! Syntax-error wording follows ANTLR's for the common cases (`mismatched input`,
//! `extraneous input`, `missing ')'`); the column is always cel-go's.

use super::ast::{BinOp, Expr, ExprKind, Quantifier, MAX_DEPTH};
use super::error::CelError;
use super::lexer::{lex, Tok, Token};

/// What ANTLR lists when a primary expression was expected.
const EXPECTING_PRIMARY: &str = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

/// Parses one expression.
pub fn parse(src: &str) -> Result<Expr, CelError> {
    let toks = lex(src)?;
    let mut p = Parser { toks, pos: 0, nest: 0 };
    let e = p.expr()?;
    let t = p.peek();
    if t.kind != Tok::Eof {
        return Err(CelError::syntax(format!("extraneous input '{}' expecting <EOF>", t.kind.spelling()), t.column));
    }
    Ok(e)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    nest: u16,
}

/// A node over `children`, refused when it would be too deep.
fn node(kind: ExprKind, column: u32, children: &[&Expr]) -> Result<Expr, CelError> {
    let depth = 1 + children.iter().map(|c| c.depth).max().unwrap_or(0);
    if depth > MAX_DEPTH {
        return Err(CelError::unsupported(format!("an expression nested deeper than {MAX_DEPTH}"), column));
    }
    Ok(Expr { kind, column, depth })
}

impl Parser {
    fn peek(&self) -> Token {
        self.toks.get(self.pos).cloned().unwrap_or(Token { kind: Tok::Eof, column: 1 })
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, kind: &Tok) -> bool {
        if &self.peek().kind == kind {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, kind: Tok) -> Result<Token, CelError> {
        let t = self.peek();
        if t.kind == kind {
            self.pos += 1;
            return Ok(t);
        }
        Err(CelError::syntax(format!("missing '{}' at '{}'", kind.spelling(), t.kind.spelling()), t.column))
    }

    /// `Expr = ConditionalOr ["?" ConditionalOr ":" Expr]`
    fn expr(&mut self) -> Result<Expr, CelError> {
        self.nest += 1;
        if self.nest > MAX_DEPTH {
            return Err(CelError::unsupported(
                format!("an expression nested deeper than {MAX_DEPTH}"),
                self.peek().column,
            ));
        }
        let r = self.conditional();
        self.nest -= 1;
        r
    }

    fn conditional(&mut self) -> Result<Expr, CelError> {
        let cond = self.logical(true)?;
        let q = self.peek();
        if !self.eat(&Tok::Question) {
            return Ok(cond);
        }
        let then = self.logical(true)?;
        self.expect(Tok::Colon)?;
        let otherwise = self.expr()?;
        let children = [&cond, &then, &otherwise];
        let kind = ExprKind::Cond { cond: Box::new(cond.clone()), then: Box::new(then.clone()), otherwise: Box::new(otherwise.clone()) };
        node(kind, q.column, &children)
    }

    /// `||` chains (`or`) over `&&` chains; each chain is one flat node.
    fn logical(&mut self, or: bool) -> Result<Expr, CelError> {
        let (tok, first) = if or { (Tok::Or, self.logical(false)?) } else { (Tok::And, self.binary_level(0)?) };
        if self.peek().kind != tok {
            return Ok(first);
        }
        let column = self.peek().column;
        let mut items = vec![first];
        while self.eat(&tok) {
            items.push(if or { self.logical(false)? } else { self.binary_level(0)? });
        }
        let refs: Vec<&Expr> = items.iter().collect();
        let depth_check = node(ExprKind::Null, column, &refs)?;
        let kind = if or { ExprKind::Or(items) } else { ExprKind::And(items) };
        Ok(Expr { kind, column, depth: depth_check.depth })
    }

    /// The three left-associative levels, read in loops: relations (0), additions
    /// (1), multiplications (2).
    fn binary_level(&mut self, level: u8) -> Result<Expr, CelError> {
        let operand = |p: &mut Self| if level < 2 { p.binary_level(level + 1) } else { p.unary() };
        let mut left = operand(self)?;
        loop {
            let t = self.peek();
            let op = match (level, &t.kind) {
                (0, Tok::Eq) => BinOp::Eq,
                (0, Tok::Ne) => BinOp::Ne,
                (0, Tok::Lt) => BinOp::Lt,
                (0, Tok::Le) => BinOp::Le,
                (0, Tok::Gt) => BinOp::Gt,
                (0, Tok::Ge) => BinOp::Ge,
                (0, Tok::In) => BinOp::In,
                (1, Tok::Plus) => BinOp::Add,
                (1, Tok::Minus) => BinOp::Sub,
                (2, Tok::Star) => BinOp::Mul,
                (2, Tok::Slash) => BinOp::Div,
                (2, Tok::Percent) => BinOp::Rem,
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = operand(self)?;
            left = binary(op, left, right, t.column)?;
        }
    }

    fn unary(&mut self) -> Result<Expr, CelError> {
        let first = self.peek();
        let (is_not, is_neg) = (first.kind == Tok::Not, first.kind == Tok::Minus);
        if !is_not && !is_neg {
            return self.member();
        }
        let mut count = 0usize;
        while self.peek().kind == first.kind {
            self.pos += 1;
            count += 1;
        }
        // `-9223372036854775808` is the one literal that needs its minus.
        if is_neg && !count.is_multiple_of(2) && self.peek().kind == Tok::IntMinMagnitude {
            self.pos += 1;
            let lit = node(ExprKind::Int(i64::MIN), first.column, &[])?;
            return self.member_suffixes(lit);
        }
        if is_neg && !count.is_multiple_of(2) {
            if let Tok::Int(i) = self.peek().kind {
                // cel-go folds a minus into a following number literal.
                if !matches!(self.toks.get(self.pos + 1).map(|t| &t.kind), Some(Tok::Dot | Tok::LBracket)) {
                    self.pos += 1;
                    return node(ExprKind::Int(-i), first.column, &[]);
                }
            }
            if let Tok::Double(d) = self.peek().kind {
                self.pos += 1;
                return node(ExprKind::Double(-d), first.column, &[]);
            }
        }
        let operand = self.member()?;
        if count.is_multiple_of(2) {
            return Ok(operand);
        }
        let kind = if is_not { ExprKind::Not(Box::new(operand.clone())) } else { ExprKind::Neg(Box::new(operand.clone())) };
        node(kind, first.column, &[&operand])
    }

    fn member(&mut self) -> Result<Expr, CelError> {
        let primary = self.primary()?;
        self.member_suffixes(primary)
    }

    /// `.field`, `.method(args)`, `[index]`, read in a loop.
    fn member_suffixes(&mut self, mut e: Expr) -> Result<Expr, CelError> {
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Dot => {
                    self.pos += 1;
                    let name_tok = self.bump();
                    let name = match name_tok.kind {
                        Tok::Ident(n) => n,
                        Tok::Question => return Err(CelError::unsupported("optional field selection `.?`", t.column)),
                        other => {
                            return Err(CelError::syntax(
                                format!("mismatched input '{}' expecting IDENTIFIER", other.spelling()),
                                name_tok.column,
                            ))
                        }
                    };
                    if self.peek().kind == Tok::LParen {
                        let open = self.bump();
                        let args = self.args(Tok::RParen)?;
                        e = self.member_call(e, name, args, open.column)?;
                    } else {
                        let kind = ExprKind::Select { operand: Box::new(e.clone()), field: name, test: false };
                        e = node(kind, t.column, &[&e])?;
                    }
                }
                Tok::LBracket => {
                    self.pos += 1;
                    if self.peek().kind == Tok::Question {
                        return Err(CelError::unsupported("optional index `[?`", t.column));
                    }
                    let index = self.expr()?;
                    self.expect(Tok::RBracket)?;
                    let kind = ExprKind::Index { operand: Box::new(e.clone()), index: Box::new(index.clone()) };
                    e = node(kind, t.column, &[&e, &index])?;
                }
                Tok::LBrace => {
                    return Err(CelError::unsupported("message construction `Type{…}`", t.column));
                }
                _ => return Ok(e),
            }
        }
    }

    /// Comma-separated expressions up to `close` (consumed); a trailing comma is
    /// allowed in lists as in cel-go.
    fn args(&mut self, close: Tok) -> Result<Vec<Expr>, CelError> {
        let mut out = Vec::new();
        if self.eat(&close) {
            return Ok(out);
        }
        loop {
            out.push(self.expr()?);
            if self.eat(&Tok::Comma) {
                if close == Tok::RBracket && self.eat(&close) {
                    return Ok(out);
                }
                continue;
            }
            self.expect(close)?;
            return Ok(out);
        }
    }

    fn member_call(&mut self, target: Expr, name: String, mut args: Vec<Expr>, column: u32) -> Result<Expr, CelError> {
        // cel.bind(var, init, body)
        if name == "bind" && matches!(&target.kind, ExprKind::Ident(n) if n == "cel") {
            if args.len() != 3 {
                return Err(CelError::check(
                    format!("found no matching overload for 'cel.bind' applied to '({} args)'", args.len()),
                    column,
                ));
            }
            let body = args.pop().unwrap_or_else(null);
            let init = args.pop().unwrap_or_else(null);
            let var = args.pop().unwrap_or_else(null);
            let ExprKind::Ident(var_name) = &var.kind else {
                return Err(CelError::check("cel.bind() variable names must be simple identifiers", var.column));
            };
            let kind = ExprKind::Bind { var: var_name.clone(), init: Box::new(init.clone()), body: Box::new(body.clone()) };
            return node(kind, column, &[&init, &body]);
        }
        let quantifier = match name.as_str() {
            "all" => Some(Quantifier::All),
            "exists" => Some(Quantifier::Exists),
            "exists_one" => Some(Quantifier::ExistsOne),
            "map" | "filter" | "transformList" | "transformMap" | "sortBy" => {
                return Err(CelError::unsupported(format!("the `{name}` macro"), column));
            }
            _ => None,
        };
        if let Some(quantifier) = quantifier {
            if args.len() == 2 {
                let predicate = args.pop().unwrap_or_else(null);
                let var = args.pop().unwrap_or_else(null);
                let ExprKind::Ident(var_name) = &var.kind else {
                    return Err(CelError::check("argument must be a simple name", var.column));
                };
                let kind = ExprKind::Comprehension {
                    quantifier,
                    var: var_name.clone(),
                    range: Box::new(target.clone()),
                    predicate: Box::new(predicate.clone()),
                };
                return node(kind, column, &[&target, &predicate]);
            }
        }
        let refs: Vec<&Expr> = std::iter::once(&target).chain(args.iter()).collect();
        let depth = node(ExprKind::Null, column, &refs)?.depth;
        Ok(Expr { kind: ExprKind::Call { target: Some(Box::new(target)), function: name, args }, column, depth })
    }

    fn primary(&mut self) -> Result<Expr, CelError> {
        let t = self.bump();
        let lit = |k| node(k, t.column, &[]);
        match t.kind {
            Tok::Null => lit(ExprKind::Null),
            Tok::True => lit(ExprKind::Bool(true)),
            Tok::False => lit(ExprKind::Bool(false)),
            Tok::Int(i) => lit(ExprKind::Int(i)),
            Tok::IntMinMagnitude => Err(CelError::syntax("invalid int literal", t.column)),
            Tok::Uint(u) => lit(ExprKind::Uint(u)),
            Tok::Double(d) => lit(ExprKind::Double(d)),
            Tok::Str(s) => lit(ExprKind::Str(s)),
            Tok::Dot => Err(CelError::unsupported("a leading `.` (root-scoped name)", t.column)),
            Tok::LParen => {
                let e = self.expr()?;
                self.expect(Tok::RParen)?;
                Ok(e)
            }
            Tok::LBracket => {
                let items = self.args(Tok::RBracket)?;
                let refs: Vec<&Expr> = items.iter().collect();
                let depth = node(ExprKind::Null, t.column, &refs)?.depth;
                Ok(Expr { kind: ExprKind::List(items), column: t.column, depth })
            }
            Tok::LBrace => self.map_literal(t.column),
            Tok::Ident(name) => {
                if self.peek().kind != Tok::LParen {
                    return lit(ExprKind::Ident(name));
                }
                let open = self.bump();
                let mut args = self.args(Tok::RParen)?;
                if name == "has" {
                    let arg = args.pop();
                    return match (arg, args.is_empty()) {
                        (Some(Expr { kind: ExprKind::Select { operand, field, .. }, column, .. }), true) => {
                            let kind = ExprKind::Select { operand: operand.clone(), field, test: true };
                            node(kind, column, &[&operand])
                        }
                        _ => Err(CelError::check("invalid argument to has() macro", open.column)),
                    };
                }
                let refs: Vec<&Expr> = args.iter().collect();
                let depth = node(ExprKind::Null, open.column, &refs)?.depth;
                Ok(Expr { kind: ExprKind::Call { target: None, function: name, args }, column: open.column, depth })
            }
            other => Err(CelError::syntax(
                format!("mismatched input '{}' expecting {EXPECTING_PRIMARY}", other.spelling()),
                t.column,
            )),
        }
    }

    fn map_literal(&mut self, column: u32) -> Result<Expr, CelError> {
        let mut entries = Vec::new();
        if !self.eat(&Tok::RBrace) {
            loop {
                let k = self.expr()?;
                self.expect(Tok::Colon)?;
                let v = self.expr()?;
                entries.push((k, v));
                if self.eat(&Tok::Comma) {
                    if self.eat(&Tok::RBrace) {
                        break;
                    }
                    continue;
                }
                self.expect(Tok::RBrace)?;
                break;
            }
        }
        let refs: Vec<&Expr> = entries.iter().flat_map(|(k, v)| [k, v]).collect();
        let depth = node(ExprKind::Null, column, &refs)?.depth;
        Ok(Expr { kind: ExprKind::Map(entries), column, depth })
    }
}

fn null() -> Expr {
    Expr { kind: ExprKind::Null, column: 1, depth: 1 }
}

fn binary(op: BinOp, left: Expr, right: Expr, column: u32) -> Result<Expr, CelError> {
    let children = [&left, &right];
    let depth = node(ExprKind::Null, column, &children)?.depth;
    Ok(Expr { kind: ExprKind::Binary { op, left: Box::new(left), right: Box::new(right) }, column, depth })
}
