//! Drive one discipline from an arrival/service schedule, without a network: the engine behind
//! `aqmlab replay`, and the harness that compares our disciplines with ns-3's decisions in
//! `shared/vectors/`.
//!
//! Schedule CSV: header `t_ns,op,size`, optionally followed by `flow`, `ecn`, `dscp`, `src`, `dst` columns.
//! * `enq`: a packet of `size` bytes (> 0) arrives at `t_ns`; packets get ids 0,1,2,… in order
//!   of their `enq` rows. `flow` defaults to 0; `ecn` is `not_ect` (default), `ect0`, `ect1` or `ce`.
//! * `deq`: the link is ready to send one packet at `t_ns` (`size` is ignored).
//!
//! Times are non-decreasing and rows at equal times apply in file order. The link asks an idle
//! queue only once: a `deq` row that finds the queue empty when an empty dequeue already
//! happened since the last accepted enqueue is skipped (this is when RED's idle period starts,
//! and it is what the ns-3 driver that produced the vectors does).

use crate::contract::{QdiscEvent, Stage};
use crate::registry::AnyQdisc;
use crate::stats::Qdisc;
use aqmlab_core::{Ecn, FlowId, Packet, SimTime};
use std::fmt::Write as _;
use std::io::{self, Write};

/// What a schedule row asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// A packet arrives.
    Enq,
    /// The link asks for a packet.
    Deq,
}

/// One parsed schedule row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// 1-based line number in the file (for error messages).
    pub line: usize,
    /// When.
    pub t_ns: u64,
    /// What.
    pub op: Op,
    /// Packet size in bytes (`enq` only).
    pub size: u32,
    /// Flow id (`enq` only).
    pub flow: u32,
    /// ECN codepoint (`enq` only).
    pub ecn: Ecn,
    /// DSCP, 0..63 (`enq` only; CAKE's tins).
    pub dscp: u8,
    /// Source and destination host numbers (`enq` only; CAKE's host isolation).
    pub hosts: (u16, u16),
}

/// A schedule that could not be read; displays as one line naming the line and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{msg}", if *.line > 0 { format!("line {}: ", .line) } else { String::new() })]
pub struct ScheduleError {
    /// 1-based line, or 0 for the file as a whole.
    pub line: usize,
    /// What was wrong and what was expected.
    pub msg: String,
}

fn serr(line: usize, msg: impl Into<String>) -> ScheduleError {
    ScheduleError {
        line,
        msg: msg.into(),
    }
}

/// The latest time a schedule row may have: 2^63 − 1 ns (292 years). The decisions CSV writes
/// `deq_t_ns` as a signed number with −1 for a packet still queued at the end, so a later time
/// would print as a negative one (or as −1 on a delivered row).
pub const MAX_T_NS: u64 = i64::MAX as u64;

const HEADER_HELP: &str =
    "a header t_ns,op,size (optionally followed by flow and ecn, then dscp, src and dst, each at most once)";
const EXTRA_COLS: [&str; 5] = ["flow", "ecn", "dscp", "src", "dst"];

