//! Nodes and directed links, and static shortest-path routing (fewest hops; among equal-hop
//! routes, the one breadth-first search from the destination finds first, visiting links in
//! index order: deterministic, though not "the lowest link index" of the first hop).

use crate::dist::DurationDist;
use crate::link::LinkParts;
use crate::rate::LinkRate;
use aqmlab_core::SimDuration;
use aqmlab_core::Xoshiro256pp;
use aqmlab_qdisc::{AnyQdisc, Qdisc};
use std::collections::VecDeque;

/// One direction of a link: from `from` to `to` at `rate`, after `delay`, queued by `qdisc`.
#[derive(Debug)]
pub struct LinkConfig {
    /// Name (reports and `--qdisc NAME=KIND` use it). A full-duplex link `x` has directions
    /// named `x` (forward) and `x.rev`.
    pub name: String,
    /// Sending node.
    pub from: u32,
    /// Receiving node.
    pub to: u32,
    /// Rate over time.
    pub rate: LinkRate,
    /// Propagation delay.
    pub delay: SimDuration,
    /// The queue discipline that holds this direction's queue.
    pub qdisc: AnyQdisc,
    /// Probability that a transmitted packet is lost on the wire (random loss, e.g. a lossy
    /// radio hop); drawn from the link's own random stream. 0 for a clean link.
    pub loss: f64,
}

impl LinkConfig {
    /// The link direction's parts, as the simulator and the emulator drive them: its losses
    /// drawn from stream `link/NAME/loss` of `seed`, and `jitter` (if any) from
    /// [`jitter_rng`].
    pub fn into_parts(self, seed: u64, jitter: Option<DurationDist>) -> LinkParts {
        LinkParts {
            loss_rng: Xoshiro256pp::for_stream(seed, &format!("link/{}/loss", self.name)),
            jitter: jitter.map(|j| (j, jitter_rng(seed, &self.name))),
            name: self.name,
            rate: self.rate,
            delay: self.delay,
            qdisc: Qdisc::new(self.qdisc),
            loss: self.loss,
        }
    }
}

/// The random stream of link direction `name`'s jitter: `link/NAME/jitter` of `seed`.
pub fn jitter_rng(seed: u64, name: &str) -> Xoshiro256pp {
    Xoshiro256pp::for_stream(seed, &format!("link/{name}/jitter"))
}

/// Next-hop table: `next[node · n + dst]` is the link `node` sends on to reach `dst` (one flat
/// table: a hop costs one lookup, not two), `NO_ROUTE` when there is none: 4 bytes an entry,
/// where an `Option<u32>` takes 8 (16 MB rather than 32 for a dumbbell of 1,000 senders).
#[derive(Clone, Debug)]
pub struct Routes {
    n: usize,
    next: Vec<u32>,
}

/// The entry of [`Routes`] for an unreachable destination (no link has this index: a
/// simulation has fewer links, [`Routes::compute`] checks).
const NO_ROUTE: u32 = u32::MAX;

