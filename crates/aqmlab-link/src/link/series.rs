//! A link direction's per-bin series and reports: the queue level each bin held, the
//! time-integrated queue, the bytes sent, and the report of them at a time.

use super::{LinkBin, LinkDirection, LinkReport, PacketRecord};
use crate::bins::{row_of, Bins};
use crate::rate::LinkRate;
use aqmlab_core::SimTime;

impl LinkDirection {
    /// Counts the last transmission as sent (it has ended), in its end's time bin.
    #[inline(always)]
    pub(super) fn count_sent(&mut self, bins: &Bins) {
        if let Some((end, size)) = self.sending.take() {
            self.m.delivered_pkts += 1;
            self.m.delivered_bytes += size as u64;
            self.row(bins.of(end)).egress_bytes += size as u64;
        }
    }

    /// Records the queue level after a dequeue in time bin `bin`. A dequeue never raises the
    /// level, so within the bin of the last note only the carried level changes.
    #[inline]
    pub(super) fn note_drain(&mut self, bin: usize) {
        if bin == self.level.0 {
            let b = self.q.backlog();
            self.level.1 = b.packets as u64;
            self.level.2 = b.bytes;
        } else {
            self.note_level(bin);
        }
    }

    /// Accounts the backlog held since the last change up to `now`, and notes the level after
    /// the discipline call just made (the level changes only in calls).
    #[inline]
    pub(super) fn note_area(&mut self, now: SimTime, bins: &Bins) {
        let b = self.q.backlog();
        self.area.advance(
            now.as_nanos(),
            b.packets as u64,
            b.bytes,
            bins.bin_ns,
            bins.base,
            (bins.cur, bins.start_ns, bins.end_ns),
            &mut self.series,
        );
    }

    /// Records the queue level after a call in time bin `bin`: each bin keeps the largest level
    /// seen in it, and bins without calls get the level that held through them.
    pub(super) fn note_level(&mut self, bin: usize) {
        let b = self.q.backlog();
        self.note_level_of(bin, b.packets as u64, b.bytes);
    }

    /// A packet of `bytes` crossing the empty queue in bin `bin`: its row counts it offered
    /// and released, and the levels are those of one packet between the enqueue and the
    /// dequeue, then empty again ([`LinkDirection::note_level`] then
    /// [`LinkDirection::note_drain`]). One visit to the row, not three (a hop's hottest path).
    #[inline]
    pub(super) fn note_passing(&mut self, bin: usize, bytes: u64) {
        let same_bin = bin == self.level.0;
        let r = self.row(bin);
        r.ingress_bytes += bytes;
        r.released_pkts += 1;
        if same_bin {
            r.max_backlog_pkts = r.max_backlog_pkts.max(1);
            r.max_backlog_bytes = r.max_backlog_bytes.max(bytes);
            self.level = (bin, 0, 0);
            return;
        }
        self.note_level_of(bin, 1, bytes);
        self.note_drain(bin);
    }

    /// [`LinkDirection::note_level`] for a level of `pkts` packets and `bytes` bytes.
    #[inline]
    fn note_level_of(&mut self, bin: usize, pkts: u64, bytes: u64) {
        if bin == self.level.0 {
            if let Some(r) = self.series.get_mut(bin) {
                // Same bin as the last call (the common case): only the maxima can change.
                r.max_backlog_pkts = r.max_backlog_pkts.max(pkts);
                r.max_backlog_bytes = r.max_backlog_bytes.max(bytes);
                self.level = (bin, pkts, bytes);
                return;
            }
        }
        self.row(bin);
        let (last_bin, last_pkts, last_bytes) = self.level;
        carry_level(&mut self.series[last_bin + 1..=bin], last_pkts, last_bytes);
        carry_level(&mut self.series[bin..=bin], pkts, bytes);
        self.level = (bin.max(last_bin), pkts, bytes);
    }

