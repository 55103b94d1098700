//! Where a discipline's random draws come from: its own seeded stream, or a list of draws given by
//! the user (to reproduce another simulator's random decisions exactly, e.g. ns-3's MRG32k3a draws
//! in `shared/vectors/ns3-uniforms.txt`).

use aqmlab_core::Xoshiro256pp;
use std::sync::Arc;

/// A source of U(0,1) draws.
#[derive(Clone, Debug)]
pub enum UniformSource {
    /// A seeded xoshiro256++ stream.
    Rng(Xoshiro256pp),
    /// Draws taken in order from a list; once the list is used up, further draws return 0.5
    /// and [`UniformSource::exhausted`] becomes true, so the driver can report it.
    List {
        /// The draws.
        draws: Arc<[f64]>,
        /// Index of the next draw.
        next: usize,
    },
}

impl UniformSource {
    /// A stream seeded with `seed`.
    pub fn seeded(seed: u64) -> Self {
        UniformSource::Rng(Xoshiro256pp::seed_from_u64(seed))
    }
    /// The next draw in [0, 1).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        match self {
            UniformSource::Rng(r) => r.next_f64(),
            UniformSource::List { draws, next } => {
                let v = draws.get(*next).copied().unwrap_or(0.5);
                *next += 1;
                v
            }
        }
    }
    /// `⌊next_f64() · 65536⌋`, the top 16 bits of a draw (CAKE's DRR dither, Linux's
    /// `prandom_u32() >> 16`). For a generator that is its next `u64 >> 48` exactly: `next_f64`
    /// is `(x >> 11) · 2^-53`, exact in an f64, so times 2^16 and floored it is `x >> 48`.
    #[inline]
    pub fn next_top16(&mut self) -> u64 {
        match self {
            UniformSource::Rng(r) => r.next_u64() >> 48,
            UniformSource::List { .. } => (self.next_f64() * 65536.0) as u64,
        }
    }
    /// An independent source for the `index`-th of several instances of one discipline (each
    /// flow queue of FQ-PIE and FQ-COBALT): a list source starts again from its first draw, as
    /// ns-3 gives every child queue disc its own copy of the stream; a generator source gives a
    /// stream seeded from its own next value and `index`, so the instances do not share draws.
    /// `self` is not advanced.
    pub fn copy_for(&self, index: u32) -> Self {
        match self {
            UniformSource::Rng(r) => {
                let base = r.clone().next_u64();
                let k = (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                UniformSource::Rng(Xoshiro256pp::seed_from_u64(base ^ k))
            }
            UniformSource::List { draws, .. } => UniformSource::List {
                draws: draws.clone(),
                next: 0,
            },
        }
    }
    /// How many draws have been taken (list sources only; 0 for a generator).
    pub fn used(&self) -> usize {
        match self {
            UniformSource::Rng(_) => 0,
            UniformSource::List { next, .. } => *next,
        }
    }
    /// True when a list source was asked for more draws than it holds.
    pub fn exhausted(&self) -> bool {
        match self {
            UniformSource::Rng(_) => false,
            UniformSource::List { draws, next } => *next > draws.len(),
        }
    }
}

/// Parses a uniforms file: one number in [0, 1) per line (blank lines ignored).
/// Errors name the line.
pub fn parse_uniforms(text: &str) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let s = line.trim();
        if s.is_empty() {
            continue;
        }
        match s.parse::<f64>() {
            Ok(v) if (0.0..=1.0).contains(&v) => out.push(v),
            _ => {
                return Err(format!(
                    "line {}: expected a number in [0, 1], got {:?}",
                    i + 1,
                    s
                ))
            }
        }
    }
    if out.is_empty() {
        return Err("no draws in the file: expected one number in [0, 1] per line".into());
    }
    Ok(out)
}
