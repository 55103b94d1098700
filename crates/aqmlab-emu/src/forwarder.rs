//! The forwarder's loop: packets read from the client's TUN device go through the uplink,
//! packets from the server's through the downlink, each a [`ClockedLink`] (the simulator's own
//! link direction) run in virtual time on CLOCK_MONOTONIC; a packet is written to the far device when its propagation has ended.
//!
//! The loop sleeps in `ppoll` until a device is readable, the control descriptor (standard
//! input) is readable or closed, or the next delivery or transmission end is due, with a
//! nanosecond timeout. A late wake-up shifts deliveries (each one's lateness, the time between
//! when it was due and when it was written, is measured) but the links never lose capacity: a
//! transmission starts at the virtual end of the one before it.

use crate::flows::FlowTable;
use crate::ip;
use crate::pool::Pool;
use crate::sys;
use aqmlab_core::{Ecn, Packet, SimTime};
use aqmlab_link::sketch::QuantileSketch;
use aqmlab_link::{ClockedLink, DropRecord, PacketRecord};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};

/// Packets read from one device per wake-up before the loop delivers what is due.
const READ_BATCH: usize = 64;

/// The two devices and the two link directions between them.
pub struct Forwarder {
    /// The client's device: packets read here go uplink; the downlink writes here.
    pub client: File,
    /// The server's device.
    pub server: File,
    /// Server → client.
    pub down: ClockedLink,
    /// Client → server.
    pub up: ClockedLink,
    pool: Pool,
    freed: Vec<Packet>,
    start_ns: u64,
    /// How late each delivery was written, ns.
    pub lateness_ns: QuantileSketch,
    /// Writes the kernel refused (a device gone, or its queue full).
    pub write_errors: u64,
    /// Packets delivered to each device: (client, server).
    pub written: (u64, u64),
    /// The flows seen.
    pub flows: FlowTable,
    /// The per-packet records taken from a direction, before they go to the log writer
    /// (reused: no allocation once grown).
    log_buf: Vec<PacketRecord>,
    drop_buf: Vec<DropRecord>,
}

/// Which way a packet goes.
#[derive(Clone, Copy)]
enum Dir {
    Down,
    Up,
}

impl Forwarder {
    /// A forwarder between `client` and `server`; virtual time 0 is now.
    pub fn new(
        client: File,
        server: File,
        down: ClockedLink,
        up: ClockedLink,
        bin: aqmlab_core::SimDuration,
    ) -> Forwarder {
        Forwarder {
            client,
            server,
            down,
            up,
            pool: Pool::new(8192),
            freed: Vec::with_capacity(256),
            start_ns: sys::monotonic_ns(),
            lateness_ns: QuantileSketch::new(),
            write_errors: 0,
            written: (0, 0),
            flows: FlowTable::new(bin),
            log_buf: Vec::with_capacity(4096),
            drop_buf: Vec::with_capacity(256),
        }
    }

    /// Virtual time now.
    pub fn now(&self) -> SimTime {
        SimTime::from_nanos(sys::monotonic_ns().saturating_sub(self.start_ns))
    }

    fn release_freed(&mut self) {
        for p in self.freed.drain(..) {
            self.flows.dropped(p.flow);
            self.pool.release(p.id as u32);
        }
    }

    /// Runs both transmitters to `now` and writes every packet whose propagation has ended.
    fn deliver(&mut self, now: SimTime) {
        for dir in [Dir::Down, Dir::Up] {
            let link = match dir {
                Dir::Down => &mut self.down,
                Dir::Up => &mut self.up,
            };
            link.advance(now, &mut self.freed);
            while let Some((due, p)) = link.pop_arrived(now) {
                let i = p.id as u32;
                let buf = self.pool.packet_mut(i);
                if p.ecn == Ecn::Ce && ip::ecn(buf) != Ecn::Ce {
                    ip::set_ce(buf);
                }
                let dev = match dir {
                    Dir::Down => &mut self.client,
                    Dir::Up => &mut self.server,
                };
                match dev.write(buf) {
                    Ok(_) => match dir {
                        Dir::Down => self.written.0 += 1,
                        Dir::Up => self.written.1 += 1,
                    },
                    Err(_) => self.write_errors += 1,
                }
                self.flows.delivered(p.flow, p.size_bytes, now);
                self.lateness_ns.add((now - due).as_nanos());
                self.pool.release(i);
            }
        }
        self.release_freed();
    }

