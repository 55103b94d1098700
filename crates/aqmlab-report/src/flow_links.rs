//! What happened to a flow's packets at each link direction it crossed ([`FlowLinks`]: per
//! direction a [`FlowAtLink`]: arrivals, drops and marks by reason, wire losses), so that drops
//! can be attributed to flows. Updated in O(1) without allocating on the per-packet path.

use aqmlab_qdisc::{DropReason, MarkReason};

/// What happened to one flow's packets at one link direction.
///
/// Its drops and marks by reason: the first reason seen here counted inline, any other in a
/// side allocation made when a second reason first shows up (in `count_other`: once per flow
/// and link direction at most, never per packet). Inline, a counter for every drop and mark
/// reason, mostly zero, made each link direction a flow reached cost 216 bytes, now 64 (issue 24:
/// 1 kB per idle flow).
#[derive(Clone, Debug, Default)]
pub struct FlowAtLink {
    /// Packets offered to the direction's discipline.
    pub arrived_pkts: u64,
    /// Their bytes.
    pub arrived_bytes: u64,
    /// Packets the discipline dropped.
    pub dropped_pkts: u64,
    /// Packets the discipline CE-marked.
    pub marked_pkts: u64,
    /// Packets lost on the wire after transmission.
    pub lost_pkts: u64,
    /// Drops or marks for the reason `first`.
    first_count: u64,
    /// Drops and marks for any other reason; `None` until a second reason shows up.
    others: Option<Box<ByReason>>,
    /// The link direction (index) these counts are at.
    link: u32,
    /// The first reason seen here (see [`reason_code`]); 0 before any drop or mark.
    first: u8,
}

/// Drops and marks by reason (indexed by `DropReason::index()` and `MarkReason::index()`).
#[derive(Clone, Debug, Default)]
struct ByReason {
    drops: [u64; N_DROP],
    marks: [u64; N_MARK],
}

const N_DROP: usize = DropReason::ALL.len();
const N_MARK: usize = MarkReason::ALL.len();
const _: () = assert!(N_DROP + N_MARK < u8::MAX as usize);

/// A drop reason `i` as 1 + i, a mark reason `j` as 1 + `N_DROP` + j (0: none).
#[inline(always)]
fn reason_code(drop: Option<DropReason>, mark: Option<MarkReason>) -> u8 {
    match (drop, mark) {
        (Some(d), _) => 1 + d.index() as u8,
        (None, Some(m)) => 1 + (N_DROP + m.index()) as u8,
        (None, None) => 0,
    }
}

impl FlowAtLink {
    /// Drops by reason (indexed by `DropReason::index()`).
    pub fn drops_by_reason(&self) -> [u64; N_DROP] {
        let mut d = self.others.as_deref().map_or([0; N_DROP], |b| b.drops);
        if let Some(i) = (self.first as usize).checked_sub(1).filter(|&i| i < N_DROP) {
            d[i] += self.first_count;
        }
        d
    }

    /// Marks by reason (indexed by `MarkReason::index()`).
    pub fn marks_by_reason(&self) -> [u64; N_MARK] {
        let mut m = self.others.as_deref().map_or([0; N_MARK], |b| b.marks);
        if let Some(j) = (self.first as usize).checked_sub(1 + N_DROP) {
            m[j] += self.first_count;
        }
        m
    }

    /// The discipline dropped a packet for `reason`.
    #[inline]
    pub fn count_drop(&mut self, reason: DropReason) {
        self.dropped_pkts += 1;
        self.count_reason(reason_code(Some(reason), None));
    }

    /// The discipline CE-marked a packet for `reason`.
    #[inline]
    pub fn count_mark(&mut self, reason: MarkReason) {
        self.marked_pkts += 1;
        self.count_reason(reason_code(None, Some(reason)));
    }

    #[inline(always)]
    fn count_reason(&mut self, code: u8) {
        if self.first == code {
            self.first_count += 1;
        } else if self.first == 0 {
            self.first = code;
            self.first_count = 1;
        } else {
            self.count_other(code);
        }
    }

