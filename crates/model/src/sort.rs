//! One shared stable sort for the model, small in wasm.
//!
//! `slice::sort_by` monomorphises the standard library's driftsort (several KB of
//! code) for every element type *and* every comparison closure; at the model's ~20
//! call sites that cost about 50 KB of the app's first load. Here the merge sort works
//! on indices behind a `dyn` comparison, so it is compiled once; what is generic per
//! call site is a few instructions (the comparison adapter and the permutation).
//!
//! Same contract as `slice::sort_by`: stable (equal elements keep their order), so the
//! output is identical to the standard sort's for every input.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, like `v.sort_by(cmp)`.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let order = {
        let view: &[T] = v;
        sorted_indices(view.len(), &mut |i, j| match (view.get(i), view.get(j)) {
            (Some(a), Some(b)) => cmp(a, b),
            _ => Ordering::Equal,
        })
    };
    permute(v, &order);
}

/// Sorts `v` stably in ascending order, like `v.sort()`.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The stable order of `0..n` under `cmp`: a bottom-up merge sort over two index
/// buffers (no allocation per element or per run).
fn sorted_indices(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut from: Vec<usize> = (0..n).collect();
    let mut into: Vec<usize> = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = n.min(start + width);
            let end = n.min(start + 2 * width);
            merge(&from, &mut into, start, mid, end, cmp);
            start = end;
        }
        std::mem::swap(&mut from, &mut into);
        width *= 2;
    }
    from
}

/// Merges the sorted runs `from[start..mid]` and `from[mid..end]` into
/// `into[start..end]`, the left run first among equals.
fn merge(from: &[usize], into: &mut [usize], start: usize, mid: usize, end: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) {
    let (mut i, mut j) = (start, mid);
    for slot in into.iter_mut().take(end).skip(start) {
        let left = if i < mid { from.get(i).copied() } else { None };
        let right = if j < end { from.get(j).copied() } else { None };
        *slot = match (left, right) {
            (Some(x), Some(y)) if cmp(y, x) == Ordering::Less => {
                j += 1;
                y
            }
            (Some(x), _) => {
                i += 1;
                x
            }
            (None, Some(y)) => {
                j += 1;
                y
            }
            (None, None) => break,
        };
    }
}

/// Rearranges `v` so that position `i` holds the element that was at `order[i]`
/// (`order` a permutation of `0..v.len()`), following each cycle once with swaps.
fn permute<T>(v: &mut [T], order: &[usize]) {
    let mut done = vec![false; order.len()];
    for start in 0..order.len() {
        if done.get(start).copied().unwrap_or(true) {
            continue;
        }
        let mut j = start;
        loop {
            if let Some(d) = done.get_mut(j) {
                *d = true;
            }
            let Some(&k) = order.get(j) else { break };
            if k == start || k >= v.len() {
                break;
            }
            v.swap(j, k);
            j = k;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tiny deterministic generator (xorshift) so the property runs without a dep.
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Proves the shared sort gives exactly `slice::sort_by`'s (stable) result on
    /// random inputs with many equal keys, including empty and one-element slices.
    #[test]
    fn same_order_as_std_stable_sort() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for case in 0..500 {
            let len = (next(&mut seed) % 70) as usize;
            let keys = 1 + (case % 9) as u64;
            let mut ours: Vec<(u64, usize)> = (0..len).map(|i| (next(&mut seed) % keys, i)).collect();
            let mut std_sorted = ours.clone();
            std_sorted.sort_by(|a, b| a.0.cmp(&b.0));
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            assert_eq!(ours, std_sorted, "case {case}");
        }
    }

    /// Proves `sort` orders strings like `slice::sort` (bytewise), duplicates kept.
    #[test]
    fn sort_strings_like_std() {
        let table = [
            (vec![], vec![]),
            (vec!["b"], vec!["b"]),
            (vec!["runc", "nvidia", "kata", "nvidia"], vec!["kata", "nvidia", "nvidia", "runc"]),
            (vec!["Z", "a", "_", "A"], vec!["A", "Z", "_", "a"]),
        ];
        for (input, want) in table {
            let mut v: Vec<String> = input.iter().map(|s| s.to_string()).collect();
            sort(&mut v);
            assert_eq!(v, want);
        }
    }
}
