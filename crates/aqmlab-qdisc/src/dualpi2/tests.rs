//! RFC 9332 Appendix A's rules one by one, with exact values, and Linux `sch_dualpi2`'s fixed
//! point. The state p' is set directly where a rule is about what follows from a given p'.

use super::*;
use crate::contract::QdiscEvent;
use aqmlab_core::FlowId;
use std::sync::Arc;

fn cfg(items: &[&str]) -> Dualpi2Config {
    let pairs = Params::split_pairs(items).unwrap();
    Dualpi2Config::from_params(&Params::new("dualpi2", PARAMS, &pairs).unwrap()).unwrap()
}

fn err(items: &[&str]) -> String {
    let pairs = Params::split_pairs(items).unwrap();
    Params::new("dualpi2", PARAMS, &pairs)
        .and_then(|p| Dualpi2Config::from_params(&p))
        .unwrap_err()
        .to_string()
}

/// A source whose draws are `draws`, then 0.5.
fn list(draws: &[f64]) -> UniformSource {
    UniformSource::List {
        draws: Arc::from(draws.to_vec()),
        next: 0,
    }
}

/// A discipline and its event channel; packets are stamped as the `Qdisc` wrapper does.
struct H {
    q: DualPi2,
    cx: QdiscCx,
    id: u64,
}

impl H {
    fn new(items: &[&str]) -> H {
        H::with(items, UniformSource::seeded(1))
    }
    fn with(items: &[&str], u: UniformSource) -> H {
        H {
            q: DualPi2::new(cfg(items), u),
            cx: QdiscCx::new(),
            id: 0,
        }
    }
    fn enq(&mut self, t_ns: u64, ecn: Ecn, size: u32) {
        let mut p = Packet::new(self.id, size, FlowId(0));
        self.id += 1;
        p.ecn = ecn;
        p.enqueue_ns = t_ns;
        self.cx.clear();
        self.q.enqueue(SimTime::from_nanos(t_ns), p, &mut self.cx);
    }
    fn deq(&mut self, t_ns: u64) -> Option<Packet> {
        self.cx.clear();
        self.q.dequeue(SimTime::from_nanos(t_ns), &mut self.cx)
    }
    fn marks(&self) -> Vec<MarkReason> {
        self.cx
            .events()
            .iter()
            .filter_map(|e| match e {
                QdiscEvent::Marked { reason, .. } => Some(*reason),
                _ => None,
            })
            .collect()
    }
    fn drops(&self) -> Vec<(Stage, DropReason)> {
        self.cx
            .events()
            .iter()
            .filter_map(|e| match e {
                QdiscEvent::Dropped { stage, reason, .. } => Some((*stage, *reason)),
                _ => None,
            })
            .collect()
    }
}

const MS: u64 = 1_000_000;

/// No update runs in the tests that set p' by hand.
const NO_UPDATE: &str = "tupdate=1000s";

#[test]
fn defaults_are_linux_sch_dualpi2s() {
    let c = Dualpi2Config::defaults();
    assert_eq!(c.limit, Size::Packets(10_000));
    assert_eq!(c.target, SimDuration::from_millis(15));
    assert_eq!(c.tupdate, SimDuration::from_millis(16));
    assert_eq!(c.alpha * 256.0, 41.0);
    assert_eq!(c.beta * 256.0, 819.0);
    assert_eq!(c.step_thresh, StepThresh::Time(MS));
    assert_eq!(c.min_qlen_step, 0);
    assert_eq!(c.k, 2);
    assert_eq!(c.wc, 10);
    assert!(c.drop_on_overload && !c.drop_early && !c.any_ect);
    assert_eq!(c.variant, Dualpi2Variant::Linux);
    // Linux's internal gains and what tc reads back for the defaults.
    let q = DualPi2::new(c, UniformSource::seeded(1));
    assert_eq!((q.alpha_fp, q.beta_fp), (44, 879));
    let (a, b) = q.linux_gains_as_tc_prints();
    assert_eq!(
        (format!("{a:.6}"), format!("{b:.6}")),
        ("0.156250".into(), "3.195312".into())
    );
    // RFC 9332 A.1: p_Cmax = min(1/k², 1).
    assert_eq!(q.p_cmax, 0.25);
    assert_eq!(
        DualPi2::new(cfg(&["coupling_factor=1"]), UniformSource::seeded(1)).p_cmax,
        1.0
    );
}