/// Parses a schedule file's bytes.
pub fn parse_schedule(bytes: &[u8]) -> Result<Vec<Row>, ScheduleError> {
    if bytes.is_empty() {
        return Err(serr(
            0,
            format!("the file is empty: expected {HEADER_HELP}"),
        ));
    }
    if let Some(pos) = bytes.iter().position(|&b| b == 0) {
        return Err(serr(
            0,
            format!("binary data (a NUL byte at offset {pos}): expected a CSV text file"),
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        serr(
            0,
            format!(
                "not UTF-8 text (invalid byte at offset {}): expected a CSV text file",
                e.valid_up_to()
            ),
        )
    })?;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let (hline, header) = lines
        .by_ref()
        .find(|(_, l)| !l.trim().is_empty())
        .ok_or_else(|| serr(0, format!("the file has no header: expected {HEADER_HELP}")))?;
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let ok_header = cols.len() >= 3
        && cols[..3] == ["t_ns", "op", "size"]
        && cols[3..].iter().all(|c| EXTRA_COLS.contains(c))
        && cols[3..]
            .iter()
            .enumerate()
            .all(|(i, c)| !cols[3..3 + i].contains(c));
    if !ok_header {
        return Err(serr(
            hline,
            format!("expected {HEADER_HELP}, got {header:?}"),
        ));
    }
    let flow_col = cols.iter().position(|c| *c == "flow");
    let ecn_col = cols.iter().position(|c| *c == "ecn");
    let dscp_col = cols.iter().position(|c| *c == "dscp");
    let src_col = cols.iter().position(|c| *c == "src");
    let dst_col = cols.iter().position(|c| *c == "dst");

    let mut rows = Vec::new();
    let mut last_t = 0u64;
    for (ln, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != cols.len() {
            return Err(serr(
                ln,
                format!(
                    "expected {} comma-separated fields ({}), got {}",
                    cols.len(),
                    cols.join(","),
                    f.len()
                ),
            ));
        }
        let t_ns: u64 = f[0]
            .parse()
            .ok()
            .filter(|&t| t <= MAX_T_NS)
            .ok_or_else(|| {
                serr(
                    ln,
                    format!(
                        "t_ns: expected a whole number of nanoseconds 0..{MAX_T_NS} (2^63-1: the decisions' deq_t_ns is signed, -1 marking a packet still queued), got {:?}",
                        f[0]
                    ),
                )
            })?;
        if t_ns < last_t {
            return Err(serr(ln, format!("t_ns {t_ns} goes back in time: the previous row is at {last_t}; times must not decrease")));
        }
        last_t = t_ns;
        let op = match f[1] {
            "enq" => Op::Enq,
            "deq" => Op::Deq,
            other => return Err(serr(ln, format!("op: expected enq or deq, got {other:?}"))),
        };
        let mut row = Row {
            line: ln,
            t_ns,
            op,
            size: 0,
            flow: 0,
            ecn: Ecn::NotEct,
            dscp: 0,
            hosts: (0, 0),
        };
        if op == Op::Enq {
            row.size = match f[2].parse::<i64>() {
                Ok(s) if s > 0 && s <= u32::MAX as i64 => s as u32,
                Ok(s) if s <= 0 => {
                    return Err(serr(
                        ln,
                        format!("size: expected a packet size in bytes > 0, got {s}"),
                    ))
                }
                _ => {
                    return Err(serr(
                        ln,
                        format!("size: expected a packet size in bytes > 0, got {:?}", f[2]),
                    ))
                }
            };
            if let Some(c) = flow_col {
                row.flow = f[c].parse().map_err(|_| {
                    serr(
                        ln,
                        format!("flow: expected a flow id 0..4294967295, got {:?}", f[c]),
                    )
                })?;
            }
            if let Some(c) = ecn_col {
                row.ecn = match f[c] {
                    "not_ect" | "0" => Ecn::NotEct,
                    "ect1" | "1" => Ecn::Ect1,
                    "ect0" | "2" => Ecn::Ect0,
                    "ce" | "3" => Ecn::Ce,
                    other => {
                        return Err(serr(
                            ln,
                            format!("ecn: expected not_ect, ect0, ect1 or ce, got {other:?}"),
                        ))
                    }
                };
            }
            if let Some(c) = dscp_col {
                row.dscp = f[c].parse().ok().filter(|&d: &u8| d < 64).ok_or_else(|| {
                    serr(
                        ln,
                        format!("dscp: expected a codepoint 0..63, got {:?}", f[c]),
                    )
                })?;
            }
            for (col, name, slot) in [(src_col, "src", 0), (dst_col, "dst", 1)] {
                if let Some(c) = col {
                    let h: u16 = f[c].parse().map_err(|_| {
                        serr(
                            ln,
                            format!("{name}: expected a host number 0..65535, got {:?}", f[c]),
                        )
                    })?;
                    if slot == 0 {
                        row.hosts.0 = h;
                    } else {
                        row.hosts.1 = h;
                    }
                }
            }
        } else if f[2].parse::<i64>().is_err() {
            return Err(serr(
                ln,
                format!(
                    "size: expected a whole number (ignored for deq rows), got {:?}",
                    f[2]
                ),
            ));
        }
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(serr(
            0,
            "the schedule has a header but no rows: expected enq/deq rows after it",
        ));
    }
    Ok(rows)
}

/// The fate of one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Sent.
    Delivered,
    /// Sent with a CE mark this discipline set.
    Marked,
    /// Dropped during an enqueue call (refused on arrival, or evicted by a later arrival).
    DroppedEnqueue,
    /// Dropped by the AQM during a dequeue call.
    DroppedDequeue,
    /// Still queued after the last row.
    QueuedAtEnd,
}

