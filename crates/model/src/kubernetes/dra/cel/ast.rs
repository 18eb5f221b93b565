//! The parsed expression (cel-go `common/ast`): macros already expanded, `&&` and `||`
//! chains flattened, every node with its column and its depth, so that every walk
//! over it (checker, interpreter) recurses at most [`MAX_DEPTH`] frames.

/// The deepest tree the parser builds. cel-go's default is 250; the lab's walks are
/// recursive, and real selectors nest less than ten deep.
pub const MAX_DEPTH: u16 = 32;

/// One node.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    /// 1-based column of the token cel-go reports errors at (the operator of a binary
    /// expression, the `.` of a selection, the `(` of a call).
    pub column: u32,
    pub depth: u16,
}

/// Binary operators (cel-go's `_==_`, `_<_`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl BinOp {
    /// cel-go's function name, as overload errors print it.
    pub fn function(self) -> &'static str {
        match self {
            BinOp::Eq => "_==_",
            BinOp::Ne => "_!=_",
            BinOp::Lt => "_<_",
            BinOp::Le => "_<=_",
            BinOp::Gt => "_>_",
            BinOp::Ge => "_>=_",
            BinOp::In => "@in",
            BinOp::Add => "_+_",
            BinOp::Sub => "_-_",
            BinOp::Mul => "_*_",
            BinOp::Div => "_/_",
            BinOp::Rem => "_%_",
        }
    }
}

/// The comprehension macros the subset expands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantifier {
    All,
    Exists,
    ExistsOne,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
    Ident(String),
    /// `operand.field`; `test` is `has(operand.field)`.
    Select { operand: Box<Expr>, field: String, test: bool },
    Index { operand: Box<Expr>, index: Box<Expr> },
    /// A function call, global (`quantity("1Gi")`) or on a receiver (`s.startsWith("a")`).
    Call { target: Option<Box<Expr>>, function: String, args: Vec<Expr> },
    List(Vec<Expr>),
    Map(Vec<(Expr, Expr)>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Binary { op: BinOp, left: Box<Expr>, right: Box<Expr> },
    Cond { cond: Box<Expr>, then: Box<Expr>, otherwise: Box<Expr> },
    /// `cel.bind(var, init, body)`.
    Bind { var: String, init: Box<Expr>, body: Box<Expr> },
    /// `range.all(var, pred)`, `.exists(…)`, `.exists_one(…)`.
    Comprehension { quantifier: Quantifier, var: String, range: Box<Expr>, predicate: Box<Expr> },
}
