//! Go's `text/tabwriter` (left-aligned, space padding), which kubectl prints every
//! table and every `describe` through: tab-terminated cells aligned per column
//! block of consecutive lines; the last cell of a line is never padded.

/// The writer's settings (`tabwriter.NewWriter(w, minwidth, tabwidth, padding, ' ', 0)`).
#[derive(Debug, Clone, Copy)]
pub struct TabWriter {
    pub minwidth: usize,
    pub padding: usize,
}

/// kubectl `get` tables: minwidth 6, tabwidth 4, padding 3.
pub const GET: TabWriter = TabWriter { minwidth: 6, padding: 3 };
/// kubectl `describe`: minwidth 0, tabwidth 8, padding 2.
pub const DESCRIBE: TabWriter = TabWriter { minwidth: 0, padding: 2 };

impl TabWriter {
    /// Formats `text` as the writer would on Flush.
    pub fn format(&self, text: &str) -> String {
        let lines: Vec<Vec<&str>> = text.split('\n').map(|l| l.split('\t').collect()).collect();
        let mut widths: Vec<usize> = Vec::new();
        let mut col_widths: Vec<Vec<usize>> = vec![Vec::new(); lines.len()];
        self.layout(&lines, 0, lines.len(), &mut widths, &mut col_widths);
        let mut out = String::new();
        for (i, (cells, ws)) in lines.iter().zip(col_widths.iter()).enumerate() {
            for (j, cell) in cells.iter().enumerate() {
                out.push_str(cell);
                if j + 1 < cells.len() {
                    let w = ws.get(j).copied().unwrap_or(0);
                    let n = cell.chars().count();
                    out.extend(std::iter::repeat_n(' ', w.saturating_sub(n)));
                }
            }
            if i + 1 < lines.len() {
                out.push('\n');
            }
        }
        out
    }

    /// `Writer.format`: recursively fixes the width of column `widths.len()` for each
    /// block of consecutive lines that have a terminated cell there.
    fn layout(&self, lines: &[Vec<&str>], line0: usize, line1: usize, widths: &mut Vec<usize>, out: &mut [Vec<usize>]) {
        let column = widths.len();
        let mut this = line0;
        while this < line1 {
            let cells = lines.get(this).map_or(0, Vec::len);
            if column + 1 >= cells {
                if let Some(o) = out.get_mut(this) {
                    if o.len() < widths.len() {
                        *o = widths.clone();
                    }
                }
                this += 1;
                continue;
            }
            let start = this;
            let mut width = self.minwidth;
            while this < line1 {
                let Some(line) = lines.get(this) else { break };
                if column + 1 >= line.len() {
                    break;
                }
                let w = line.get(column).map_or(0, |c| c.chars().count()) + self.padding;
                width = width.max(w);
                this += 1;
            }
            widths.push(width);
            self.layout(lines, start, this, widths, out);
            widths.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Columns align per block; the last cell is not padded; minwidth applies.
    #[test]
    fn aligns_like_go() {
        let got = GET.format("NAME\tSTATUS\tAGE\nnode-1\tReady\t5m\n");
        assert_eq!(got, "NAME     STATUS   AGE\nnode-1   Ready    5m\n");
        let got = DESCRIBE.format("Name:\tp\nService Account:\tdefault\nNo tabs here\nA:\tb\n");
        assert_eq!(got, "Name:             p\nService Account:  default\nNo tabs here\nA:  b\n");
    }
}
