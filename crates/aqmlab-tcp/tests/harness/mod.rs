//! A small deterministic network for testing the TCP state machines — a test fixture, not the
//! aqmlab engine.
//!
//! Topology: every sender feeds one bottleneck FIFO (rate `R`, `B` waiting packets, tail drop,
//! optional random or scripted loss, optional scripted CE marks) followed by a one-way propagation
//! delay `d` (+ a per-flow extra delay) to its receiver; ACKs return after `d` with no queue.
//! Events sit in a binary heap keyed by `(time, insertion seq)`, so ties come out FIFO.
#![allow(dead_code)]

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use aqmlab_core::{Bitrate, SimDuration, SimTime, Xoshiro256pp};
use aqmlab_tcp::{Segment, TcpConfig, TcpReceiver, TcpSender};

/// Random loss at the bottleneck entrance (data segments only).
#[derive(Clone, Copy, Debug)]
pub struct Bernoulli {
    pub p: f64,
    pub seed: u64,
}

/// The bottleneck.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub rate: Bitrate,
    /// One-way propagation delay, applied after the bottleneck and again on the ACK path.
    pub delay: SimDuration,
    /// Waiting room in packets (the packet being transmitted is not counted).
    pub buffer_pkts: usize,
    pub loss: Option<Bernoulli>,
}

/// One flow.
#[derive(Clone, Debug)]
pub struct FlowSpec {
    pub cfg: TcpConfig,
    pub app_bytes: Option<u64>,
    pub start: SimTime,
    /// Added to the forward propagation delay of this flow.
    pub extra_delay: SimDuration,
    /// 0-based indices (in sending order, retransmissions included) of data segments to drop.
    pub drop_data: Vec<u64>,
    /// Indices of data segments the bottleneck marks CE (if ECT).
    pub mark_data: Vec<u64>,
    /// `(seq, n)`: drop the n-th (0-based) transmission of the data segment starting at `seq`.
    pub drop_seq_tx: Vec<(u64, u32)>,
}

impl FlowSpec {
    pub fn bulk(cfg: TcpConfig) -> Self {
        FlowSpec {
            cfg,
            app_bytes: None,
            start: SimTime::ZERO,
            extra_delay: SimDuration::ZERO,
            drop_data: Vec::new(),
            mark_data: Vec::new(),
            drop_seq_tx: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Start(usize),
    Arrive(usize, Segment),
    TxDone,
    Deliver(usize, Segment),
    AckArrive(usize, Segment),
    SndTimer(usize),
    RcvTimer(usize),
}

#[derive(Clone, Copy, Debug)]
struct Item {
    t: SimTime,
    seq: u64,
    ev: Ev,
}
impl PartialEq for Item {
    fn eq(&self, o: &Self) -> bool {
        (self.t, self.seq) == (o.t, o.seq)
    }
}
impl Eq for Item {}
impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Item {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.t, self.seq).cmp(&(o.t, o.seq))
    }
}

pub struct Flow {
    pub spec: FlowSpec,
    pub tx: TcpSender,
    pub rx: TcpReceiver,
    snd_sched: Option<SimTime>,
    rcv_sched: Option<SimTime>,
    pub data_sent: u64,
    tx_count: BTreeMap<u64, u32>,
    pub drops: u64,
    pub marks: u64,
}

pub type Observer = Box<dyn FnMut(SimTime, usize, &TcpSender)>;

pub struct Net {
    pub link: LinkSpec,
    pub flows: Vec<Flow>,
    heap: BinaryHeap<Reverse<Item>>,
    seq: u64,
    pub now: SimTime,
    queue: VecDeque<(usize, Segment)>,
    busy: bool,
    rng: Option<Xoshiro256pp>,
    out: Vec<Segment>,
    /// Wire bytes the bottleneck finished transmitting.
    pub link_bytes: u64,
    pub queue_drops: u64,
    q_area: u128,
    q_last: SimTime,
    q_from: SimTime,
    pub q_max: usize,
    pub observer: Option<Observer>,
    pub events: u64,
}

