//! Time bins of the per-bin series: which bin an instant falls in, and the series' rows.

/// Which time bin an instant falls in, with the current bin's bounds cached: nearly every
/// lookup is for `now` or a moment later in the same bin, and a 64-bit division per packet per
/// hop was a measurable share of the run time.
///
/// Bin indices are relative to `base`, the first bin still held in memory: the bins before it
/// have been handed out by the simulator's `Sim::take_series`, so the series kept in memory
/// cover only the bins since the last take, however long the run.
#[derive(Clone, Copy, Debug)]
pub struct Bins {
    /// The bins' width, ns.
    pub bin_ns: u64,
    /// The absolute index of relative bin 0.
    pub base: usize,
    /// Relative index and [start, end) of the bin of the last `set`.
    pub cur: usize,
    /// Start of the current bin, ns.
    pub start_ns: u64,
    /// End of the current bin (exclusive), ns.
    pub end_ns: u64,
}

impl Bins {
    /// Bins of `bin_ns`, the current one bin 0.
    pub fn new(bin_ns: u64) -> Bins {
        Bins {
            bin_ns,
            base: 0,
            cur: 0,
            start_ns: 0,
            end_ns: bin_ns,
        }
    }
    /// Moves the cached bin to the one holding `t` (at or after `base`).
    #[inline]
    pub fn set(&mut self, t: aqmlab_core::SimTime) {
        let t = t.as_nanos();
        if t < self.start_ns || t >= self.end_ns {
            let abs = t / self.bin_ns;
            self.cur = abs as usize - self.base;
            self.start_ns = abs * self.bin_ns;
            self.end_ns = self.start_ns.saturating_add(self.bin_ns);
        }
    }
    /// The relative bin holding `t` (at or after `base`).
    #[inline]
    pub fn of(&self, t: aqmlab_core::SimTime) -> usize {
        let t = t.as_nanos();
        if t >= self.start_ns && t < self.end_ns {
            self.cur
        } else {
            (t / self.bin_ns) as usize - self.base
        }
    }
    /// Absolute bins wholly before `t`: [0, t / bin).
    pub fn complete_before(&self, t: aqmlab_core::SimTime) -> usize {
        (t.as_nanos() / self.bin_ns) as usize
    }
    /// Absolute bins that [0, t) touches: [0, ⌈t / bin⌉).
    pub fn touched_before(&self, t: aqmlab_core::SimTime) -> usize {
        t.as_nanos().div_ceil(self.bin_ns) as usize
    }
}

/// Row `bin` of a link's or flow's series, added (with the bins before it) if missing.
#[inline]
pub fn row_of<T: Default + Clone>(series: &mut Vec<T>, bin: usize) -> &mut T {
    if series.len() <= bin {
        grow_rows(series, bin);
    }
    &mut series[bin]
}

/// Adds the rows up to `bin` (once per bin: out of the per-packet path).
#[cold]
#[inline(never)]
fn grow_rows<T: Default + Clone>(series: &mut Vec<T>, bin: usize) {
    series.resize(bin + 1, T::default());
}