#[test]
fn tc_derives_target_tupdate_alpha_beta_from_the_rtts() {
    // The Linux selftest: typical_rtt 20ms max_rtt 200ms -> target 20ms tupdate 20ms
    // alpha 0.042969 beta 1.496094.
    let c = cfg(&["typical_rtt=20ms", "max_rtt=200ms"]);
    assert_eq!(c.target, SimDuration::from_millis(20));
    assert_eq!(c.tupdate, SimDuration::from_millis(20)); // min(20 ms, 200/3 ms)
    assert_eq!(c.alpha, 0.05f32 as f64); // 0.1·20 ms/(200 ms)² in tc's float
    assert_eq!(c.beta, 1.5); // 0.3/200 ms
    let q = DualPi2::new(c, UniformSource::seeded(1));
    // floor(0.05·256) = 12 and floor(1.5·256) = 384 in 1/256 Hz; the kernel's round trip
    // (12 -> 12 -> 11, 384 -> 412 -> 383) is what tc prints.
    assert_eq!((q.alpha_fp, q.beta_fp), (12, 412));
    let (a, b) = q.linux_gains_as_tc_prints();
    assert_eq!(
        (format!("{a:.6}"), format!("{b:.6}")),
        ("0.042969".into(), "1.496094".into())
    );
    // max_rtt alone: typical = max/6 (33333 µs), tupdate = min(typical, max/3).
    let c = cfg(&["max_rtt=200ms"]);
    assert_eq!(c.target, SimDuration::from_micros(33_333));
    assert_eq!(c.tupdate, SimDuration::from_micros(33_333));
    // typical_rtt above max_rtt/3: tupdate = max_rtt/3 in tc's whole microseconds (66666 µs),
    // and alpha follows that tupdate: 0.1·66.666 ms/(200 ms)² ≈ 0.166665 Hz.
    let c = cfg(&["typical_rtt=100ms", "max_rtt=200ms"]);
    assert_eq!(c.target, SimDuration::from_millis(100));
    assert_eq!(c.tupdate, SimDuration::from_micros(66_666));
    assert_eq!(format!("{:.6}", c.alpha), "0.166665");
    assert_eq!(c.beta, 1.5);
    // typical_rtt alone: max = 6·typical.
    let c = cfg(&["typical_rtt=10ms"]);
    assert_eq!(
        (c.target, c.tupdate),
        (SimDuration::from_millis(10), SimDuration::from_millis(10))
    );
    assert_eq!(c.beta, 5.0 + 1.0 / 2_097_152.0); // 0.3/60 ms in tc's f32: one ulp (2^-21) above 5
    assert_eq!((c.beta * 256.0).floor(), 1280.0);
    // One line naming the parameter.
    assert_eq!(
        err(&["max_rtt=100ms", "alpha=0.2"]),
        "dualpi2: parameter max_rtt = 100ms: max_rtt derives alpha: give one or the other, not both"
    );
    assert_eq!(
        err(&["typical_rtt=30ms", "max_rtt=20ms"]),
        "dualpi2: parameter max_rtt = 20ms: typical_rtt (30000us) must not exceed max_rtt (20000us)"
    );
    assert!(
        err(&["max_rtt=100s"]).starts_with("dualpi2: parameter max_rtt = 100s: derives alpha = ")
    );
    // Every parameter written out at its default (as a resolved scenario does) still derives.
    let pairs = Params::split_pairs(&["max_rtt=200ms", "typical_rtt=20ms"]).unwrap();
    let p = Params::new("dualpi2", PARAMS, &pairs).unwrap();
    let all: Vec<(String, String)> = p
        .resolved()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert!(all.iter().any(|(k, v)| k == "target" && v == "15ms"));
    let again = Dualpi2Config::from_params(&Params::new("dualpi2", PARAMS, &all).unwrap());
    assert_eq!(again.unwrap(), cfg(&["typical_rtt=20ms", "max_rtt=200ms"]));
}

#[test]
fn bad_parameters_are_one_line_errors() {
    assert_eq!(
        err(&["step_thresh=abc"]),
        "dualpi2: parameter step_thresh = abc: expected a duration or a packet count >= 0 (like 1ms or 5p)"
    );
    assert_eq!(
        err(&["coupling_factor=0"]),
        "dualpi2: parameter coupling_factor = 0: expected an integer in [1, 255]"
    );
    assert_eq!(
        err(&["classic_protection=101"]),
        "dualpi2: parameter classic_protection = 101: expected an integer in [0, 100] (percent)"
    );
    assert_eq!(
        err(&["step_range=400us"]),
        "dualpi2: parameter step_range = 400us: a ramp needs variant=rfc (Linux's native L AQM is a step)"
    );
    assert!(err(&["alpha=0.001"]).starts_with("dualpi2: parameter alpha = 0.001: expected [1/256,"));
    assert!(err(&["variant=rfc", "drop_at=enqueue"])
        .starts_with("dualpi2: parameter drop_at = enqueue:"));
    assert!(err(&["tupdate=10ns"])
        .starts_with("dualpi2: parameter tupdate = 10ns: expected a duration >= 1us"));
    assert_eq!(cfg(&["step_thresh=5p"]).step_thresh, StepThresh::Packets(5));
}