impl Net {
    pub fn new(link: LinkSpec, specs: Vec<FlowSpec>) -> Self {
        let rng = link.loss.map(|b| Xoshiro256pp::seed_from_u64(b.seed));
        let mut net = Net {
            link,
            flows: Vec::new(),
            heap: BinaryHeap::new(),
            seq: 0,
            now: SimTime::ZERO,
            queue: VecDeque::new(),
            busy: false,
            rng,
            out: Vec::new(),
            link_bytes: 0,
            queue_drops: 0,
            q_area: 0,
            q_last: SimTime::ZERO,
            q_from: SimTime::ZERO,
            q_max: 0,
            observer: None,
            events: 0,
        };
        for (i, spec) in specs.into_iter().enumerate() {
            let tx = TcpSender::new(&spec.cfg, spec.app_bytes);
            let rx = TcpReceiver::new(&spec.cfg);
            net.push(spec.start, Ev::Start(i));
            net.flows.push(Flow {
                spec,
                tx,
                rx,
                snd_sched: None,
                rcv_sched: None,
                data_sent: 0,
                tx_count: BTreeMap::new(),
                drops: 0,
                marks: 0,
            });
        }
        net
    }

    fn push(&mut self, t: SimTime, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse(Item {
            t,
            seq: self.seq,
            ev,
        }));
    }

    /// Runs every event up to and including `t`.
    pub fn run_until(&mut self, t: SimTime) {
        while let Some(Reverse(top)) = self.heap.peek() {
            if top.t > t {
                break;
            }
            let Reverse(item) = self.heap.pop().expect("peeked");
            self.now = item.t;
            self.events += 1;
            self.handle(item.ev);
        }
        self.now = self.now.max(t);
    }

    /// Runs until every finite flow completed (or `limit`); returns true if all completed.
    pub fn run_until_complete(&mut self, limit: SimTime) -> bool {
        while let Some(Reverse(top)) = self.heap.peek() {
            if top.t > limit || self.flows.iter().all(|f| f.tx.is_complete()) {
                break;
            }
            let Reverse(item) = self.heap.pop().expect("peeked");
            self.now = item.t;
            self.events += 1;
            self.handle(item.ev);
        }
        self.flows.iter().all(|f| f.tx.is_complete())
    }

    fn set_qlen(&mut self, f: impl FnOnce(&mut VecDeque<(usize, Segment)>)) {
        let dt = self
            .now
            .saturating_since(self.q_last.max(self.q_from))
            .as_nanos() as u128;
        if self.now > self.q_from {
            self.q_area += dt * self.queue.len() as u128;
        }
        self.q_last = self.now;
        f(&mut self.queue);
        self.q_max = self.q_max.max(self.queue.len());
    }

    /// Restarts the queue-length average at the current time.
    pub fn reset_queue_stats(&mut self) {
        self.q_area = 0;
        self.q_from = self.now;
        self.q_last = self.now;
        self.q_max = self.queue.len();
    }

    /// Time-average number of waiting packets since the last reset.
    pub fn mean_queue(&mut self) -> f64 {
        self.set_qlen(|_| {});
        let span = self.now.saturating_since(self.q_from).as_nanos();
        self.q_area as f64 / span as f64
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    fn handle(&mut self, ev: Ev) {
        let now = self.now;
        match ev {
            Ev::Start(f) => {
                let mut out = std::mem::take(&mut self.out);
                out.clear();
                self.flows[f].tx.connect(now, &mut out);
                self.after_sender(f, &mut out);
                self.out = out;
            }
            Ev::Arrive(f, mut seg) => {
                if seg.len > 0 {
                    let idx = self.flows[f].data_sent;
                    self.flows[f].data_sent += 1;
                    let fl = &mut self.flows[f];
                    let n = if fl.spec.drop_seq_tx.is_empty() {
                        0
                    } else {
                        let c = fl.tx_count.entry(seg.seq).or_insert(0);
                        *c += 1;
                        *c - 1
                    };
                    if fl.spec.drop_data.contains(&idx)
                        || fl.spec.drop_seq_tx.contains(&(seg.seq, n))
                    {
                        self.flows[f].drops += 1;
                        return;
                    }
                    if let (Some(rng), Some(b)) = (self.rng.as_mut(), self.link.loss) {
                        if rng.next_f64() < b.p {
                            self.flows[f].drops += 1;
                            return;
                        }
                    }
                    if seg.ect && self.flows[f].spec.mark_data.contains(&idx) {
                        seg.ce = true;
                        self.flows[f].marks += 1;
                    }
                }
                if self.busy && self.queue.len() >= self.link.buffer_pkts {
                    self.queue_drops += 1;
                    self.flows[f].drops += 1;
                    return;
                }
                self.set_qlen(|q| q.push_back((f, seg)));
                if !self.busy {
                    self.start_tx();
                }
            }
            Ev::TxDone => {
                self.busy = false;
                if !self.queue.is_empty() {
                    self.start_tx();
                }
            }
            Ev::Deliver(f, seg) => {
                let mut out = std::mem::take(&mut self.out);
                out.clear();
                self.flows[f].rx.on_segment(now, &seg, &mut out);
                self.after_receiver(f, &mut out);
                self.out = out;
            }
            Ev::AckArrive(f, seg) => {
                let mut out = std::mem::take(&mut self.out);
                out.clear();
                self.flows[f].tx.on_segment(now, &seg, &mut out);
                self.after_sender(f, &mut out);
                self.out = out;
            }
            Ev::SndTimer(f) => {
                if self.flows[f].snd_sched != Some(now) {
                    return; // stale
                }
                self.flows[f].snd_sched = None;
                let mut out = std::mem::take(&mut self.out);
                out.clear();
                self.flows[f].tx.on_timer(now, &mut out);
                self.after_sender(f, &mut out);
                self.out = out;
            }
            Ev::RcvTimer(f) => {
                if self.flows[f].rcv_sched != Some(now) {
                    return;
                }
                self.flows[f].rcv_sched = None;
                let mut out = std::mem::take(&mut self.out);
                out.clear();
                self.flows[f].rx.on_timer(now, &mut out);
                self.after_receiver(f, &mut out);
                self.out = out;
            }
        }
    }

    fn start_tx(&mut self) {
        let mut item = None;
        self.set_qlen(|q| item = q.pop_front());
        let (f, seg) = item.expect("queue not empty");
        let tx = self.link.rate.tx_time(u64::from(seg.wire_bytes()));
        self.busy = true;
        self.link_bytes += u64::from(seg.wire_bytes());
        let done = self.now + tx;
        self.push(done, Ev::TxDone);
        let arrive = done + self.link.delay + self.flows[f].spec.extra_delay;
        self.push(arrive, Ev::Deliver(f, seg));
    }

    fn after_sender(&mut self, f: usize, out: &mut Vec<Segment>) {
        let now = self.now;
        for seg in out.drain(..) {
            self.push(now, Ev::Arrive(f, seg));
        }
        let nt = self.flows[f].tx.next_timer();
        if nt != self.flows[f].snd_sched {
            if let Some(t) = nt {
                self.push(t.max(now), Ev::SndTimer(f));
                self.flows[f].snd_sched = Some(t.max(now));
            } else {
                self.flows[f].snd_sched = None;
            }
        }
        if let Some(obs) = self.observer.as_mut() {
            obs(now, f, &self.flows[f].tx);
        }
    }

    fn after_receiver(&mut self, f: usize, out: &mut Vec<Segment>) {
        let now = self.now;
        for seg in out.drain(..) {
            self.push(now + self.link.delay, Ev::AckArrive(f, seg));
        }
        let nt = self.flows[f].rx.next_timer();
        if nt != self.flows[f].rcv_sched {
            if let Some(t) = nt {
                self.push(t.max(now), Ev::RcvTimer(f));
                self.flows[f].rcv_sched = Some(t.max(now));
            } else {
                self.flows[f].rcv_sched = None;
            }
        }
    }
}

/// Reads one named value from `visit_state`.
pub fn state_value(tx: &TcpSender, name: &str) -> f64 {
    let mut v = f64::NAN;
    tx.visit_state(&mut |k, x| {
        if k == name {
            v = x;
        }
    });
    v
}

/// Jain's fairness index of `xs`.
pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    s * s / (xs.len() as f64 * s2)
}
