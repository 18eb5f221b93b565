//! Output format: human text by default, `--output json` for machines, and `md` / `csv` for
//! commands that print a table (`gpulab slots`; others print text for them).

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    /// Markdown (tables).
    Md,
    /// Comma-separated values (tables).
    Csv,
}