impl Outcome {
    /// The name in the output CSV.
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Delivered => "delivered",
            Outcome::Marked => "marked",
            Outcome::DroppedEnqueue => "dropped_enqueue",
            Outcome::DroppedDequeue => "dropped_dequeue",
            Outcome::QueuedAtEnd => "queued_at_end",
        }
    }
}

/// One packet's decision: the output row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Packet id (order of `enq` rows).
    pub id: u64,
    /// Arrival time.
    pub enq_t_ns: u64,
    /// Fate.
    pub outcome: Outcome,
    /// When it left: the dequeue (or dropping call) time; -1 if still queued.
    pub deq_t_ns: i64,
}

/// Counts of each outcome and of the driver's calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplaySummary {
    /// Packets (enq rows).
    pub packets: u64,
    /// Delivered unmarked.
    pub delivered: u64,
    /// Delivered with a CE mark.
    pub marked: u64,
    /// Dropped during enqueue.
    pub dropped_enqueue: u64,
    /// Dropped during dequeue.
    pub dropped_dequeue: u64,
    /// Still queued at the end.
    pub queued_at_end: u64,
    /// Dequeue calls made.
    pub dequeue_calls: u64,
    /// `deq` rows skipped because the queue was already known to be idle.
    pub deq_lines_skipped: u64,
}

/// Everything a replay produces.
#[derive(Clone, Debug)]
pub struct ReplayOutput {
    /// One decision per packet, in id order.
    pub decisions: Vec<Decision>,
    /// Counts.
    pub summary: ReplaySummary,
    /// State changes if tracing was asked for.
    pub trace: Vec<crate::state_trace::StateChange>,
}

/// A replay that could not finish.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The `--uniforms` list ran out.
    #[error("line {line}: the uniforms file ran out: it holds {available} draws and the discipline needs more; give a longer file or omit --uniforms")]
    UniformsExhausted {
        /// Schedule line being applied.
        line: usize,
        /// Draws in the file.
        available: usize,
    },
}

