//! Step 8's kubectl outputs as cells the learner can mark as read: `kubectl get ds`
//! (one row per sync), `kubectl rollout status` (each line one cell) and `kubectl get
//! pods -o wide`. A table is cut at its header's column starts — kubectl's tab writer
//! (minwidth 6, padding 3) starts every cell of a column where its header starts, and
//! puts at least three spaces between columns, while a header such as `NODE SELECTOR`
//! has one — so the cells and their padding put back together are kubectl's text byte
//! for byte ([`TableView::text`]).
//!
//! A cell's key names what the learner read so that it still means the same after
//! more syncs: `get-ds/<row>/<COLUMN>` (a row per sync, appended), `pods/<pod>/<COLUMN>`
//! (pods come and go, their names stay theirs), `status/<line>`.

use gpulab_view::{CellView, TableView};

/// The tables' ids, in the order step 8 shows them.
pub const GET_DS: &str = "get-ds";
pub const STATUS: &str = "status";
pub const PODS: &str = "pods";

/// The key of a cell.
pub fn key(table: &str, row: &str, column: &str) -> String {
    if column.is_empty() {
        format!("{table}/{row}")
    } else {
        format!("{table}/{row}/{column}")
    }
}

/// Where each column of `header` starts (bytes), and its name.
fn columns(header: &str) -> Vec<(usize, &str)> {
    let mut starts = Vec::new();
    let mut spaces = usize::MAX;
    for (i, b) in header.bytes().enumerate() {
        if b == b' ' {
            spaces = spaces.saturating_add(1);
        } else {
            if spaces >= 2 {
                starts.push(i);
            }
            spaces = 0;
        }
    }
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([header.len()]).collect();
    starts.iter().zip(ends).map(|(&s, e)| (s, header.get(s..e).unwrap_or("").trim_end())).collect()
}

/// `line` cut at `starts`: each cell's text and padding. `None` when the line does
/// not fit the header (a cell would start inside a multi-byte character, or before
/// the previous one ends): such a row stays one unmarkable cell.
fn cut<'a>(line: &'a str, starts: &[usize]) -> Option<Vec<(&'a str, &'a str)>> {
    let mut out = Vec::new();
    for (i, &s) in starts.iter().enumerate() {
        let e = starts.get(i + 1).copied().unwrap_or(line.len()).min(line.len());
        if i > 0 && s >= line.len() {
            break;
        }
        // A column starts after the previous one's padding, never inside a value.
        if i > 0 && line.as_bytes().get(s.wrapping_sub(1)) != Some(&b' ') {
            return None;
        }
        let part = line.get(s..e)?;
        let text = part.trim_end_matches(' ');
        out.push((text, part.get(text.len()..).unwrap_or("")));
    }
    // The first cell starts the line; anything before it would be lost.
    (starts.first() == Some(&0) || line.is_empty()).then_some(out)
}

fn cell(text: &str, pad: &str) -> CellView {
    CellView { text: text.into(), pad: pad.into(), ..CellView::default() }
}

/// A kubectl table (`get ds`, `get pods`): the header's cells unmarkable, each row's
/// cells keyed by `row_key(index from 1, first cell)`, labelled `<title>, <row>,
/// <COLUMN>: <text>`.
pub fn table(id: &str, title: &str, text: &str, row_key: impl Fn(usize, &str) -> String) -> TableView {
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return TableView { id: id.into(), cells: Vec::new() };
    };
    let cols = columns(header);
    let starts: Vec<usize> = cols.iter().map(|(s, _)| *s).collect();
    let mut rows = vec![cut(header, &starts).map_or_else(|| vec![cell(header, "")], |cs| cs.iter().map(|(t, p)| cell(t, p)).collect())];
    for (i, line) in lines.enumerate() {
        let Some(cs) = cut(line, &starts) else {
            rows.push(vec![cell(line, "")]);
            continue;
        };
        let row = row_key(i + 1, cs.first().map_or("", |c| c.0));
        rows.push(
            cs.iter()
                .zip(&cols)
                .map(|((t, p), (_, name))| CellView {
                    key: key(id, &row, name),
                    label: format!("{title}, {row}, {name}: {t}"),
                    ..cell(t, p)
                })
                .collect(),
        );
    }
    TableView { id: id.into(), cells: flat(rows) }
}