#[test]
fn classifier_sends_ect1_and_ce_to_l_and_the_rest_to_c() {
    // RFC 9332 A.1 enqueue: `if (ecn(pkt) modulo 2 == 1)` -> L (ECT(1) = 01, CE = 11).
    for (mask, ect0_to_l) in [("l4s_ect", false), ("any_ect", true)] {
        let mut h = H::new(&[&format!("ecn_mask={mask}")]);
        for e in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce] {
            h.enq(0, e, 100);
        }
        let (l, c) = h.q.queues();
        let to_l = if ect0_to_l { 3 } else { 2 };
        assert_eq!((l.packets, c.packets), (to_l, 4 - to_l), "{mask}");
        assert_eq!(l.bytes + c.bytes, 400);
    }
}

#[test]
fn limit_counts_both_queues_and_drops_at_enqueue() {
    // A.1 enqueue: the buffer test is on both queues together.
    let mut h = H::new(&["limit=3p"]);
    h.enq(0, Ecn::Ect1, 100);
    h.enq(0, Ecn::NotEct, 100);
    h.enq(0, Ecn::Ect1, 100);
    assert!(h.drops().is_empty());
    h.enq(0, Ecn::NotEct, 100);
    assert_eq!(h.drops(), [(Stage::Enqueue, DropReason::Overlimit)]);
    h.enq(0, Ecn::Ect1, 100);
    assert_eq!(h.drops(), [(Stage::Enqueue, DropReason::Overlimit)]);
    assert_eq!(h.q.backlog().packets, 3);
    let mut h = H::new(&["limit=250B"]);
    h.enq(0, Ecn::Ect1, 100);
    h.enq(0, Ecn::NotEct, 100);
    h.enq(0, Ecn::NotEct, 51);
    assert_eq!(h.drops(), [(Stage::Enqueue, DropReason::Overlimit)]);
    h.enq(0, Ecn::NotEct, 50);
    assert!(h.drops().is_empty());
}

#[test]
fn rfc_pi_update_is_alpha_and_beta_on_the_larger_head_sojourn() {
    // A.1/A.2 dualpi2_update: p' += alpha·(curq − target) + beta·(curq − prevq), curq the larger
    // head sojourn, p' bounded to [0, 1]; updates every Tupdate from the start.
    let (a, b) = (41.0 / 256.0, 819.0 / 256.0);
    let s = |ms: u64| (ms * MS) as f64 / 1e9;
    let mut h = H::new(&["variant=rfc"]);
    h.enq(0, Ecn::NotEct, 1000); // C head from 0
    h.enq(4 * MS, Ecn::Ect1, 1000); // L head from 4 ms
    h.q.advance_to(SimTime::from_nanos(16 * MS)); // due at 16 ms: not yet (strictly before)
    assert_eq!(h.q.p_prime(), 0.0);
    h.q.advance_to(SimTime::from_nanos(16 * MS + 1));
    let p1 = (a * (s(16) - s(15)) + b * (s(16) - 0.0)).clamp(0.0, 1.0);
    assert_eq!(h.q.p_prime(), p1);
    assert!((p1 - 0.05134765625).abs() < 1e-15);
    assert_eq!(h.q.p_c(), p1 * p1); // p_C = p'²
    assert_eq!(h.q.p_cl(), 2.0 * p1); // p_CL = k·p'
                                      // The C head leaves at 20 ms; the L head (4 ms) is now the older: curq = 32 − 4 = 28 ms.
                                      // Both queues' heads: the scheduler serves L first (credit < 0), so take two packets.
    assert_eq!(h.deq(20 * MS).unwrap().ecn, Ecn::Ect1);
    h.enq(20 * MS, Ecn::NotEct, 1000);
    assert_eq!(h.deq(20 * MS).unwrap().ecn, Ecn::NotEct); // L empty: C
                                                          // C head now from 20 ms: curq at 32 ms is 12 ms.
    h.q.advance_to(SimTime::from_nanos(32 * MS + 1));
    let p2 = (p1 + a * (s(12) - s(15)) + b * (s(12) - s(16))).clamp(0.0, 1.0);
    assert_eq!(h.q.p_prime(), p2);
    // Counterfactual for the max: with an older L head, curq is the L head's sojourn.
    let mut h = H::new(&["variant=rfc"]);
    h.enq(0, Ecn::Ect1, 1000);
    h.enq(10 * MS, Ecn::NotEct, 1000);
    h.q.advance_to(SimTime::from_nanos(16 * MS + 1));
    assert_eq!(h.q.p_prime(), a * (s(16) - s(15)) + b * s(16));
    // Bounded above by 1 and below by 0.
    let mut h = H::new(&["variant=rfc", "beta=1000"]);
    h.enq(0, Ecn::NotEct, 1000);
    h.q.advance_to(SimTime::from_nanos(16 * MS + 1));
    assert_eq!(h.q.p_prime(), 1.0);
    h.deq(16 * MS + 1).unwrap();
    h.q.advance_to(SimTime::from_nanos(32 * MS + 1)); // curq 0: −alpha·target − beta·16 ms
    assert_eq!(h.q.p_prime(), 0.0);
}

