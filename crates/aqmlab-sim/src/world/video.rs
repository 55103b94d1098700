//! Adaptive video ([`TcpApp::Video`](super::TcpApp::Video)): segment-based HTTP adaptive
//! streaming over one persistent TCP connection, the "adaptive video" of RFC 7928 §9.1.
//!
//! The model (`docs/models/video.md`):
//!
//! * The video is cut into segments of `segment` seconds of media each. The server holds every
//!   segment at each rate of the bitrate `ladder`; a segment at rate `r` is `r·segment/8` bytes.
//! * The client asks for one segment at a time over its one connection (a request of
//!   `request_bytes`), the first at the lowest rate. When a segment has wholly arrived, the
//!   client measures its throughput, the segment's bytes·8 over the time from sending its
//!   request to receiving its last byte, and asks for the next at the highest rate of the ladder
//!   no greater than `safety` times that throughput (the lowest if none is):
//!   [`VideoSpec::choose`].
//! * A playout buffer holds the media downloaded and not yet played. Playback starts when the
//!   first segment has arrived and drains the buffer in real time; when the buffer runs dry the
//!   video stalls (rebuffers) until the next segment arrives, and then plays again. The client
//!   asks for the next segment at once while the buffer has room for it (the buffer holds at
//!   most `buffer` seconds), else when it has drained to `buffer − segment`: the on/off pattern
//!   of a streaming client at steady state: [`VideoState::arrive`].

use super::apps::{WebKind, WebMore};
use super::{Ev, FlowKind, Sim, TcpApp};
use crate::event::Lane;
use crate::packmime::Exchange;
use aqmlab_core::{Bitrate, SimDuration, SimTime};

/// An adaptive video flow's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct VideoSpec {
    /// Media duration of a segment (> 0).
    pub segment: SimDuration,
    /// The bitrates the video is encoded at, increasing (at least one).
    pub ladder: Vec<Bitrate>,
    /// The playout buffer's capacity, media time (≥ `segment`).
    pub buffer: SimDuration,
    /// The share of the measured throughput the next segment's rate may take, in (0, 1].
    pub safety: f64,
    /// Bytes of each segment request (≥ 1).
    pub request_bytes: u64,
}

impl VideoSpec {
    /// Bytes of a segment at ladder rung `level`: `rate·segment/8`, rounded down, at least 1.
    pub fn segment_bytes(&self, level: usize) -> u64 {
        let bits = self.ladder[level].as_bps() as u128 * self.segment.as_nanos() as u128;
        ((bits / 8_000_000_000) as u64).max(1)
    }

    /// The rung of the next segment after one that arrived at `throughput_bps`: the highest
    /// rate ≤ `safety·throughput_bps`, or the lowest rung when none is.
    pub fn choose(&self, throughput_bps: f64) -> usize {
        let budget = self.safety * throughput_bps;
        self.ladder
            .iter()
            .rposition(|r| r.as_bps() as f64 <= budget)
            .unwrap_or(0)
    }

    pub(super) fn validate(&self) -> Result<(), String> {
        if self.segment == SimDuration::ZERO {
            return Err("a video needs a segment duration > 0".into());
        }
        if self.ladder.is_empty() || self.ladder[0].as_bps() == 0 {
            return Err("a video needs a ladder of rates > 0".into());
        }
        if self.ladder.windows(2).any(|w| w[1] <= w[0]) {
            return Err("a video's ladder must increase".into());
        }
        if self.buffer < self.segment {
            return Err("a video's playout buffer must hold at least one segment".into());
        }
        if !(self.safety > 0.0 && self.safety <= 1.0) {
            return Err("a video's safety factor must be in (0, 1]".into());
        }
        if self.request_bytes == 0 {
            return Err("video requests need request_bytes > 0".into());
        }
        Ok(())
    }
}

/// A video client's playout state, as of `at`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct VideoState {
    /// Ladder rung of the segment being fetched.
    pub(super) level: usize,
    /// Media in the buffer at `at`, ns.
    pub(super) buffer_ns: u64,
    /// When `buffer_ns` was last brought up to date.
    pub(super) at: SimTime,
    /// Playing (draining the buffer); false before the first segment.
    pub(super) playing: bool,
}

