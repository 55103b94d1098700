//! The fuzz targets' bodies on random bytes, so stable CI exercises them even without
//! cargo-fuzz (`make fuzz` runs the coverage-guided fuzzer on nightly).

use aqmlab_qdisc::fuzzing;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn schedule_parser_never_panics(data in prop::collection::vec(any::<u8>(), 0..512)) {
        fuzzing::schedule_parser(&data);
    }

    #[test]
    fn schedule_parser_on_csv_like_text(lines in prop::collection::vec("[0-9]{1,6},(enq|deq|x),-?[0-9]{0,5}(,[0-9]{1,3})?", 0..40)) {
        let text = format!("t_ns,op,size\n{}", lines.join("\n"));
        fuzzing::schedule_parser(text.as_bytes());
    }

    #[test]
    fn dualpi2_ops_never_break_invariants(data in prop::collection::vec(any::<u8>(), 0..2048)) {
        fuzzing::dualpi2_ops(&data);
    }

    #[test]
    fn cake_ops_never_break_invariants(data in prop::collection::vec(any::<u8>(), 0..2048)) {
        fuzzing::cake_ops(&data);
    }

    #[test]
    fn ack_filter_ops_keep_the_filter_rules(data in prop::collection::vec(any::<u8>(), 0..2048)) {
        fuzzing::ack_filter_ops(&data);
    }

    #[test]
    fn qdisc_ops_never_break_invariants(data in prop::collection::vec(any::<u8>(), 0..2048)) {
        fuzzing::qdisc_ops(&data);
    }
}

#[test]
fn every_fuzz_configuration_is_exercised() {
    for sel in 0..=255u8 {
        let mut data = vec![sel];
        for k in 0..200u8 {
            data.extend_from_slice(&[k.wrapping_mul(37), k, k.wrapping_mul(3), k % 7]);
        }
        fuzzing::qdisc_ops(&data);
    }
}

#[test]
fn every_dualpi2_fuzz_configuration_is_exercised() {
    for sel in 0..12u8 {
        let mut data = vec![sel];
        for k in 0..250u8 {
            data.extend_from_slice(&[k.wrapping_mul(37), k, k.wrapping_mul(3), k % 9]);
        }
        fuzzing::dualpi2_ops(&data);
    }
}

#[test]
fn every_cake_fuzz_configuration_is_exercised() {
    for sel in 0..8u8 {
        let mut data = vec![sel];
        for k in 0..400u16 {
            let k8 = k as u8;
            // Mostly enqueues early (to overflow), then dequeues.
            let op = if k < 200 {
                (k8 << 1) & 0x1e
            } else {
                1 | (k8 << 1)
            };
            data.extend_from_slice(&[op, k8.wrapping_mul(7), 0xdc, (k % 5) as u8]);
        }
        fuzzing::cake_ops(&data);
    }
}

/// Every ACK-filter configuration, with long runs of one connection's pure ACKs (so the filter
/// drops), ECN-feedback changes, SACK and data segments, and dequeues.
#[test]
fn every_ack_filter_fuzz_configuration_is_exercised() {
    for sel in 0..6u8 {
        let mut data = vec![sel];
        for k in 0..600u16 {
            let k8 = k as u8;
            let op = if k % 5 == 4 {
                1
            } else {
                // Flows 0-1, both connections, mostly pure ACKs.
                ((k8 % 2) << 1) | (((k8 / 7) & 1) << 4) | if k % 11 == 0 { 0 } else { 0x20 }
            };
            let flags = if k % 37 == 0 {
                0x20
            } else {
                [1, 1, 0x11, 9, 3][(k % 5) as usize]
            };
            data.extend_from_slice(&[op, flags, 64 + (k % 9) as u8, k8, (k % 3) as u8]);
        }
        let dropped = fuzzing::ack_filter_ops(&data);
        // Configuration 2 has the filter off; the others must have used it.
        assert_eq!(
            dropped == 0,
            sel == 2,
            "configuration {sel}: {dropped} ACKs filtered"
        );
    }
}