#[test]
fn rfc_idle_decay_is_lazy_and_exact() {
    let a = 41.0 / 256.0;
    let mut h = H::new(&["variant=rfc"]);
    h.q.pi.p = 0.5;
    // Ten updates (16 … 160 ms) run at the empty dequeue at 160 ms + 1 ns.
    assert!(h.deq(160 * MS + 1).is_none());
    let mut want = 0.5f64;
    for _ in 0..10 {
        want = (want + a * (0.0 - 0.015) + 0.0).clamp(0.0, 1.0);
    }
    assert_eq!(h.q.p_prime(), want);
    assert_eq!(h.q.next_update(), SimTime::from_nanos(176 * MS));
    // A long idle gap reaches 0 and stays there; the grid is kept.
    assert!(h.deq(1000 * 1000 * MS + 5).is_none());
    assert_eq!(h.q.p_prime(), 0.0);
    assert_eq!(h.q.next_update().as_nanos() % (16 * MS), 0);
    assert!(h.q.next_update().as_nanos() > 1000 * 1000 * MS);
}

#[test]
fn linux_fixed_point_update() {
    // Linux calculate_probability: delta = (qdelay − target)·alpha + (qdelay − last)·beta in
    // ns × internal units (alpha 44, beta 879), prob += delta/64, bounded to [0, 2^32 − 1].
    let mut h = H::new(&[]);
    h.enq(0, Ecn::NotEct, 1000);
    h.q.advance_to(SimTime::from_nanos(16 * MS + 1));
    let d1: u64 = (16 * MS - 15 * MS) * 44 + 16 * MS * 879; // 14,108,000,000
    assert_eq!(h.q.prob_u32() as u64, d1 / 64);
    assert_eq!(h.q.prob_u32(), 220_437_500);
    // 32 ms: the head is still there (sojourn 32 ms).
    h.q.advance_to(SimTime::from_nanos(32 * MS + 1));
    let d2 = (32 * MS - 15 * MS) * 44 + (32 * MS - 16 * MS) * 879;
    assert_eq!(h.q.prob_u32() as u64, (d1 / 64) + d2 / 64);
    assert_eq!(h.q.prob_u32(), 451_875_000);
    // Emptied: at 48 ms delta = −15 ms·44 − 32 ms·879 = −28,788,000,000 (/64 = 449,812,500);
    // at 64 ms −15 ms·44 (/64 = 10,312,500) would go below 0: floored at 0.
    h.deq(40 * MS).unwrap();
    h.q.advance_to(SimTime::from_nanos(48 * MS + 1));
    assert_eq!(h.q.prob_u32(), 2_062_500);
    h.q.advance_to(SimTime::from_nanos(64 * MS + 1));
    assert_eq!(h.q.prob_u32(), 0);
    // The ceiling, and overflow mode's cap at MAX_PROB / k.
    for (items, cap) in [
        (&["beta=1000000"][..], MAX_PROB),
        (
            &["beta=1000000", "drop_on_overload=false"][..],
            MAX_PROB / 2,
        ),
        (
            &[
                "beta=1000000",
                "drop_on_overload=false",
                "coupling_factor=3",
            ][..],
            MAX_PROB / 3,
        ),
    ] {
        let mut h = H::new(items);
        h.enq(0, Ecn::NotEct, 1000);
        h.q.advance_to(SimTime::from_nanos(16 * MS + 1));
        assert_eq!(h.q.prob_u32(), cap, "{items:?}");
    }
}

