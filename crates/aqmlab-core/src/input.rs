//! Reading an input file whole, with a cap on its size.
//!
//! Every file aqmlab reads (a scenario, a replay schedule, a delivery trace, a uniforms file) is
//! read with [`read_capped`]: at most its kind's cap plus one byte is read, so an endless or
//! huge input (`/dev/zero`, a mistaken log file) fails at once with one line naming the file and
//! the cap, instead of growing in memory. The caps hold every input the project ships with room
//! to spare (the largest, the ns-3 vectors' schedules, are under 1 MiB); the environment
//! variable [`CAP_ENV`] (in MiB) replaces them all for a larger input.

use std::io::Read;

/// An input's kind and its size cap in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputKind {
    /// What the file is, as errors name it ("scenario", "schedule", ...).
    pub what: &'static str,
    /// The largest file read, in bytes, unless [`CAP_ENV`] says otherwise.
    pub cap: u64,
}

const MIB: u64 = 1024 * 1024;

/// A scenario file: 16 MiB (a scenario of 100 000 written-out flows is about 8 MiB).
pub const SCENARIO: InputKind = InputKind {
    what: "scenario",
    cap: 16 * MIB,
};
/// A replay schedule CSV: 256 MiB (about 13 million rows).
pub const SCHEDULE: InputKind = InputKind {
    what: "schedule",
    cap: 256 * MIB,
};
/// A delivery trace (mahimahi format): 256 MiB (about 30 million delivery opportunities).
pub const TRACE: InputKind = InputKind {
    what: "trace",
    cap: 256 * MIB,
};
/// A file of uniform draws for `aqmlab replay --uniforms`: 256 MiB.
pub const UNIFORMS: InputKind = InputKind {
    what: "uniforms file",
    cap: 256 * MIB,
};

/// The environment variable that, when set to a whole number of MiB, replaces every cap.
pub const CAP_ENV: &str = "AQMLAB_MAX_INPUT_MIB";

impl InputKind {
    /// The cap in force: [`CAP_ENV`] when it is set (a bad value is an error naming it), else
    /// [`InputKind::cap`].
    pub fn cap_in_force(&self) -> Result<u64, String> {
        match std::env::var(CAP_ENV) {
            Err(_) => Ok(self.cap),
            Ok(v) => v
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|&m| m >= 1)
                .and_then(|m| m.checked_mul(MIB))
                .ok_or_else(|| format!("{CAP_ENV}: expected a whole number of MiB ≥ 1, got {v:?}")),
        }
    }
}

/// The bytes of `path`, a file of kind `kind`. The error is one line: the path, what could not
/// be done, and for a file over the cap, the cap and how to raise it.
pub fn read_capped(path: &std::path::Path, kind: InputKind) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let cap = kind.cap_in_force()?;
    let f = std::fs::File::open(path)
        .map_err(|e| format!("{shown}: cannot read the {}: {e}", kind.what))?;
    let mut bytes = Vec::new();
    f.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{shown}: cannot read the {}: {e}", kind.what))?;
    if bytes.len() as u64 > cap {
        return Err(format!(
            "{shown}: the {} is larger than {}: expected a smaller file (set {CAP_ENV} to raise the cap)",
            kind.what,
            if cap % MIB == 0 {
                format!("{} MiB", cap / MIB)
            } else {
                format!("{cap} bytes")
            }
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/dev/zero` never ends: it must fail at the cap, with one line naming it.
    #[test]
    fn endless_input_stops_at_the_cap() {
        let z = std::path::Path::new("/dev/zero");
        if !z.exists() {
            return;
        }
        let e = read_capped(z, SCENARIO).unwrap_err();
        assert_eq!(
            e,
            "/dev/zero: the scenario is larger than 16 MiB: expected a smaller file (set AQMLAB_MAX_INPUT_MIB to raise the cap)"
        );
    }

    #[test]
    fn a_file_at_the_cap_is_read() {
        let dir = std::env::temp_dir().join(format!("aqmlab-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x");
        let kind = InputKind { what: "x", cap: 10 };
        std::fs::write(&p, b"0123456789").unwrap();
        assert_eq!(read_capped(&p, kind).unwrap().len(), 10);
        std::fs::write(&p, b"0123456789a").unwrap();
        assert!(read_capped(&p, kind)
            .unwrap_err()
            .contains("x is larger than 10 bytes"));
        std::fs::remove_dir_all(&dir).unwrap();
        let e = read_capped(&dir.join("missing"), kind).unwrap_err();
        assert!(e.contains("missing: cannot read the x: "), "{e}");
    }
}
