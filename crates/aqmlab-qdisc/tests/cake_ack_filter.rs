//! CAKE's ACK filter against its stated rules ("Piece of CAKE", Høiland-Jørgensen, Täht,
//! Morton 2018, §4.3; Linux `cake_ack_filter`): which queued ACKs a newer ACK of the same flow
//! makes droppable, under `ack-filter` (drop the head-most eligible ACK once two are queued) and
//! `ack-filter-aggressive` (also a lone one just ahead of the new ACK), with exact queues.

use aqmlab_core::{Packet, SimTime, TcpHint};
use aqmlab_qdisc::cake::{packet, Cake, CakeConfig, PARAMS};
use aqmlab_qdisc::{DropReason, Params, Qdisc, UniformSource};

fn cake(mode: &str) -> Qdisc<Cake> {
    let pairs = Params::split_pairs(&[&format!("ack_filter={mode}")]).unwrap();
    let cfg = CakeConfig::from_params(&Params::new("cake", PARAMS, &pairs).unwrap()).unwrap();
    Qdisc::new(Cake::new(cfg, UniformSource::seeded(7)))
}

const ACK: u16 = TcpHint::ACK;
const SACK: u16 = TcpHint::SACK;
const ECE: u16 = TcpHint::ECE;
const DATA: u16 = TcpHint::DATA;

/// A 40-byte segment of flow 1 (host 2 → host 1) acknowledging `ack`, with header `bits`.
fn seg(id: u64, ack: u32, bits: u16) -> Packet {
    let mut p = packet(id, if bits & DATA != 0 { 1500 } else { 40 }, 1, 2, 1, 0);
    p.tcp = TcpHint { ack, bits, conn: 0 };
    p
}

/// Enqueues `segs` (ack, bits) in order and returns the ack numbers left in the queue, in
/// order, and the ACK filter's drop count.
fn run(mode: &str, segs: &[(u32, u16)]) -> (Vec<u32>, u64) {
    let mut q = cake(mode);
    for (id, &(ack, bits)) in segs.iter().enumerate() {
        q.enqueue(SimTime::ZERO, seg(id as u64, ack, bits));
    }
    let drops = q.stats().dropped_enqueue[DropReason::AckFilter.index()].packets;
    let mut left = Vec::new();
    while let Some(p) = q.dequeue(SimTime::ZERO) {
        left.push(p.tcp.ack);
    }
    assert_eq!(
        q.stats().received.packets,
        left.len() as u64 + drops,
        "conservation"
    );
    (left, drops)
}

#[test]
fn conservative_filter_keeps_one_older_ack_behind_the_newest() {
    let acks = [
        (1000, ACK),
        (2000, ACK),
        (3000, ACK),
        (4000, ACK),
        (5000, ACK),
    ];
    // Each new ACK finds two eligible ones from the third on, and drops the head-most.
    assert_eq!(run("ack-filter", &acks), (vec![4000, 5000], 3));
    assert_eq!(run("ack-filter", &acks[..2]), (vec![1000, 2000], 0));
    // Aggressive: a lone eligible ACK just ahead goes too.
    assert_eq!(run("ack-filter-aggressive", &acks), (vec![5000], 4));
    // The counterfactual: without the filter every ACK stays.
    assert_eq!(
        run("no-ack-filter", &acks),
        (vec![1000, 2000, 3000, 4000, 5000], 0)
    );
}

#[test]
fn duplicate_acks_and_data_are_never_dropped() {
    // Equal cumulative ACKs without SACK: the trigger says nothing more (fast retransmit's
    // duplicate ACKs survive).
    let dup = [(1000, ACK), (1000, ACK), (1000, ACK), (1000, ACK)];
    assert_eq!(run("ack-filter-aggressive", &dup), (vec![1000; 4], 0));
    // Segments with data are not pure ACKs.
    let data = [(1000, ACK | DATA), (2000, ACK | DATA), (3000, ACK)];
    assert_eq!(
        run("ack-filter-aggressive", &data),
        (vec![1000, 2000, 3000], 0)
    );
    // A queued ACK acknowledging beyond the trigger (reordering) stays, in serial arithmetic
    // across the 32-bit wrap too.
    let newer = [(5000, ACK), (6000, ACK), (4000, ACK)];
    assert_eq!(run("ack-filter", &newer), (vec![5000, 6000, 4000], 0));
    let wrap = [(u32::MAX - 10, ACK), (u32::MAX, ACK), (20, ACK)];
    assert_eq!(run("ack-filter", &wrap), (vec![u32::MAX, 20], 1));
}

