//! The seeded generator behind everything upstream leaves to chance: the Go map order
//! `rollingUpdate` visits nodes in, pod name suffixes (`utilrand.String(5)`) and
//! containerd sandbox ids. SplitMix64: tiny, fast, and the same on wasm32 and native.

/// SplitMix64 (Steele, Lea, Flood 2014).
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

/// `utilrand`'s alphabet: no vowels, no digits that look like letters.
const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
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