#[test]
fn recur_returns_true_with_the_likelihood_deterministically() {
    // A.1 recur(): count += likelihood; true (and count −= 1) once count > 1.
    let mut c = 0.0;
    let fired: Vec<usize> = (1..=20).filter(|_| recur(&mut c, 0.25)).collect();
    assert_eq!(fired, [5, 9, 13, 17]); // 1.0 is not > 1: the fourth call does not fire
    let mut c = 0.0;
    assert_eq!((0..64).filter(|_| recur(&mut c, 9.0 / 64.0)).count(), 8);
    let mut c = 0.0;
    assert_eq!((0..10).filter(|_| recur(&mut c, 1.0)).count(), 9);
}

/// `n` packets of one codepoint, each dequeued at its arrival (sojourn 0: no native marking),
/// through a queue at p' = `p`; returns (delivered, marks, drops).
fn through(
    items: &[&str],
    p: f64,
    ecn: Ecn,
    n: usize,
) -> (usize, Vec<MarkReason>, Vec<DropReason>) {
    let mut h = H::new(items);
    h.q.pi.p = p;
    let (mut out, mut marks, mut drops) = (0, vec![], vec![]);
    for _ in 0..n {
        h.enq(0, ecn, 1000);
        if h.deq(0).is_some() {
            out += 1;
        }
        marks.extend(h.marks());
        drops.extend(h.drops().into_iter().map(|(_, r)| r));
        assert_eq!(h.q.backlog().packets, 0);
    }
    (out, marks, drops)
}

#[test]
fn rfc_classic_queue_is_squared_and_the_l_queue_is_coupled_by_k() {
    // p' = 3/8 (k = 2): p_C = 9/64, p_CL = 3/4, both exact in binary; recur over 64 packets
    // fires 8 times at 9/64 and 47 times at 3/4 (the last accumulator step reaches exactly 1).
    let rfc = ["variant=rfc", NO_UPDATE];
    let (out, marks, drops) = through(&rfc, 0.375, Ecn::Ect0, 64);
    assert_eq!((out, marks.len(), drops.len()), (64, 8, 0));
    assert!(marks.iter().all(|r| *r == MarkReason::Dualpi2Classic));
    let (out, marks, drops) = through(&rfc, 0.375, Ecn::NotEct, 64);
    assert_eq!((out, marks.len(), drops.len()), (56, 0, 8));
    assert!(drops.iter().all(|r| *r == DropReason::Dualpi2Classic));
    let (out, marks, drops) = through(&rfc, 0.375, Ecn::Ect1, 64);
    assert_eq!((out, marks.len(), drops.len()), (64, 47, 0));
    assert!(marks.iter().all(|r| *r == MarkReason::Dualpi2Coupled));
    // k = 3: p_CL = 9/8 ≥ 1 is overload already; k = 1: p_CL = 3/8, 64·3/8 = 24 -> 23 marks.
    let (_, marks, _) = through(
        &["variant=rfc", NO_UPDATE, "coupling_factor=1"],
        0.375,
        Ecn::Ect1,
        64,
    );
    assert_eq!(marks.len(), 23);
    // CE in L passes unchanged: no mark event.
    let (out, marks, drops) = through(&rfc, 0.375, Ecn::Ce, 64);
    assert_eq!((out, marks.len(), drops.len()), (64, 0, 0));
}

#[test]
fn rfc_overload_drops_in_both_queues() {
    // p' = 1/2, k = 2: p_CL = 1 (not < p_Lmax) and p_C = 1/4 = p_Cmax: overload (A.2).
    let rfc = ["variant=rfc", NO_UPDATE];
    // L: recur(lq, p_C) drops, else recur(lq, p_CL) marks; with the shared accumulator the
    // 5th, 9th, 13th packets are dropped and every other one is marked.
    let mut h = H::new(&rfc);
    h.q.pi.p = 0.5;
    let mut fates = String::new();
    for _ in 0..13 {
        h.enq(0, Ecn::Ect1, 1000);
    }
    for _ in 0..13 {
        let before = h.q.backlog().packets;
        let got = h.deq(0);
        let dropped = h.drops().len();
        fates.push_str(&"D".repeat(dropped));
        if got.is_some() {
            fates.push(if h.marks().is_empty() { '-' } else { 'M' });
        }
        assert_eq!(
            before as usize,
            h.q.backlog().packets as usize + dropped + got.is_some() as usize
        );
    }
    assert_eq!(&fates[..13], "MMMMDMMMDMMMD");
    assert!(h.q.backlog().packets == 0);
    // C: ECT(0) packets selected by p_C are dropped, not marked ("overload disables ECN").
    let (out, marks, drops) = through(&rfc, 0.5, Ecn::Ect0, 20);
    assert_eq!(
        (out, marks.len(), drops),
        (16, 0, vec![DropReason::Dualpi2Overload; 4])
    );
    // Just below overload (p' = 0.5 − 2^-10): ECN marks again.
    let (out, marks, drops) = through(&rfc, 0.5 - 1.0 / 1024.0, Ecn::Ect0, 20);
    assert_eq!((out, drops.len()), (20, 0));
    assert_eq!(marks, vec![MarkReason::Dualpi2Classic; 4]);
}

