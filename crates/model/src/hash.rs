//! A fast deterministic hasher for the model's own lookup maps (node name → index,
//! pod name → node, event keys). std's SipHash resists hash flooding, which input a
//! user hands to their own lab or CLI does not call for, and it was about 12 % of the
//! instructions of a 5,000-node rollout (`valgrind --tool=callgrind`). The mixing is
//! FxHash's (rustc's own), finished as rustc-hash 2 finishes it: rotated, so the bits
//! hashbrown takes for the bucket are the product's well-mixed high ones. FxHash's
//! last multiply leaves a low bit depending only on the low bits of the last word, and
//! names that differ only in later bytes of it (`gpu-node-00001` … `gpu-node-20000`:
//! the last word is `-0000N`, digits from byte 1 on) fell into 3 buckets of 32,768.
//! Only for maps that are looked up, never iterated: the order of a map's iteration
//! depends on its hasher.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash: rotate, xor in 8 bytes, multiply; rotated once more when finished.
#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.iter_mut().zip(chunk).for_each(|(w, b)| *w = *b);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word.iter_mut().zip(rest).for_each(|(w, b)| *w = *b);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash.rotate_left(26)
    }
}

/// A `HashMap` with [`FxHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal keys hash equal, and the map finds what was put in (names that share a
    /// prefix longer than one 8-byte word, and empty and short ones).
    #[test]
    fn finds_what_was_inserted() {
        let names: Vec<String> = (0..2_000).map(|i| format!("gpu-node-{i:05}")).chain(["".into(), "a".into()]).collect();
        let map: FastMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
        assert_eq!(map.len(), names.len());
        for (i, n) in names.iter().enumerate() {
            assert_eq!(map.get(n.as_str()), Some(&i));
        }
        assert_eq!(map.get("gpu-node-99999"), None);
    }

    /// The bits a table of 32,768 buckets takes (the low 15) spread 20,000 node names
    /// that differ only in their digits about as a random function would (≈ 14,970
    /// distinct values); before the rotation they took 3.
    #[test]
    fn low_bits_spread_numbered_names() {
        let buckets: std::collections::BTreeSet<u64> = (1..=20_000)
            .map(|i| {
                let mut h = FxHasher::default();
                h.write(format!("gpu-node-{i:05}").as_bytes());
                h.finish() & 0x7fff
            })
            .collect();
        assert!(buckets.len() > 14_000, "{} distinct buckets", buckets.len());
    }
}