/// Replays `rows` through `q`. With `trace`, records every change of the discipline's state
/// variables after each row.
pub fn replay(
    q: &mut Qdisc<AnyQdisc>,
    rows: &[Row],
    trace: bool,
) -> Result<ReplayOutput, ReplayError> {
    let n_pkts = rows.iter().filter(|r| r.op == Op::Enq).count();
    let mut decisions: Vec<Decision> = Vec::with_capacity(n_pkts);
    let mut in_ecn: Vec<Ecn> = Vec::with_capacity(n_pkts);
    let mut summary = ReplaySummary::default();
    let mut idle_seen = false; // an empty dequeue happened since the last accepted enqueue
    if trace {
        q.trace_state();
    }

    for row in rows {
        let now = SimTime::from_nanos(row.t_ns);
        match row.op {
            Op::Enq => {
                let id = decisions.len() as u64;
                decisions.push(Decision {
                    id,
                    enq_t_ns: row.t_ns,
                    outcome: Outcome::QueuedAtEnd,
                    deq_t_ns: -1,
                });
                in_ecn.push(row.ecn);
                let mut pkt = Packet::new(id, row.size, FlowId(row.flow));
                pkt.ecn = row.ecn;
                pkt.dscp = row.dscp;
                (pkt.src_host, pkt.dst_host) = row.hosts;
                q.enqueue(now, pkt);
                let refused = q
                    .events()
                    .iter()
                    .any(|e| matches!(e, QdiscEvent::Dropped { pkt, .. } if pkt.id == id));
                if !refused {
                    idle_seen = false;
                }
            }
            Op::Deq => {
                if idle_seen && q.backlog().packets == 0 {
                    summary.deq_lines_skipped += 1;
                    continue;
                }
                summary.dequeue_calls += 1;
                match q.dequeue(now) {
                    Some(p) => {
                        let d = &mut decisions[p.id as usize];
                        d.deq_t_ns = row.t_ns as i64;
                        d.outcome = if p.ecn == Ecn::Ce && in_ecn[p.id as usize] != Ecn::Ce {
                            Outcome::Marked
                        } else {
                            Outcome::Delivered
                        };
                    }
                    None => idle_seen = true,
                }
            }
        }
        for e in q.events() {
            if let QdiscEvent::Dropped { pkt, stage, .. } = e {
                let d = &mut decisions[pkt.id as usize];
                d.deq_t_ns = row.t_ns as i64;
                d.outcome = match stage {
                    Stage::Enqueue => Outcome::DroppedEnqueue,
                    Stage::Dequeue => Outcome::DroppedDequeue,
                };
            }
        }
        if q.inner().uniforms_exhausted() {
            {
                let available = match q.inner().uniforms() {
                    Some(crate::uniform::UniformSource::List { draws, .. }) => draws.len(),
                    _ => 0,
                };
                return Err(ReplayError::UniformsExhausted {
                    line: row.line,
                    available,
                });
            }
        }
    }

    summary.packets = decisions.len() as u64;
    for d in &decisions {
        match d.outcome {
            Outcome::Delivered => summary.delivered += 1,
            Outcome::Marked => summary.marked += 1,
            Outcome::DroppedEnqueue => summary.dropped_enqueue += 1,
            Outcome::DroppedDequeue => summary.dropped_dequeue += 1,
            Outcome::QueuedAtEnd => summary.queued_at_end += 1,
        }
    }
    Ok(ReplayOutput {
        decisions,
        summary,
        trace: q.take_state_changes(),
    })
}

/// Writes decisions as CSV (`id,enq_t_ns,outcome,deq_t_ns`).
pub fn write_decisions<W: Write>(w: &mut W, decisions: &[Decision]) -> io::Result<()> {
    let mut buf = String::with_capacity(64 * 1024);
    buf.push_str("id,enq_t_ns,outcome,deq_t_ns\n");
    for d in decisions {
        let _ = writeln!(
            buf,
            "{},{},{},{}",
            d.id,
            d.enq_t_ns,
            d.outcome.as_str(),
            d.deq_t_ns
        );
        if buf.len() > 60 * 1024 {
            w.write_all(buf.as_bytes())?;
            buf.clear();
        }
    }
    w.write_all(buf.as_bytes())
}

/// Writes a state trace as CSV (`t_ns,var,value`).
pub fn write_trace<W: Write>(
    w: &mut W,
    trace: &[crate::state_trace::StateChange],
) -> io::Result<()> {
    writeln!(w, "t_ns,var,value")?;
    for c in trace {
        writeln!(w, "{},{},{}", c.t_ns, c.var, c.value)?;
    }
    Ok(())
}