#[test]
fn native_step_marks_above_the_threshold() {
    // Linux: sojourn > step_thresh (1 ms) marks; exactly 1 ms does not.
    let mut h = H::new(&[NO_UPDATE]);
    h.enq(0, Ecn::Ect1, 1000);
    h.enq(0, Ecn::Ect1, 1000);
    h.deq(MS).unwrap();
    assert!(h.marks().is_empty());
    h.deq(MS + 1).unwrap();
    assert_eq!(h.marks(), [MarkReason::Dualpi2Step]);
    // C packets are never step-marked.
    h.enq(0, Ecn::Ect0, 1000);
    h.deq(50 * MS).unwrap();
    assert!(h.marks().is_empty());
    // In packets: the L queue's length after the departure > 1.
    let mut h = H::new(&[NO_UPDATE, "step_thresh=1p"]);
    for _ in 0..4 {
        h.enq(0, Ecn::Ect1, 1000);
    }
    let m: Vec<bool> = (0..4)
        .map(|_| {
            h.deq(0).unwrap();
            !h.marks().is_empty()
        })
        .collect();
    assert_eq!(m, [true, true, false, false]); // 3, 2, 1, 0 left behind
                                               // min_qlen_step = 2: only packets that found 2 in the L queue on arrival are stepped.
    let mut h = H::new(&[NO_UPDATE, "min_qlen_step=2"]);
    for _ in 0..3 {
        h.enq(0, Ecn::Ect1, 1000);
    }
    let m: Vec<bool> = (0..3)
        .map(|_| {
            h.deq(10 * MS).unwrap();
            !h.marks().is_empty()
        })
        .collect();
    assert_eq!(m, [false, false, true]);
}

#[test]
fn rfc_ramp_and_the_combining_function() {
    // A.1 laqm(): 0 up to minTh, (q − minTh)/range on the ramp, 1 from maxTh; p_L = max(p'_L, p_CL).
    let q = DualPi2::new(
        cfg(&["variant=rfc", "step_thresh=800us", "step_range=400us"]),
        UniformSource::seeded(1),
    );
    assert_eq!(q.laqm(800_000), 0.0);
    assert_eq!(q.laqm(1_000_000), 0.5);
    assert_eq!(q.laqm(1_100_000), 0.75);
    assert_eq!(q.laqm(1_200_000), 1.0);
    assert_eq!(q.laqm(5_000_000), 1.0);
    // Ramp at 0.5 (sojourn 1 ms) with p' = 0 marks the 3rd, 5th, 7th, 9th of 10 (as step).
    let ramp = [
        "variant=rfc",
        NO_UPDATE,
        "step_thresh=800us",
        "step_range=400us",
    ];
    let mut h = H::new(&ramp);
    for _ in 0..11 {
        h.enq(0, Ecn::Ect1, 1000);
    }
    let m: Vec<bool> = (0..10)
        .map(|_| {
            h.deq(MS).unwrap();
            !h.marks().is_empty()
        })
        .collect();
    assert_eq!(
        m,
        [false, false, true, false, true, false, true, false, true, false]
    );
    // p' = 3/8 gives p_CL = 3/4 > 1/2: the coupled probability wins.
    let mut h = H::new(&ramp);
    h.q.pi.p = 0.375;
    for _ in 0..9 {
        h.enq(0, Ecn::Ect1, 1000);
    }
    let mut reasons = vec![];
    for _ in 0..8 {
        h.deq(MS).unwrap();
        reasons.extend(h.marks());
    }
    assert_eq!(reasons, vec![MarkReason::Dualpi2Coupled; 5]); // 8·0.75 = 6 -> 5
                                                              // Th_len: with the last packet of the L queue leaving, native marking is suppressed.
    let mut h = H::new(&["variant=rfc", NO_UPDATE]);
    h.enq(0, Ecn::Ect1, 1000);
    h.deq(10 * MS).unwrap();
    h.enq(10 * MS, Ecn::Ect1, 1000);
    h.deq(20 * MS).unwrap();
    assert!(h.marks().is_empty());
    h.enq(20 * MS, Ecn::Ect1, 1000);
    h.enq(20 * MS, Ecn::Ect1, 1000);
    h.deq(30 * MS).unwrap(); // one left behind: recur(1.0) accumulates to 1, not > 1
    h.deq(30 * MS).unwrap();
    h.enq(30 * MS, Ecn::Ect1, 1000);
    h.enq(30 * MS, Ecn::Ect1, 1000);
    h.deq(40 * MS).unwrap();
    assert_eq!(h.marks(), [MarkReason::Dualpi2Step]);
}

