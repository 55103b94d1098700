//! Linux's HyStart: how CUBIC in Linux leaves its slow start before the buffer overflows
//! (`hystart_update` in net/ipv4/tcp_cubic.c, on by default with both detectors; Ha and Rhee,
//! "Taming the elephants: New TCP slow start", Computer Networks 55(9), 2011). It is not
//! HyStart++ (RFC 9406, [`super::HyStart`]): it ends slow start outright (`ssthresh = cwnd`)
//! on either of two signs, checked on every ACK with an RTT sample once `cwnd` ≥ 16 segments
//! (as Linux 5.7 and later, which follow the rounds from the first ACK):
//!
//! * ACK train: within a round (from the first ACK past the previous round's `snd_nxt`), ACKs
//!   spaced at most 2 ms apart (`hystart_ack_delta_us`) have kept coming for longer than half
//!   of `delay_min + hystart_ack_delay` (an unpaced sender). The train of a round lasts as long
//!   as the bottleneck takes to send the round's window, so it passes `delay_min / 2` when the
//!   window reaches about half the bandwidth-delay product. `hystart_ack_delay` is
//!   `min(1 ms, 4 · gso_max_size / pacing_rate)`: 1 ms at the rates simulated here (64 KB of
//!   GSO at up to 262 Mb/s), taken as 1 ms.
//! * Delay increase: the round's minimum RTT, once it has 8 samples (`HYSTART_MIN_SAMPLES`),
//!   exceeds `delay_min + clamp(delay_min / 8, 4 ms, 16 ms)`, where `delay_min` is the
//!   connection's minimum RTT.

use aqmlab_core::{SimDuration, SimTime};

/// `hystart_low_window`: below this window (segments) HyStart does not look.
pub const LOW_WINDOW_SEGMENTS: f64 = 16.0;
/// `hystart_ack_delta_us`: ACKs further apart than this break the train.
pub const ACK_DELTA: SimDuration = SimDuration::from_micros(2000);
/// `hystart_ack_delay()` at the rates simulated (see the module documentation).
pub const ACK_DELAY: SimDuration = SimDuration::from_millis(1);
/// `HYSTART_MIN_SAMPLES`: RTT samples a round needs before its minimum counts.
pub const MIN_SAMPLES: u32 = 8;
/// `HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`: the clamp of the delay-increase threshold.
pub const DELAY_THRESH_MIN: SimDuration = SimDuration::from_millis(4);
/// Upper clamp of the delay-increase threshold.
pub const DELAY_THRESH_MAX: SimDuration = SimDuration::from_millis(16);

/// Linux HyStart state of one CUBIC sender.
#[derive(Clone, Debug, Default)]
pub struct LinuxHyStart {
    /// Slow start was ended (`ca->found`).
    found: bool,
    /// The connection's minimum RTT (`ca->delay_min`).
    delay_min: Option<SimDuration>,
    /// The current round (`round_start`, `end_seq`), once one has started.
    round: Option<(SimTime, u64)>,
    /// The last ACK of the round's train (`ca->last_ack`).
    last_ack: SimTime,
    /// The round's minimum RTT and its sample count (`curr_rtt`, `sample_cnt`).
    curr_rtt: Option<SimDuration>,
    samples: u32,
}

impl LinuxHyStart {
    /// A fresh state (a new connection, or after a timeout: `bictcp_reset` clears it).
    pub fn new() -> LinuxHyStart {
        LinuxHyStart::default()
    }