impl Routes {
    /// Breadth-first search from every destination over reversed links: O(N·(N + L)) time.
    pub fn compute(n_nodes: usize, links: &[(u32, u32)]) -> Routes {
        // Links arriving at each node, in link-index order (the search visits them so).
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n_nodes];
        for (li, &(_, to)) in links.iter().enumerate() {
            incoming[to as usize].push(li as u32);
        }
        assert!(
            links.len() < NO_ROUTE as usize,
            "{} links: a link index must stay below {NO_ROUTE}",
            links.len()
        );
        let mut next = vec![NO_ROUTE; n_nodes * n_nodes];
        let mut seen = vec![false; n_nodes];
        let mut frontier = VecDeque::with_capacity(n_nodes);
        for dst in 0..n_nodes {
            seen.iter_mut().for_each(|x| *x = false);
            seen[dst] = true;
            frontier.push_back(dst as u32);
            while let Some(v) = frontier.pop_front() {
                // Every link u -> v gives u a route to dst through v.
                for &li in &incoming[v as usize] {
                    let u = links[li as usize].0 as usize;
                    if !seen[u] {
                        seen[u] = true;
                        next[u * n_nodes + dst] = li;
                        frontier.push_back(u as u32);
                    }
                }
            }
        }
        Routes { n: n_nodes, next }
    }
    /// The link `node` uses towards `dst`, if `dst` is reachable.
    #[inline]
    pub fn next_link(&self, node: u32, dst: u32) -> Option<u32> {
        let l = self.next[node as usize * self.n + dst as usize];
        (l != NO_ROUTE).then_some(l)
    }

    /// The link directions from `src` to `dst` in order (empty when there is no route); `to(l)`
    /// is the far end of link `l` (of the links the routes were computed from).
    pub fn path(&self, src: u32, dst: u32, to: impl Fn(usize) -> u32) -> Vec<usize> {
        let n = self.n as u32;
        let mut v = Vec::new();
        let mut node = src;
        while node != dst && src < n && dst < n {
            let Some(l) = self.next_link(node, dst) else {
                return Vec::new();
            };
            v.push(l as usize);
            node = to(l as usize);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_paths_in_a_dumbbell() {
        // 0,1 -> 2 -> 3 -> 4,5 and back.
        let fwd = [(0, 2), (1, 2), (2, 3), (3, 4), (3, 5)];
        let mut links: Vec<(u32, u32)> = fwd.to_vec();
        links.extend(fwd.iter().map(|&(a, b)| (b, a)));
        let r = Routes::compute(6, &links);
        assert_eq!(r.next_link(0, 4), Some(0));
        assert_eq!(r.next_link(2, 4), Some(2));
        assert_eq!(r.next_link(3, 4), Some(3));
        assert_eq!(r.next_link(4, 0), Some(8)); // 4 -> 3 (reverse of link 3)
        assert_eq!(r.next_link(3, 1), Some(7)); // 3 -> 2
        let isolated = Routes::compute(3, &[(0, 1)]);
        assert_eq!(isolated.next_link(1, 0), None);
    }

    /// The routes as the table of `Option<u32>` (before it took 4 bytes an entry) had them:
    /// the same search, written plainly.
    fn reference_routes(n: usize, links: &[(u32, u32)]) -> Vec<Option<u32>> {
        let mut next = vec![None; n * n];
        for dst in 0..n {
            let mut seen = vec![false; n];
            seen[dst] = true;
            let mut frontier = VecDeque::from([dst as u32]);
            while let Some(v) = frontier.pop_front() {
                for (li, &(u, to)) in links.iter().enumerate() {
                    if to == v && !seen[u as usize] {
                        seen[u as usize] = true;
                        next[u as usize * n + dst] = Some(li as u32);
                        frontier.push_back(u);
                    }
                }
            }
        }
        next
    }

    /// On random graphs (some nodes unreachable, parallel links, self-loops), every entry
    /// is the reference's, and the table takes 4 bytes an entry.
    #[test]
    fn same_routes_as_the_reference_in_four_bytes_an_entry() {
        let mut rng = Xoshiro256pp::for_stream(7, "routes-test");
        for case in 0..200 {
            let n = 1 + (rng.next_u64() % 12) as usize;
            let links: Vec<(u32, u32)> = (0..rng.next_u64() % 30)
                .map(|_| {
                    let a = (rng.next_u64() % n as u64) as u32;
                    (a, (rng.next_u64() % n as u64) as u32)
                })
                .collect();
            let r = Routes::compute(n, &links);
            let want = reference_routes(n, &links);
            for node in 0..n {
                for dst in 0..n {
                    assert_eq!(
                        r.next_link(node as u32, dst as u32),
                        want[node * n + dst],
                        "case {case}: {n} nodes, links {links:?}, {node} -> {dst}"
                    );
                }
            }
            assert_eq!(std::mem::size_of_val(r.next.as_slice()), 4 * n * n);
        }
    }
}