/// Parses a decisions CSV (ours or a reference's) into rows sorted by id.
pub fn parse_decisions(text: &str) -> Result<Vec<Decision>, ScheduleError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let bad = || {
            serr(
                i + 1,
                format!("expected id,enq_t_ns,outcome,deq_t_ns, got {line:?}"),
            )
        };
        if f.len() != 4 {
            return Err(bad());
        }
        let outcome = match f[2] {
            "delivered" => Outcome::Delivered,
            "marked" => Outcome::Marked,
            "dropped_enqueue" => Outcome::DroppedEnqueue,
            "dropped_dequeue" => Outcome::DroppedDequeue,
            "queued_at_end" => Outcome::QueuedAtEnd,
            _ => return Err(bad()),
        };
        out.push(Decision {
            id: f[0].parse().map_err(|_| bad())?,
            enq_t_ns: f[1].parse().map_err(|_| bad())?,
            outcome,
            deq_t_ns: f[3].trim().parse().map_err(|_| bad())?,
        });
    }
    out.sort_by_key(|d| d.id);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        parse_schedule(s.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn parses_optional_columns() {
        let r = parse_schedule(b"t_ns,op,size,flow,ecn\r\n0,enq,1500,7,ect0\n5,deq,0,0,not_ect\n")
            .unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].flow, r[0].ecn, r[0].size), (7, Ecn::Ect0, 1500));
        assert_eq!(r[1].op, Op::Deq);
    }

    #[test]
    fn bad_input_messages_name_the_line() {
        assert_eq!(err(""), "the file is empty: expected a header t_ns,op,size (optionally followed by flow and ecn, then dscp, src and dst, each at most once)");
        assert!(err("t_ns,op,size\n0,enq\x00").starts_with("binary data"));
        assert_eq!(err("time,op,size\n"), "line 1: expected a header t_ns,op,size (optionally followed by flow and ecn, then dscp, src and dst, each at most once), got \"time,op,size\"");
        assert_eq!(
            err("t_ns,op,size\n0,push,10\n"),
            "line 2: op: expected enq or deq, got \"push\""
        );
        assert_eq!(
            err("t_ns,op,size\n0,enq,0\n"),
            "line 2: size: expected a packet size in bytes > 0, got 0"
        );
        assert_eq!(
            err("t_ns,op,size\n0,enq,-5\n"),
            "line 2: size: expected a packet size in bytes > 0, got -5"
        );
        assert_eq!(
            err("t_ns,op,size\n10,enq,1\n5,enq,1\n"),
            "line 3: t_ns 5 goes back in time: the previous row is at 10; times must not decrease"
        );
        assert_eq!(
            err("t_ns,op,size\n0,enq\n"),
            "line 2: expected 3 comma-separated fields (t_ns,op,size), got 2"
        );
        assert_eq!(
            err("t_ns,op,size\nabc,enq,1\n"),
            "line 2: t_ns: expected a whole number of nanoseconds 0..9223372036854775807 (2^63-1: the decisions' deq_t_ns is signed, -1 marking a packet still queued), got \"abc\""
        );
        assert!(err("t_ns,op,size\n").contains("no rows"));
        assert!(err("\u{ff}").starts_with("not UTF-8") || err("\u{ff}").starts_with("line 1"));
    }

    /// Issue 20: a time above 2^63 − 1 printed a negative dequeue time, and 2^64 − 1 printed
    /// the queued-at-end marker −1 on a delivered row. Such times are refused; 2^63 − 1 itself
    /// still replays and prints as itself.
    #[test]
    fn times_fit_the_signed_decisions() {
        for t in ["9223372036854775808", "18446744073709551615"] {
            let e = err(&format!("t_ns,op,size\n{t},enq,100\n{t},deq,0\n"));
            assert!(
                e.starts_with(
                    "line 2: t_ns: expected a whole number of nanoseconds 0..9223372036854775807"
                ),
                "{e}"
            );
        }
        let rows = parse_schedule(
            b"t_ns,op,size\n9223372036854775807,enq,100\n9223372036854775807,deq,0\n",
        )
        .unwrap();
        let mut q = Qdisc::new(
            crate::registry::build(
                "droptail",
                &[],
                crate::UniformSource::Rng(aqmlab_core::Xoshiro256pp::for_stream(1, "t")),
            )
            .unwrap(),
        );
        let out = replay(&mut q, &rows, false).unwrap();
        assert_eq!(out.decisions[0].outcome, Outcome::Delivered);
        assert_eq!(out.decisions[0].deq_t_ns, i64::MAX);
    }
}