    /// An ACK at `now` with RTT sample `rtt`, `snd_una` and `snd_nxt` after it, the window
    /// `cwnd_segs` and whether the sender is in slow start: true when slow start must end now
    /// (`bictcp_acked`, then `hystart_update`).
    pub fn on_ack(
        &mut self,
        now: SimTime,
        rtt: Option<SimDuration>,
        snd_una: u64,
        snd_nxt: u64,
        cwnd_segs: f64,
        in_slow_start: bool,
    ) -> bool {
        // Calls without an RTT sample do nothing.
        let Some(delay) = rtt else { return false };
        let delay = delay.max(SimDuration::from_nanos(1));
        let min = *self.delay_min.get_or_insert(delay);
        let delay_min = min.min(delay);
        self.delay_min = Some(delay_min);
        if self.found || !in_slow_start {
            return false;
        }
        if self.round.is_none_or(|(_, end_seq)| snd_una > end_seq) {
            // `bictcp_hystart_reset`: a new round. Rounds are followed below the low window
            // too (Linux 5.7 on), so they start where the flights do.
            self.round = Some((now, snd_nxt));
            self.last_ack = now;
            self.curr_rtt = None;
            self.samples = 0;
        }
        if cwnd_segs < LOW_WINDOW_SEGMENTS {
            return false;
        }
        let (round_start, _) = self.round.expect("set above");
        // ACK-train detection.
        if now.saturating_since(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            let threshold = SimDuration::from_nanos((delay_min + ACK_DELAY).as_nanos() / 2);
            if now.saturating_since(round_start) > threshold {
                self.found = true;
            }
        }
        // Delay-increase detection.
        let curr = self.curr_rtt.map_or(delay, |c| c.min(delay));
        self.curr_rtt = Some(curr);
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else {
            let eta = SimDuration::from_nanos(delay_min.as_nanos() / 8)
                .max(DELAY_THRESH_MIN)
                .min(DELAY_THRESH_MAX);
            if curr > delay_min + eta {
                self.found = true;
            }
        }
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;

    /// ACKs every `gap` from `t0`, each acking 2 segments, with RTT `rtt`: the first time one
    /// ends slow start, as (ACK index, time).
    fn first_exit(h: &mut LinuxHyStart, gap_us: u64, rtt_ms: u64, cwnd: f64) -> Option<usize> {
        let t0 = SimTime::from_millis(100);
        (0..200).find(|&k| {
            let now = t0 + SimDuration::from_micros(gap_us * k as u64);
            let una = (k as u64 + 1) * 2 * MSS;
            h.on_ack(
                now,
                Some(SimDuration::from_millis(rtt_ms)),
                una,
                una + 1_000_000,
                cwnd,
                true,
            )
        })
    }

    #[test]
    fn a_train_longer_than_half_the_minimum_rtt_ends_slow_start() {
        // 40 ms minimum RTT: the threshold is (40 + 1) / 2 = 20.5 ms of ACKs 2 ms apart, so the
        // 12th ACK (22 ms after the round's first) ends slow start, and not the 11th (20 ms).
        let mut h = LinuxHyStart::new();
        assert_eq!(first_exit(&mut h, 2000, 40, 32.0), Some(11));
        // ACKs 2.1 ms apart are no train; a constant RTT is no delay increase.
        let mut h = LinuxHyStart::new();
        assert_eq!(first_exit(&mut h, 2100, 40, 32.0), None);
        // Below 16 segments it does not look.
        let mut h = LinuxHyStart::new();
        assert_eq!(first_exit(&mut h, 2000, 40, 15.0), None);
    }

    #[test]
    fn a_round_whose_minimum_rtt_rose_by_an_eighth_ends_slow_start() {
        let mut h = LinuxHyStart::new();
        let una = |k: u64| k * MSS;
        // The minimum, 40 ms, is seen first; the threshold is 40 + 5 ms.
        let at = |ms: u64| SimTime::from_millis(ms);
        assert!(!h.on_ack(
            at(0),
            Some(SimDuration::from_millis(40)),
            una(1),
            una(100),
            20.0,
            true
        ));
        // A new round (snd_una past 100 segments) of ACKs 3 ms apart (no train), all 45 ms:
        // not above the threshold. Then a round at 46 ms: its 9th sample ends slow start.
        for k in 0..12 {
            let now = at(100 + 3 * k);
            let r = Some(SimDuration::from_millis(45));
            assert!(!h.on_ack(now, r, una(101 + k), una(200), 20.0, true));
        }
        let exits: Vec<bool> = (0..10)
            .map(|k| {
                let now = at(300 + 3 * k);
                let r = Some(SimDuration::from_millis(46));
                h.on_ack(now, r, una(201 + k), una(300), 20.0, true)
            })
            .collect();
        assert_eq!(exits.iter().position(|&e| e), Some(8), "{exits:?}");
    }
}