#[test]
fn linux_decisions_are_draws_below_prob() {
    // Linux dualpi2_roll: get_random_u32() <= prob; here u32 = floor(u·2^32).
    let quarter = MAX_PROB / 4; // p' ≈ 1/4, p_CL ≈ 1/2
    let below = (quarter as f64 - 1.0) / 4_294_967_296.0; // just under prob
    let above = (quarter as f64 + 2.0) / 4_294_967_296.0;
    let l_above = (2.0 * quarter as f64 + 2.0) / 4_294_967_296.0;
    let set = |draws: &[f64]| {
        let mut h = H::with(&[NO_UPDATE], list(draws));
        h.q.pi.prob = quarter;
        h
    };
    // C: two draws at most prob -> mark (ECT(0)); one above -> pass; Not-ECT -> drop.
    for (draws, ecn, marked, dropped) in [
        (vec![below, below], Ecn::Ect0, 1, 0),
        (vec![below, above], Ecn::Ect0, 0, 0),
        (vec![above], Ecn::Ect0, 0, 0),
        (vec![below, below], Ecn::NotEct, 0, 1),
    ] {
        let mut h = set(&draws);
        for _ in 0..4 {
            h.enq(0, ecn, 1500); // 4500 B left after one departure: at least 2·1514
        }
        h.deq(0);
        assert_eq!(
            (h.marks().len(), h.drops().len()),
            (marked, dropped),
            "{draws:?} {ecn:?}"
        );
        assert_eq!(h.q.uniforms.used(), draws.len(), "{draws:?}");
    }
    // L: one draw at most k·prob marks.
    for (u, marked) in [(l_above - 4.0 / 4_294_967_296.0, 1), (l_above, 0)] {
        let mut h = set(&[u]);
        for _ in 0..4 {
            h.enq(0, Ecn::Ect1, 1500);
        }
        h.deq(0);
        assert_eq!(h.marks().len(), marked, "{u}");
        assert_eq!(h.q.uniforms.used(), 1);
    }
    // Below 2 MTU (3028 B) left in the qdisc after the departure: no draw, no action.
    let mut h = set(&[0.0, 0.0]);
    h.enq(0, Ecn::NotEct, 1514);
    h.enq(0, Ecn::NotEct, 1513);
    h.enq(0, Ecn::NotEct, 1514);
    h.deq(0).unwrap();
    assert!(h.drops().is_empty());
    assert_eq!(h.q.uniforms.used(), 0);
    // 1513 + 1514 queued; add 1514 + 1: 3029 B left after the next departure: it acts (the
    // two draws 0.0 drop it; the next packet leaves 1515 B: no draw).
    h.enq(0, Ecn::NotEct, 1514);
    h.enq(0, Ecn::NotEct, 1);
    assert_eq!(h.deq(0).unwrap().size_bytes, 1514);
    assert_eq!(h.drops(), [(Stage::Dequeue, DropReason::Dualpi2Classic)]);
    assert_eq!(h.q.uniforms.used(), 2);
}