/// What a segment's arrival did to the playout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Arrival {
    /// The first segment: playback starts now.
    pub(super) first: bool,
    /// The buffer had run dry this long before the segment came (a rebuffering event).
    pub(super) stall: Option<SimDuration>,
    /// How long the client waits before asking for the next segment.
    pub(super) wait: SimDuration,
}

impl VideoState {
    /// A segment of `segment` media arrives at `now`; the buffer holds at most `buffer`.
    pub(super) fn arrive(
        &mut self,
        now: SimTime,
        segment: SimDuration,
        buffer: SimDuration,
    ) -> Arrival {
        let mut stall = None;
        let first = !self.playing;
        if self.playing {
            let played = (now - self.at).as_nanos();
            if played > self.buffer_ns {
                stall = Some(SimDuration::from_nanos(played - self.buffer_ns));
                self.buffer_ns = 0;
            } else {
                self.buffer_ns -= played;
            }
        }
        self.buffer_ns += segment.as_nanos();
        self.at = now;
        self.playing = true;
        let room_at = buffer.as_nanos() - segment.as_nanos();
        Arrival {
            first,
            stall,
            wait: SimDuration::from_nanos(self.buffer_ns.saturating_sub(room_at)),
        }
    }

    /// The stall going on at `now` (the buffer ran dry and no segment has come since), if any,
    /// as (when it began, how long so far).
    pub(super) fn stalled(&self, now: SimTime) -> Option<(SimTime, SimDuration)> {
        let dry = self.at + SimDuration::from_nanos(self.buffer_ns);
        (self.playing && now > dry).then(|| (dry, now - dry))
    }
}

impl Sim {
    /// Flow `f`'s video starts: the client connects and asks for the first segment at the
    /// lowest rate.
    pub(super) fn open_video(&mut self, f: u32) {
        let now = self.now;
        let FlowKind::Tcp { spec, app, .. } = &mut self.flows[f as usize].kind else {
            unreachable!()
        };
        let TcpApp::Video(v) = &spec.app else {
            unreachable!("a video flow")
        };
        let first = Exchange {
            request: v.request_bytes,
            response: v.segment_bytes(0),
            gap: 0.0,
        };
        app.video = VideoState::default();
        let (c, _) = self.open_conn(f, Some(first.request), Some(first.response), false);
        if let Some(conn) = self.conns.try_get_mut(c) {
            conn.web_more = Some(Box::new(WebMore::new(&[first], now, WebKind::Video)));
        }
    }

    /// The client of video connection `conn` has wholly received its latest segment: the
    /// playout takes it, the next segment's rate is chosen from its throughput, and the next
    /// request is scheduled (none once the flow has stopped).
    pub(super) fn video_segment_in(&mut self, conn: u32, gen: u32) {
        let now = self.now;
        let c = self.conns.get_mut(conn);
        let flow = c.flow;
        let w = c.web_more.as_deref_mut().expect("a persistent connection");
        let k = w.received - 1;
        let (bytes, asked_at) = (w.ex[k].response, w.started[k]);
        let fl = &mut self.flows[flow as usize];
        let FlowKind::Tcp { spec, app, .. } = &mut fl.kind else {
            unreachable!()
        };
        let TcpApp::Video(v) = &spec.app else {
            unreachable!("a video flow")
        };
        let m = &mut fl.m;
        let level = app.video.level;
        let a = app.video.arrive(now, v.segment, v.buffer);
        m.video_segments += 1;
        m.video_bitrate_sum_bps += v.ladder[level].as_bps();
        if a.first {
            m.video_startup_ns = Some((now - spec.start).as_nanos());
        }
        if let Some(stall) = a.stall {
            m.video_rebuffers += 1;
            m.video_rebuffer_ns += stall.as_nanos();
        }
        let elapsed = (now - asked_at).as_secs_f64();
        let next = v.choose(bytes as f64 * 8.0 / elapsed.max(1e-9));
        m.video_switches += (next != level) as u64;
        app.video.level = next;
        let at = now + a.wait;
        if spec.stop.is_some_and(|s| at >= s) {
            return; // the connection closes once its last segment is acknowledged
        }
        w.push(Exchange {
            request: v.request_bytes,
            response: v.segment_bytes(next),
            gap: a.wait.as_secs_f64(),
        });
        self.events
            .push_in(Lane::Timers, at, Ev::WebNext { conn, gen });
    }

