//! Web pages ([`TcpApp::Page`](super::TcpApp::Page)): RFC 7928 §7.2's and §9.1's web traffic,
//! a page of `objects` objects fetched over `parallel` persistent connections opened together,
//! as a browser does (6 per host, RFC 7928 §7.2). Object `k` goes over connection
//! `k mod parallel`; on each connection the client asks for its next object as soon as the
//! previous one has wholly arrived (HTTP/1.1 without pipelining). The page is complete when
//! every object is acknowledged: its completion time, from the page's request to then, is RFC
//! 7928 §2.1's flow completion time for a web page.

use super::apps::{Arrivals, WebKind, WebMore};
use super::{Ev, FlowKind, Sim, TcpApp};
use crate::event::Lane;
use crate::packmime::Exchange;
use aqmlab_core::{SimDuration, SimTime};

/// A page being fetched.
#[derive(Clone, Copy, Debug)]
pub(super) struct PageRun {
    pub(super) flow: u32,
    pub(super) start: SimTime,
    /// Connections not yet done.
    pub(super) left: u32,
    /// A connection of it never opened.
    pub(super) failed: bool,
}

/// Object `k` of a page goes over connection `k mod parallel`: the objects of connection `j`
/// (from 0), in order, of a page of `objects` over `parallel` connections.
pub fn page_objects(objects: u32, parallel: u32, j: u32) -> impl Iterator<Item = u32> {
    (j..objects).step_by(parallel.max(1) as usize)
}

impl Sim {
    /// A page request arrives now at flow `f`'s client: it opens the page's connections, and the
    /// next page is scheduled.
    pub(super) fn on_page_arrival(&mut self, f: u32) {
        let now = self.now;
        let FlowKind::Tcp { spec, rng, .. } = &mut self.flows[f as usize].kind else {
            unreachable!()
        };
        if spec.stop.is_some_and(|s| now >= s) {
            return;
        }
        let TcpApp::Page {
            arrivals,
            objects,
            parallel,
            size,
            request_bytes,
        } = spec.app
        else {
            unreachable!("PageArrival for a flow without pages")
        };
        // The objects' sizes in order, then the gap to the next page.
        let sizes: Vec<u64> = (0..objects).map(|_| size.sample(rng)).collect();
        let gap = match arrivals {
            Arrivals::Poisson { per_s } => SimDuration::from_secs_f64(rng.exponential(1.0 / per_s)),
            Arrivals::Periodic { interval } => interval,
        };
        self.events.push_in(
            Lane::Timers,
            now + gap.max(SimDuration::from_nanos(1)),
            Ev::WebArrival(f),
        );
        let conns = parallel.min(objects);
        let page = self.pages.insert(PageRun {
            flow: f,
            start: now,
            left: conns,
            failed: false,
        });
        self.flows[f as usize].m.pages_started += 1;
        let mut plan = Vec::with_capacity(sizes.len().div_ceil(conns as usize));
        for j in 0..conns {
            plan.clear();
            plan.extend(page_objects(objects, conns, j).map(|k| Exchange {
                request: request_bytes,
                response: sizes[k as usize],
                gap: 0.0,
            }));
            let (c, _) = self.open_conn(f, Some(request_bytes), Some(plan[0].response), false);
            match self.conns.try_get_mut(c) {
                Some(conn) => {
                    conn.web_more = Some(Box::new(WebMore::new(&plan, now, WebKind::Page(page))))
                }
                // Freed at once: it cannot be (a connection opens with a SYN to send).
                None => self.page_conn_done(page, true),
            }
        }
    }

    /// One connection of page `page` is done (all its objects acknowledged, or `failed` to
    /// open); the page is complete when the last is.
    pub(super) fn page_conn_done(&mut self, page: u32, failed: bool) {
        let now = self.now;
        let p = self.pages.get_mut(page);
        p.left -= 1;
        p.failed |= failed;
        if p.left > 0 {
            return;
        }
        let PageRun {
            flow,
            start,
            failed,
            ..
        } = *p;
        self.pages.free(page);
        let m = &mut self.flows[flow as usize].m;
        if failed {
            m.pages_failed += 1;
        } else {
            m.pages_completed += 1;
            m.page_time_ns.add((now - start).as_nanos());
        }
    }
}
