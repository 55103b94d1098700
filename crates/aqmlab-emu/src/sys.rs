//! The system calls std does not offer, each wrapped in a safe function: the only module of the
//! workspace with unsafe code (the crate denies it everywhere else).
//!
//! * [`open_tun`]: a TUN device (`/dev/net/tun`, `TUNSETIFF` with `IFF_TUN | IFF_NO_PI`:
//!   Linux `Documentation/networking/tuntap.rst` §3.2), non-blocking;
//! * [`monotonic_ns`]: CLOCK_MONOTONIC in nanoseconds (`clock_gettime(2)`);
//! * [`wait_readable`]: `ppoll(2)` with a nanosecond timeout;
//! * [`set_realtime`]: `sched_setscheduler(2)` with SCHED_FIFO;
//! * [`cpu_time_ns`]: `getrusage(2)`, user + system time of this process.
#![allow(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

/// `_IOW('T', 202, int)` (linux/if_tun.h).
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags (the rest of the union is
/// padding).
#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Opens (creating) the TUN device `name` in this process's network namespace, non-blocking.
/// The device lives as long as the file: closing it (or the process dying) removes it.
pub fn open_tun(name: &str) -> io::Result<File> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains(['/', ' ', '\0']) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("bad device name {name:?}: expected 1 to 15 characters without / or spaces"),
        ));
    }
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open("/dev/net/tun")?;
    let mut req = IfReq {
        name: [0; libc::IFNAMSIZ],
        flags: IFF_TUN | IFF_NO_PI,
        _pad: [0; 22],
    };
    for (d, s) in req.name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    // SAFETY: `f` is an open descriptor of /dev/net/tun and `req` a properly laid out ifreq
    // that outlives the call; TUNSETIFF reads the name and flags and writes the name back.
    let rc = unsafe { libc::ioctl(f.as_raw_fd(), TUNSETIFF as _, &mut req as *mut IfReq) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(f)
}

/// CLOCK_MONOTONIC, ns.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write into; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Waits until one of `fds` is readable or `timeout_ns` has passed (`None`: no timeout); sets
/// `ready[i]` for each readable (or hung-up) descriptor. An interrupted wait returns with no
/// descriptor ready.
pub fn wait_readable(fds: &[RawFd], ready: &mut [bool], timeout_ns: Option<u64>) -> io::Result<()> {
    const MAX: usize = 4;
    assert!(fds.len() <= MAX && ready.len() >= fds.len());
    let mut pfd = [libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    }; MAX];
    for (p, &fd) in pfd.iter_mut().zip(fds) {
        p.fd = fd;
        p.events = libc::POLLIN;
    }
    let ts = timeout_ns.map(|ns| libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    });
    let tsp = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `pfd` holds `fds.len()` initialised pollfd entries; `tsp` is null or points at a
    // timespec that lives through the call; no signal mask is passed.
    let rc = unsafe { libc::ppoll(pfd.as_mut_ptr(), fds.len() as _, tsp, std::ptr::null()) };
    for r in ready.iter_mut() {
        *r = false;
    }
    if rc < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted {
            Ok(())
        } else {
            Err(e)
        };
    }
    for (r, p) in ready.iter_mut().zip(&pfd[..fds.len()]) {
        *r = p.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0;
    }
    Ok(())
}

/// Runs this process under SCHED_FIFO at `priority` (1-99).
pub fn set_realtime(priority: i32) -> io::Result<()> {
    let p = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: pid 0 is this process; `p` is a valid sched_param for the call's duration.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// User + system CPU time this process has used, ns.
pub fn cpu_time_ns() -> u64 {
    // SAFETY: an all-zero rusage is a valid value to be overwritten.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer to write into.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Sets this thread's timer slack (`prctl(PR_SET_TIMERSLACK)`; Linux's default is 50 µs) to
/// `ns`: how much later than asked a timed wait may end, so that the kernel can coalesce
/// wake-ups.
pub fn set_timer_slack(ns: u64) {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and touches no memory of ours.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) };
}