    /// Flow `f`'s video stall going on at the report (not yet counted: a stall is counted when
    /// the segment that ends it arrives), if it began before the flow stopped.
    pub(super) fn video_stall_now(&self, f: u32) -> Option<SimDuration> {
        let FlowKind::Tcp { spec, app, .. } = &self.flows[f as usize].kind else {
            return None;
        };
        if !matches!(spec.app, TcpApp::Video(_)) {
            return None;
        }
        let (from, len) = app.video.stalled(self.now)?;
        spec.stop.is_none_or(|s| from < s).then_some(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> VideoSpec {
        VideoSpec {
            segment: SimDuration::from_secs(2),
            ladder: [250_000, 500_000, 1_000_000, 2_000_000]
                .map(Bitrate::from_bps)
                .to_vec(),
            buffer: SimDuration::from_secs(8),
            safety: 0.8,
            request_bytes: 300,
        }
    }

    #[test]
    fn the_next_rate_is_the_highest_under_the_safety_share_of_the_throughput() {
        let v = spec();
        // 0.8 × 1.25 Mb/s = 1 Mb/s: exactly the 1 Mb/s rung (≤, not <).
        assert_eq!(v.choose(1_250_000.0), 2);
        assert_eq!(v.choose(1_249_999.0), 1);
        assert_eq!(v.choose(2_500_000.0), 3);
        assert_eq!(v.choose(1e12), 3);
        // Below the lowest rung's share: the lowest rung.
        assert_eq!(v.choose(100_000.0), 0);
        assert_eq!(v.choose(0.0), 0);
    }

    #[test]
    fn a_segment_is_its_rate_times_its_duration() {
        let v = spec();
        assert_eq!(v.segment_bytes(0), 62_500);
        assert_eq!(v.segment_bytes(3), 500_000);
    }

    #[test]
    fn the_buffer_drains_in_real_time_stalls_when_dry_and_caps_the_requests() {
        let (seg, cap) = (SimDuration::from_secs(2), SimDuration::from_secs(8));
        let t = |ms: u64| SimTime::ZERO + SimDuration::from_millis(ms);
        let mut s = VideoState::default();
        // First segment at 0.5 s: playback starts, 2 s buffered, room for more.
        let a = s.arrive(t(500), seg, cap);
        assert!(a.first && a.stall.is_none() && a.wait == SimDuration::ZERO);
        // Second at 1.0 s: 1.5 + 2 = 3.5 s buffered.
        let a = s.arrive(t(1000), seg, cap);
        assert!(!a.first && a.stall.is_none());
        assert_eq!(s.buffer_ns, 3_500_000_000);
        // Two more quickly: 3.5 + 2 + 2 = 7.5 s at 1.0 s; above 8 − 2 = 6 s, wait 1.5 s.
        s.arrive(t(1000), seg, cap);
        let a = s.arrive(t(1000), seg, cap);
        assert_eq!(a.wait, SimDuration::from_millis(1500));
        // Nothing for 9 s: the 7.5 s ran out at 8.5 s, a 1.5-s stall ends at 10 s.
        assert_eq!(
            s.stalled(t(9000)),
            Some((t(8500), SimDuration::from_millis(500)))
        );
        let a = s.arrive(t(10_000), seg, cap);
        assert_eq!(a.stall, Some(SimDuration::from_millis(1500)));
        assert_eq!(s.buffer_ns, 2_000_000_000);
        assert_eq!(s.stalled(t(11_000)), None);
        // Exactly dry when the next comes: no stall.
        let a = s.arrive(t(12_000), seg, cap);
        assert_eq!(a.stall, None);
    }
}
