//! The seeded generator behind everything upstream leaves to chance: the Go map order
//! `rollingUpdate` visits nodes in, pod name suffixes (`utilrand.String(5)`) and
//! containerd sandbox ids. SplitMix64: tiny, fast, and the same on wasm32 and native.

/// SplitMix64 (Steele, Lea, Flood 2014).
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `utilrand`'s alphabet: no vowels, no digits that look like letters.
const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix(self.state)
    }

    /// What the `i`-th next call (0-based) would return, without moving: the state
    /// only counts up by a constant, so any draw is computed directly.
    pub fn peek(&self, i: u64) -> u64 {
        mix(self.state.wrapping_add(GAMMA.wrapping_mul(i.wrapping_add(1))))
    }

    /// Moves on by `n` draws (as `n` calls of [`SplitMix64::next_u64`] would).
    pub fn skip(&mut self, n: u64) {
        self.state = self.state.wrapping_add(GAMMA.wrapping_mul(n));
    }

    /// Five characters of `utilrand.String(5)`, the suffix generateName gets.
    pub fn name_suffix(&mut self) -> String {
        (0..5).map(|_| self.pick(ALPHANUMS)).collect()
    }

    /// `n` lowercase hex digits (a containerd sandbox id is 64).
    pub fn hex(&mut self, n: usize) -> String {
        (0..n).map(|_| self.pick(b"0123456789abcdef")).collect()
    }

    fn pick(&mut self, alphabet: &[u8]) -> char {
        let i = (self.next_u64() % alphabet.len() as u64) as usize;
        alphabet.get(i).copied().map(char::from).unwrap_or('x')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `peek(i)` is the `i`-th draw and `skip(n)` is `n` draws.
    #[test]
    fn peek_and_skip_agree_with_drawing() {
        let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
        let peeked: Vec<u64> = (0..5).map(|i| b.peek(i)).collect();
        let drawn: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        assert_eq!(peeked, drawn);
        b.skip(5);
        assert_eq!(a.next_u64(), b.next_u64());
    }
}