    /// A reason other than the first: counted in the side table, made on the first such.
    #[cold]
    #[inline(never)]
    fn count_other(&mut self, code: u8) {
        let b = self.others.get_or_insert_with(Box::default);
        let c = code as usize - 1;
        match c.checked_sub(N_DROP) {
            None => b.drops[c] += 1,
            Some(j) => b.marks[j] += 1,
        }
    }
}

impl PartialEq for FlowAtLink {
    /// Same link direction and counts, however the counts by reason are held.
    fn eq(&self, o: &Self) -> bool {
        (self.link, self.arrived_pkts, self.arrived_bytes)
            == (o.link, o.arrived_pkts, o.arrived_bytes)
            && (self.dropped_pkts, self.marked_pkts, self.lost_pkts)
                == (o.dropped_pkts, o.marked_pkts, o.lost_pkts)
            && self.drops_by_reason() == o.drops_by_reason()
            && self.marks_by_reason() == o.marks_by_reason()
    }
}

impl Eq for FlowAtLink {}

/// Per flow: a [`FlowAtLink`] for each link direction its packets have reached, in the order
/// they first did. A flow crosses a handful of directions (its path, both ways), so a linear
/// search finds one faster than a map would.
#[derive(Clone, Debug, Default)]
pub struct FlowLinks {
    /// The counts, each with its link direction, in one allocation (two cost a flow 56 bytes
    /// more: issue 24).
    at: Vec<FlowAtLink>,
}

impl FlowLinks {
    /// The counts at link direction `link` (added on the first packet there: once per link
    /// direction on the flow's path, not per packet).
    #[inline(always)]
    pub fn at(&mut self, link: u32) -> &mut FlowAtLink {
        match self.at.iter().position(|c| c.link == link) {
            Some(i) => &mut self.at[i],
            None => self.add(link),
        }
    }

    #[cold]
    #[inline(never)]
    fn add(&mut self, link: u32) -> &mut FlowAtLink {
        // Exactly as many as reached: a `push` would make room for four `FlowAtLink`s
        // on the first, most of it unused by a flow that sends a packet or two (issue 24).
        self.at.reserve_exact(1);
        self.at.push(FlowAtLink {
            link,
            ..FlowAtLink::default()
        });
        self.at.last_mut().expect("just pushed")
    }

    /// `(link direction index, counts)` in the order the flow's packets first reached them.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &FlowAtLink)> {
        self.at.iter().map(|c| (c.link, c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_reason_inline_and_aside() {
        let mut links = FlowLinks::default();
        let at = links.at(3);
        at.count_drop(DropReason::ALL[2]);
        at.count_drop(DropReason::ALL[2]);
        assert!(at.others.is_none(), "one reason is held inline");
        at.count_mark(MarkReason::ALL[0]);
        at.count_drop(DropReason::ALL[0]);
        at.count_drop(DropReason::ALL[2]);
        let at = links.at(3);
        assert_eq!((at.dropped_pkts, at.marked_pkts), (4, 1));
        let mut d = [0; N_DROP];
        (d[2], d[0]) = (3, 1);
        assert_eq!(at.drops_by_reason(), d);
        let mut m = [0; N_MARK];
        m[0] = 1;
        assert_eq!(at.marks_by_reason(), m);
        // A mark first: inline, and no drop by reason.
        let at = links.at(7);
        at.count_mark(MarkReason::ALL[MarkReason::ALL.len() - 1]);
        assert_eq!(at.drops_by_reason(), [0; N_DROP]);
        assert_eq!(at.marks_by_reason()[N_MARK - 1], 1);
        assert_eq!(links.iter().map(|(l, _)| l).collect::<Vec<_>>(), [3, 7]);
        // Each link direction a flow reaches costs 64 bytes (216 with the counters inline).
        assert_eq!(std::mem::size_of::<FlowAtLink>(), 64);
    }
}