#[test]
fn linux_overload_drops_l_packets_with_p_c_and_marks_the_rest() {
    let half = MAX_PROB / 2 + 1; // k·p' > 1
    let lo = 0.0;
    let hi = 0.999;
    for (draws, dropped) in [
        (vec![lo, lo, hi], 1), // both draws: dropped; the next packet's first draw fails
        (vec![lo, hi], 0),     // otherwise always marked
        (vec![hi], 0),
    ] {
        let mut h = H::with(&[NO_UPDATE], list(&draws));
        h.q.pi.prob = half;
        for _ in 0..5 {
            h.enq(0, Ecn::Ect1, 1500);
        }
        let got = h.deq(0);
        let d = h.drops();
        assert_eq!(d.len(), dropped, "{draws:?}");
        if dropped == 1 {
            assert_eq!(d[0], (Stage::Dequeue, DropReason::Dualpi2Overload));
        }
        assert!(got.is_some());
        assert_eq!(h.marks(), [MarkReason::Dualpi2Coupled], "{draws:?}");
        assert_eq!(h.q.uniforms.used(), draws.len());
    }
    // C in overload: ECT(0) selected by p_C is dropped, not marked.
    let mut h = H::with(&[NO_UPDATE], list(&[lo, lo]));
    h.q.pi.prob = half;
    for _ in 0..4 {
        h.enq(0, Ecn::Ect0, 1500);
    }
    h.deq(0);
    assert_eq!(h.drops()[0], (Stage::Dequeue, DropReason::Dualpi2Overload));
    // Just below overload the same draws mark.
    let mut h = H::with(&[NO_UPDATE], list(&[lo, lo]));
    h.q.pi.prob = MAX_PROB / 2;
    for _ in 0..4 {
        h.enq(0, Ecn::Ect0, 1500);
    }
    h.deq(0).unwrap();
    assert_eq!(h.marks(), [MarkReason::Dualpi2Classic]);
    // drop_at=enqueue: the same decision on arrival (backlog before the packet).
    let mut h = H::with(&[NO_UPDATE, "drop_at=enqueue"], list(&[lo, lo]));
    h.q.pi.prob = half;
    h.enq(0, Ecn::NotEct, 1500);
    h.enq(0, Ecn::NotEct, 1500);
    assert!(h.drops().is_empty());
    h.enq(0, Ecn::NotEct, 1500); // 3000 B queued < 3028: still no action
    assert!(h.drops().is_empty());
    h.enq(0, Ecn::NotEct, 1500);
    assert_eq!(h.drops(), [(Stage::Enqueue, DropReason::Dualpi2Classic)]);
}

#[test]
fn scheduler_protects_the_classic_queue_at_ten_percent() {
    // Linux WRR: credit starts at mtu·(wc − wl) = 1514·(10 − 90) = −121,120; L is served while
    // credit ≤ 0 (+10·len each), C otherwise (−90·len each), only while both are backlogged.
    let mut h = H::new(&[NO_UPDATE]);
    assert_eq!(h.q.credit(), -121_120);
    for _ in 0..200 {
        h.enq(0, Ecn::Ect1, 1000);
        h.enq(0, Ecn::NotEct, 1000);
    }
    let order: String = (0..33)
        .map(|_| {
            if h.deq(0).unwrap().ecn == Ecn::Ect1 {
                'L'
            } else {
                'C'
            }
        })
        .collect();
    // 13 L (credit −121,120 + 13·10,000 = 8,880 > 0), then C (−81,120), 9 L, C, 9 L, …
    assert_eq!(
        order,
        format!("{}C{}C{}", "L".repeat(13), "L".repeat(9), "L".repeat(9))
    );
    // Over 1000 departures with both backlogged: C gets 10 %.
    let mut h = H::new(&[NO_UPDATE, "limit=100000p"]);
    for _ in 0..2000 {
        h.enq(0, Ecn::Ect1, 1000);
        h.enq(0, Ecn::NotEct, 1000);
    }
    let c = (0..1000)
        .filter(|_| h.deq(0).unwrap().ecn == Ecn::NotEct)
        .count();
    assert_eq!(c, 99); // 13 + 9·… : floor((1000 − 13)/10) + … = 99
                       // classic_protection = 50: alternate once the initial credit (0) is spent.
    let mut h = H::new(&[NO_UPDATE, "classic_protection=50"]);
    for _ in 0..10 {
        h.enq(0, Ecn::Ect1, 1000);
        h.enq(0, Ecn::NotEct, 1000);
    }
    let order: String = (0..6)
        .map(|_| {
            if h.deq(0).unwrap().ecn == Ecn::Ect1 {
                'L'
            } else {
                'C'
            }
        })
        .collect();
    assert_eq!(order, "LCLCLC");
    // With C empty, L goes regardless and the credit does not move; an empty dequeue resets it.
    let mut h = H::new(&[NO_UPDATE]);
    for _ in 0..20 {
        h.enq(0, Ecn::Ect1, 1000);
    }
    for _ in 0..20 {
        h.deq(0).unwrap();
    }
    assert_eq!(h.q.credit(), -121_120);
    h.enq(0, Ecn::NotEct, 1000);
    h.enq(0, Ecn::Ect1, 1000);
    h.deq(0).unwrap(); // L, C backlogged: +10,000
    assert_eq!(h.q.credit(), -111_120);
    h.deq(0).unwrap();
    assert!(h.deq(0).is_none());
    assert_eq!(h.q.credit(), -121_120);
}
