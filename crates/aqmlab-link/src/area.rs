//! A link direction's backlog integrated over time, per time bin (the time-averaged queue,
//! which Little's law ties to the sojourn times).

/// A link direction's backlog integrated over time: the level since the last change, and when
/// that was. [`QueueArea::advance`] adds `level × time` to the time bins it spans.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueArea {
    /// When the level last changed (or was last accounted), ns.
    pub last_ns: u64,
    /// Packets queued since then.
    pub pkts: u64,
    /// Bytes queued since then.
    pub bytes: u64,
}

/// One bin's share of a [`QueueArea`]: packet·ns and byte·ns.
pub trait AreaRow {
    /// Adds `pkt_ns` packet-nanoseconds and `byte_ns` byte-nanoseconds.
    fn add_area(&mut self, pkt_ns: u128, byte_ns: u128);
}

impl QueueArea {
    /// Accounts the level held from `last_ns` to `to_ns` into the rows of the bins it spans,
    /// then sets the level to `pkts`, `bytes`. `series[k]` is the row of absolute bin
    /// `base + k` (bins of `bin_ns`; rows are added as needed); `cur` is a bin `(relative index,
    /// start ns, end ns)` the caller knows, to spare a division when the span lies within it
    /// (the common case: one multiplication and two additions per discipline call).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn advance<R: AreaRow + Default + Clone>(
        &mut self,
        to_ns: u64,
        pkts: u64,
        bytes: u64,
        bin_ns: u64,
        base: usize,
        cur: (usize, u64, u64),
        series: &mut Vec<R>,
    ) {
        let t = self.last_ns;
        if self.pkts != 0 && t < to_ns {
            if t >= cur.1 && to_ns <= cur.2 && cur.0 < series.len() {
                let dt = (to_ns - t) as u128;
                series[cur.0].add_area(self.pkts as u128 * dt, self.bytes as u128 * dt);
            } else {
                self.spread(to_ns, bin_ns, base, cur, series);
            }
        }
        *self = QueueArea {
            last_ns: to_ns.max(t),
            pkts,
            bytes,
        };
    }

    /// [`QueueArea::advance`]'s accounting over several bins, or into a row not yet added.
    #[cold]
    #[inline(never)]
    fn spread<R: AreaRow + Default + Clone>(
        &self,
        to_ns: u64,
        bin_ns: u64,
        base: usize,
        cur: (usize, u64, u64),
        series: &mut Vec<R>,
    ) {
        let (p, b) = (self.pkts as u128, self.bytes as u128);
        let mut t = self.last_ns;
        while t < to_ns {
            let (rel, end) = if t >= cur.1 && t < cur.2 {
                (cur.0, cur.2)
            } else {
                let abs = t / bin_ns;
                (
                    (abs as usize).wrapping_sub(base),
                    (abs + 1).saturating_mul(bin_ns),
                )
            };
            let until = end.min(to_ns);
            let dt = (until - t) as u128;
            // A bin before `base` was handed out already: the caller accounts every level up
            // to a take before making it, so none is ever missed here.
            if rel < usize::MAX / 2 {
                if series.len() <= rel {
                    series.resize(rel + 1, R::default());
                }
                series[rel].add_area(p * dt, b * dt);
            }
            t = until;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Default)]
    struct Row(u128, u128);
    impl AreaRow for Row {
        fn add_area(&mut self, p: u128, b: u128) {
            self.0 += p;
            self.1 += b;
        }
    }

    #[test]
    fn area_is_split_across_bins() {
        let mut rows: Vec<Row> = Vec::new();
        let mut a = QueueArea::default();
        let cur = (0, 0, 10);
        a.advance(5, 2, 3000, 10, 0, cur, &mut rows); // empty until 5, then 2 packets
        a.advance(25, 1, 1500, 10, 0, cur, &mut rows); // 2 packets over [5, 25)
        a.advance(32, 0, 0, 10, 0, cur, &mut rows); // 1 packet over [25, 32)
        assert_eq!(rows[0].0, 2 * 5);
        assert_eq!(rows[1].0, 2 * 10);
        assert_eq!(rows[2].0, 2 * 5 + 5);
        assert_eq!(rows[3].0, 2);
        assert_eq!(rows[1].1, 3000 * 10);
        let total: u128 = rows.iter().map(|r| r.0).sum();
        assert_eq!(total, 2 * 20 + 7);
    }
}