/// Rows in reading order, each row's newline in its last cell's padding.
fn flat(rows: Vec<Vec<CellView>>) -> Vec<CellView> {
    let mut cells = Vec::new();
    for mut row in rows {
        match row.last_mut() {
            Some(last) => last.pad.push('\n'),
            None => row.push(cell("", "\n")),
        }
        cells.extend(row);
    }
    cells
}

/// Output without a header (`rollout status`): each line one cell.
pub fn lines(id: &str, title: &str, text: &str) -> TableView {
    let rows = text
        .lines()
        .enumerate()
        .map(|(i, line)| vec![CellView { key: key(id, &(i + 1).to_string(), ""), label: format!("{title}: {line}"), ..cell(line, "") }])
        .collect();
    TableView { id: id.into(), cells: flat(rows) }
}

/// Sets each cell's `marked` (its key among `marks`) and `evidence` (among `evidence`).
pub fn mark(tables: &mut [TableView], marks: &[String], evidence: &[String]) {
    for c in tables.iter_mut().flat_map(|t| t.cells.iter_mut()) {
        if !c.key.is_empty() {
            c.marked = marks.contains(&c.key);
            c.evidence = evidence.contains(&c.key);
        }
    }
}

/// The cell with `key`, if the tables hold it.
pub fn find<'a>(tables: &'a [TableView], key: &str) -> Option<&'a CellView> {
    tables.iter().flat_map(|t| t.cells.iter()).find(|c| c.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GET_DS: &str = "NAME                             DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE\n\
                          nvidia-device-plugin-daemonset   3         3         2       1            2           <none>          14m\n";
    const PODS: &str = "NAME         READY   STATUS              RESTARTS   AGE   IP         NODE         NOMINATED NODE   READINESS GATES\n\
                        plugin-abc   0/1     ContainerCreating   0          2m    <none>     gpu-node-2   <none>           <none>\n";

    /// Cells and padding put back together are the text; headers with one space
    /// (`NODE SELECTOR`, `NOMINATED NODE`) stay one column; keys name the row and column.
    #[test]
    fn cells_are_the_text_cut_at_the_header() {
        let ds = table("get-ds", "get ds", GET_DS, |i, _| i.to_string());
        assert_eq!(ds.text(), GET_DS);
        assert_eq!((ds.cells.len(), ds.rows()), (16, 2));
        assert_eq!(ds.cells[6].text, "NODE SELECTOR");
        assert_eq!(ds.cells[8 + 4].key, "get-ds/1/UP-TO-DATE");
        assert_eq!(ds.cells[8 + 4].text, "1");
        assert_eq!(ds.cells[8 + 4].label, "get ds, 1, UP-TO-DATE: 1");
        assert!(ds.cells[..8].iter().all(|c| c.key.is_empty()));
        let pods = table("pods", "get pods", PODS, |_, name| name.to_string());
        assert_eq!(pods.text(), PODS);
        assert_eq!(pods.cells[9 + 2].key, "pods/plugin-abc/STATUS");
        assert_eq!(pods.cells[9 + 7].text, "<none>");
        assert_eq!(pods.cells[7].text, "NOMINATED NODE");
        let status = lines("status", "rollout status", "Waiting for daemon set \"x\" rollout to finish: 1 out of 3 new pods have been updated...\n");
        assert_eq!(status.cells[0].key, "status/1");
        assert!(status.text().starts_with("Waiting"));
    }

    /// A row that does not fit its header is kept whole and unmarkable; nothing is lost.
    #[test]
    fn rows_that_do_not_fit_are_kept_whole() {
        for text in ["A   B\nxé\n", "A   B\n\n", "", "A   B\n  x\n", "  A   B\nx\n", "A   B\nxxxxxxxxxxx\n"] {
            let t = table("t", "t", text, |i, _| i.to_string());
            assert_eq!(t.text(), text.lines().map(|l| format!("{l}\n")).collect::<String>(), "{text:?}");
        }
    }

    #[test]
    fn marks_and_evidence_by_key() {
        let mut t = vec![table("get-ds", "get ds", GET_DS, |i, _| i.to_string())];
        mark(&mut t, &["get-ds/1/READY".into()], &["get-ds/1/AVAILABLE".into()]);
        assert!(find(&t, "get-ds/1/READY").is_some_and(|c| c.marked && !c.evidence));
        assert!(find(&t, "get-ds/1/AVAILABLE").is_some_and(|c| !c.marked && c.evidence));
        assert!(find(&t, "get-ds/2/READY").is_none());
    }
}