    /// The measurements at `now` (a run covers [0, now)), with one series row per bin from
    /// `bins.base` to now (every column, as [`LinkDirection::take_rows`] hands them out).
    pub fn report(&self, now: SimTime, bins: &Bins) -> (LinkReport, Vec<LinkBin>) {
        // The last transmission counts as sent if it ended before now; otherwise it is still
        // on the wire.
        let mut m = self.m.clone();
        let mut rows = self.series.clone();
        // Every packet a link is offered goes to its discipline, which counts it.
        let offered = self.q.stats().received;
        (m.enqueued_pkts, m.ingress_bytes) = (offered.packets, offered.bytes);
        let mut in_flight = false;
        if let Some((end, size)) = self.sending {
            if end < now {
                m.delivered_pkts += 1;
                m.delivered_bytes += size as u64;
                row_of(&mut rows, bins.of(end)).egress_bytes += size as u64;
            } else {
                in_flight = true;
            }
        }
        // One row per bin of [first bin kept, now); bins after the last call held the last
        // level.
        let n = bins.touched_before(now).saturating_sub(bins.base);
        rows.resize(n, LinkBin::default());
        let (lb, pkts, bytes) = self.level;
        if lb + 1 < rows.len() {
            carry_level(&mut rows[lb + 1..], pkts, bytes);
        }
        let mut area = self.area;
        area.advance(
            now.as_nanos(),
            area.pkts,
            area.bytes,
            bins.bin_ns,
            bins.base,
            (bins.cur, bins.start_ns, bins.end_ns),
            &mut rows,
        );
        rows.truncate(n);
        fill_capacity(&self.rate, &mut rows, bins.base, bins.bin_ns, now);
        // One row per bin, so the five series end together.
        m.ingress_bytes_per_bin = rows.iter().map(|r| r.ingress_bytes).collect();
        m.egress_bytes_per_bin = rows.iter().map(|r| r.egress_bytes).collect();
        m.max_backlog_per_bin = rows.iter().map(|r| r.max_backlog_pkts).collect();
        m.max_backlog_bytes_per_bin = rows.iter().map(|r| r.max_backlog_bytes).collect();
        m.drops_per_bin = rows.iter().map(|r| r.drops).collect();
        m.released_per_bin = rows.iter().map(|r| r.released_pkts).collect();
        m.sojourn_sum_ns_per_bin = rows.iter().map(|r| r.sojourn_sum_ns).collect();
        let cap = self.rate.capacity_bits(SimTime::ZERO, now);
        let report = LinkReport {
            name: self.name.clone(),
            qdisc: self.q.inner().kind().name(),
            backlog_pkts: self.q.backlog().packets,
            in_flight: in_flight as u32,
            empty_dequeues: self.q.stats().empty_dequeues,
            capacity_bits: cap,
            utilization: if cap == 0 {
                0.0
            } else {
                (m.delivered_bytes as f64 * 8.0) / cap as f64
            },
            m,
        };
        (report, rows)
    }

    /// Hands out the rows of the first `k` bins held (from `bins.base`), complete up to `now`,
    /// and forgets them; `fill_to` rows get the carried queue level (those handed out and, if
    /// the run goes on, the current one). With `bins.base` then moved on by `k`.
    pub fn take_rows(
        &mut self,
        now: SimTime,
        bins: &Bins,
        k: usize,
        fill_to: usize,
    ) -> Vec<LinkBin> {
        // The last transmission, if it has ended, belongs to a bin being handed out.
        if matches!(self.sending, Some((end, _)) if end < now) {
            self.count_sent(bins);
        }
        // The queue's area up to now, so the bins handed out hold all of theirs.
        let (pkts, bytes) = (self.area.pkts, self.area.bytes);
        self.area.advance(
            now.as_nanos(),
            pkts,
            bytes,
            bins.bin_ns,
            bins.base,
            (bins.cur, bins.start_ns, bins.end_ns),
            &mut self.series,
        );
        let (lb, pkts, bytes) = self.level;
        if self.series.len() < fill_to {
            self.series.resize(fill_to, LinkBin::default());
        }
        if lb + 1 < fill_to {
            carry_level(&mut self.series[lb + 1..fill_to], pkts, bytes);
        }
        self.level.0 = lb.max(fill_to.saturating_sub(1)).saturating_sub(k);
        fill_capacity(
            &self.rate,
            &mut self.series[..k],
            bins.base,
            bins.bin_ns,
            now,
        );
        self.series.drain(..k).collect()
    }

    /// The per-packet records since the last take (empty when no log is kept), and the drops
    /// of the log.
    pub fn take_logs(&mut self) -> (Vec<PacketRecord>, Vec<super::DropRecord>) {
        (
            self.packet_log
                .as_mut()
                .map(std::mem::take)
                .unwrap_or_default(),
            std::mem::take(&mut self.drop_log),
        )
    }
}

/// Sets each row's `capacity_bits`: `rows[k]` is absolute bin `base + k`, counted up to `now`.
fn fill_capacity(rate: &LinkRate, rows: &mut [LinkBin], base: usize, bin_ns: u64, now: SimTime) {
    for (k, r) in rows.iter_mut().enumerate() {
        let start = ((base + k) as u64).saturating_mul(bin_ns);
        let end = start.saturating_add(bin_ns).min(now.as_nanos());
        let bits = rate.capacity_bits(SimTime::from_nanos(start), SimTime::from_nanos(end));
        r.capacity_bits = bits.min(u64::MAX as u128) as u64;
    }
}

/// Raises the largest backlog of each of `rows` to `pkts` packets and `bytes` bytes: the level
/// that held through bins without calls.
fn carry_level(rows: &mut [LinkBin], pkts: u64, bytes: u64) {
    for r in rows {
        r.max_backlog_pkts = r.max_backlog_pkts.max(pkts);
        r.max_backlog_bytes = r.max_backlog_bytes.max(bytes);
    }
}