#[test]
fn sack_carrying_acks_stay_and_a_sack_trigger_supersedes_equal_acks() {
    // A queued ACK with SACK blocks is kept (we do not carry the blocks to prove coverage).
    let s = [(1000, ACK | SACK), (1000, ACK | SACK), (1000, ACK | SACK)];
    assert_eq!(run("ack-filter-aggressive", &s), (vec![1000; 3], 0));
    // Without blocks, an equal ACK is superseded by a trigger that has them (it SACKs more).
    let s = [(1000, ACK), (1000, ACK), (1000, ACK | SACK)];
    assert_eq!(run("ack-filter", &s), (vec![1000, 1000], 1));
}

#[test]
fn a_change_of_ecn_feedback_protects_the_ack_before_it() {
    // 1000 carries ECE; 2000 does not: dropping 1000 would lose the echo, so the eligible ACK
    // is forgotten at 2000 and the count starts again there.
    let e = [(1000, ACK | ECE), (2000, ACK), (3000, ACK)];
    assert_eq!(run("ack-filter", &e), (vec![1000, 2000, 3000], 0));
    let e = [(1000, ACK | ECE), (2000, ACK), (3000, ACK), (4000, ACK)];
    assert_eq!(run("ack-filter", &e), (vec![1000, 3000, 4000], 1));
    // Aggressive: the lone eligible ACK ahead must carry the trigger's ECN bits.
    let e = [(1000, ACK), (2000, ACK | ECE)];
    assert_eq!(run("ack-filter-aggressive", &e), (vec![1000, 2000], 0));
}

#[test]
fn only_the_same_flow_and_a_plain_ack_trigger_count() {
    // A SYN never triggers.
    let syn = [(1000, ACK), (2000, ACK), (3000, ACK | TcpHint::SYN)];
    assert_eq!(run("ack-filter", &syn), (vec![1000, 2000, 3000], 0));
    // Another flow's ACKs in the same queue (flowblind) are not compared.
    let pairs = Params::split_pairs(&["ack_filter=ack-filter", "flow_mode=flowblind"]).unwrap();
    let cfg = CakeConfig::from_params(&Params::new("cake", PARAMS, &pairs).unwrap()).unwrap();
    let mut q = Qdisc::new(Cake::new(cfg, UniformSource::seeded(7)));
    for (id, (flow, ack)) in [(1, 1000), (2, 2000), (1, 1500), (2, 2500), (1, 1700)]
        .into_iter()
        .enumerate()
    {
        let mut p = packet(id as u64, 40, flow, 2, 1, 0);
        p.tcp = TcpHint {
            ack,
            bits: ACK,
            conn: 0,
        };
        q.enqueue(SimTime::ZERO, p);
    }
    let mut left = Vec::new();
    while let Some(p) = q.dequeue(SimTime::ZERO) {
        left.push(p.tcp.ack);
    }
    assert_eq!(left, vec![2000, 1500, 2500, 1700]);
    // Non-TCP packets (no header facts) are never touched.
    let udp = [(0, 0), (0, 0), (0, 0)];
    assert_eq!(run("ack-filter-aggressive", &udp), (vec![0, 0, 0], 0));
}

#[test]
fn connections_of_one_flow_are_not_compared() {
    // A web page's parallel connections share a flow and its hosts, not their sequence
    // spaces: connection 1's newer ACK numbers say nothing about connection 0's queued ACKs.
    let mut q = cake("ack-filter-aggressive");
    for (id, (conn, ack)) in [(0, 1000), (1, 5000), (0, 1100), (1, 6000), (1, 7000)]
        .into_iter()
        .enumerate()
    {
        let mut p = seg(id as u64, ack, ACK);
        p.tcp.conn = conn;
        q.enqueue(SimTime::ZERO, p);
    }
    let mut left = Vec::new();
    while let Some(p) = q.dequeue(SimTime::ZERO) {
        left.push((p.tcp.conn, p.tcp.ack));
    }
    // Connection 0 has one eligible ACK, not just ahead of its newer one: both stay.
    // Connection 1's 7000 finds two eligible (5000, 6000) and the head-most goes. Compared as
    // one connection, 6000 and 7000 would have removed connection 0's 1000 and 1100.
    assert_eq!(left, vec![(0, 1000), (0, 1100), (1, 6000), (1, 7000)]);
}

#[test]
fn a_pages_connection_in_its_own_queue_is_filtered_as_any_flow() {
    // `TcpHint::OWN_QUEUE` (the simulator's mark on a web page's connections, which CAKE
    // classifies apart) is not a header flag: the ACKs stay pure ACKs.
    let own = TcpHint::OWN_QUEUE;
    let acks: Vec<(u32, u16)> = (1..=5).map(|k| (k * 1000, ACK | own)).collect();
    assert_eq!(run("ack-filter", &acks), (vec![4000, 5000], 3));
    assert_eq!(run("ack-filter-aggressive", &acks), (vec![5000], 4));
}