    /// Reads up to [`READ_BATCH`] packets from the device of `dir`'s sending side into `dir`;
    /// an error when the device cannot be read (it is gone).
    fn read_from(&mut self, dir: Dir) -> io::Result<()> {
        for _ in 0..READ_BATCH {
            let i = self.pool.alloc();
            let dev = match dir {
                Dir::Down => &mut self.server,
                Dir::Up => &mut self.client,
            };
            let n = match dev.read(self.pool.slot_mut(i)) {
                Ok(n) => n,
                Err(e) => {
                    self.pool.release(i);
                    return match e.kind() {
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(()),
                        _ => Err(e),
                    };
                }
            };
            self.pool.set_len(i, n);
            let now = self.now();
            let buf = self.pool.packet_mut(i);
            let flow = self.flows.sent(buf, now);
            let mut p = Packet::new(i as u64, n as u32, flow);
            p.ecn = ip::ecn(buf);
            p.tcp = ip::tcp_hint(buf);
            match dir {
                Dir::Down => self.down.arrive(now, p, &mut self.freed),
                Dir::Up => self.up.arrive(now, p, &mut self.freed),
            }
            self.release_freed();
        }
        Ok(())
    }

    /// Forwards until `control` is readable at its end (closed, or a line written to it), and
    /// hands each direction's per-packet records and dropped packets to `log` now and then. Returns the time the
    /// links were last run to: report them at that time, when every call their disciplines
    /// owed has been made.
    pub fn run(
        &mut self,
        control: &mut impl Read,
        control_fd: RawFd,
        log: &mut impl FnMut(&str, &[PacketRecord], &[DropRecord]) -> io::Result<()>,
    ) -> io::Result<SimTime> {
        let fds = [self.client.as_raw_fd(), self.server.as_raw_fd(), control_fd];
        let mut ready = [false; 3];
        let mut next_log = SimTime::ZERO;
        loop {
            let now = self.now();
            self.deliver(now);
            if now >= next_log {
                next_log = now + aqmlab_core::SimDuration::from_millis(200);
                self.flush_log(log)?;
            }
            let next = match (self.down.next_event(), self.up.next_event()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let timeout = next.map(|t| t.as_nanos().saturating_sub(self.now().as_nanos()));
            // Wake for the log's flush at least every 200 ms.
            let timeout = Some(timeout.unwrap_or(200_000_000).min(200_000_000));
            sys::wait_readable(&fds, &mut ready, timeout)?;
            if ready[0] {
                self.read_from(Dir::Up)?;
            }
            if ready[1] {
                self.read_from(Dir::Down)?;
            }
            if ready[2] {
                let mut b = [0u8; 64];
                // End of file (the controller closed it or died) or a line: stop.
                let _ = control.read(&mut b)?;
                break;
            }
        }
        let now = self.now();
        self.deliver(now);
        self.flush_log(log)?;
        Ok(now)
    }

    fn flush_log(
        &mut self,
        log: &mut impl FnMut(&str, &[PacketRecord], &[DropRecord]) -> io::Result<()>,
    ) -> io::Result<()> {
        for link in [&mut self.down, &mut self.up] {
            link.take_log(&mut self.log_buf, &mut self.drop_buf);
            if !self.log_buf.is_empty() || !self.drop_buf.is_empty() {
                log(link.name(), &self.log_buf, &self.drop_buf)?;
            }
        }
        Ok(())
    }

    /// Packets held (queued or propagating).
    pub fn packets_held(&self) -> usize {
        self.pool.in_use()
    }
}
