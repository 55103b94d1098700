//! Properties over arbitrary loss patterns and configurations: every finite transfer completes
//! with exactly its bytes delivered in order, and the receiver's ACKs stay well-formed.

mod harness;

use aqmlab_core::{Bitrate, SimDuration, SimTime};
use aqmlab_tcp::{CcKind, Segment, TcpConfig, TcpReceiver};
use harness::{FlowSpec, LinkSpec, Net};
use proptest::prelude::*;

fn cc_kind() -> impl Strategy<Value = CcKind> {
    prop_oneof![
        Just(CcKind::Reno),
        Just(CcKind::NewReno),
        Just(CcKind::Cubic),
        Just(CcKind::Vegas),
        Just(CcKind::Tahoe)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Liveness and integrity: whatever data segments are lost (including retransmissions),
    /// the transfer completes and the receiver gets exactly `bytes`.
    #[test]
    fn transfers_complete_under_arbitrary_losses(
        kind in cc_kind(),
        sack in any::<bool>(),
        prr in any::<bool>(),
        rack in any::<bool>(),
        delayed_ack in any::<bool>(),
        handshake in any::<bool>(),
        ecn in any::<bool>(),
        mss in prop_oneof![Just(500u32), Just(1000), Just(1460)],
        bytes in 1u64..200_000,
        drops in proptest::collection::vec(0u64..200, 0..25),
        buffer in 2usize..60,
    ) {
        let cfg = TcpConfig {
            mss,
            sack,
            // PRR and RACK need SACK.
            prr: prr && sack,
            rack: rack && sack,
            delayed_ack,
            handshake,
            ecn,
            ..TcpConfig::with_cc(kind)
        };
        let mut spec = FlowSpec::bulk(cfg);
        spec.app_bytes = Some(bytes);
        spec.drop_data = drops;
        spec.mark_data = (0..200).step_by(7).collect();
        let link = LinkSpec {
            rate: Bitrate::from_mbps(10),
            delay: SimDuration::from_millis(10),
            buffer_pkts: buffer,
            loss: None,
        };
        let mut net = Net::new(link, vec![spec]);
        let done = net.run_until_complete(SimTime::from_secs(600));
        let st = net.flows[0].tx.stats().clone();
        prop_assert!(done, "did not complete: {st:?}");
        prop_assert_eq!(net.flows[0].rx.delivered_bytes(), bytes);
        prop_assert_eq!(st.bytes_acked, bytes);
        prop_assert!(net.flows[0].tx.next_timer().is_none(), "timer off after completion");
    }

    /// The receiver's cumulative ACK never decreases, SACK blocks are disjoint, lie above it and
    /// the first one contains the segment that triggered the ACK when it was out of order.
    #[test]
    fn receiver_acks_are_well_formed(order in Just((0u64..40).collect::<Vec<_>>()).prop_shuffle(),
                                     dups in proptest::collection::vec(0u64..40, 0..10)) {
        let cfg = TcpConfig { mss: 100, handshake: false, delayed_ack: false, ..TcpConfig::default() };
        let mut rx = TcpReceiver::new(&cfg);
        let mut out = Vec::new();
        let mut last_ack = 0;
        for (i, k) in order.iter().chain(dups.iter()).enumerate() {
            let seg = Segment { seq: 1 + 100 * k, len: 100, flags: aqmlab_tcp::segment::ACK, ack: 1, ..Segment::default() };
            out.clear();
            rx.on_segment(SimTime::from_millis(i as u64), &seg, &mut out);
            prop_assert_eq!(out.len(), 1);
            let a = out[0];
            prop_assert!(a.ack >= last_ack);
            last_ack = a.ack;
            let blocks = a.sack_blocks();
            for (j, &(s, e)) in blocks.iter().enumerate() {
                prop_assert!(s < e && s > a.ack);
                for &(s2, e2) in &blocks[j + 1..] {
                    prop_assert!(e < s2 || e2 < s, "overlapping blocks {:?}", blocks);
                }
            }
            if seg.seq > a.ack {
                let (s, e) = blocks[0];
                prop_assert!(s <= seg.seq && seg.seq + 100 <= e, "first block {:?} misses {}", blocks[0], seg.seq);
            }
        }
        prop_assert_eq!(rx.delivered_bytes(), 4000);
        prop_assert_eq!(last_ack, 4001);
    }
}
