//! Determinism across machines and builds: short runs of the bundled scenarios (and of a
//! test-only one) must give exactly the summaries committed in `tests/reference/`: every count,
//! quantile and rate, `wall_s` aside. CI runs this on a fresh machine with the test (debug)
//! build, and `tests/test_reference.py` checks the same files against the installed Python
//! package, whose native module `make install` builds with profile-guided optimisation.
//!
//! A file `tests/reference/NAME.DURATION.json` holds the summary of `scenarios/NAME.toml` run
//! for DURATION (its seed as written), or of `tests/reference/scenarios/NAME.toml`, a test-only
//! scenario for what the bundled ones leave out (ECN marks, wire loss, UDP, finite transfers;
//! the traffic models in `apps.toml`).
//! The files were recorded with the code of commit c1d1325, before the speed work that followed
//! it, which was meant to change no result and changed none; re-recorded since for the CUBIC
//! timeout fix (0dbc9e3: the two CUBIC scenarios moved), for flow names (7a54422: every
//! summary gained `flows[i].name`, no value moved) and for the end-of-run backlog (issue 24's
//! branch `pq`: every link gained `queued_pkts_at_end` and `transmitting_pkts_at_end`, no value
//! moved).
//!
//! A change that alters results on purpose (a model fix) re-records them:
//! `AQMLAB_BLESS=1 cargo test -p aqmlab-sim --test reference`, and the diff shows what moved.
//! An empty file of a new name is filled in the same way.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{apply_sets, build, Overrides};
use aqmlab_sim::summary::summary;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    here.canonicalize().unwrap_or(here)
}

/// `(scenario stem, duration, reference file)` for every file in `tests/reference/`.
fn cases() -> Vec<(String, String, PathBuf)> {
    let dir = root().join("tests/reference");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/reference exists")
        .map(|e| e.expect("readable directory").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let (name, duration) = stem
                .split_once('.')
                .unwrap_or_else(|| panic!("{}: expected NAME.DURATION.json", p.display()));
            (name.to_string(), duration.to_string(), p)
        })
        .collect();
    cases.sort();
    cases
}

/// The summary of scenario `name` run for `duration`, without `wall_s`.
fn run(name: &str, duration: &str) -> Value {
    let test_only = root()
        .join("tests/reference/scenarios")
        .join(format!("{name}.toml"));
    let path = if test_only.exists() {
        test_only
    } else {
        root().join("scenarios").join(format!("{name}.toml"))
    };
    let file = path.display().to_string();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let text = apply_sets(&text, &file, &[("duration".into(), duration.into())]).unwrap();
    let dir = path.parent().unwrap();
    let mut s = build(&text, &file, dir, name, &Overrides::default()).unwrap();
    s.sim.run_until(SimTime::ZERO + s.duration);
    let mut v = summary(&s.name, s.seed, &s.sim.report(), 0.0);
    v.as_object_mut().unwrap().remove("wall_s");
    v
}

#[test]
fn summaries_match_the_committed_references() {
    let cases = cases();
    assert!(
        cases.len() >= 5,
        "tests/reference/ holds the reference summaries"
    );
    let bless = std::env::var_os("AQMLAB_BLESS").is_some_and(|v| v == "1");
    let mut differ = vec![];
    for (name, duration, file) in cases {
        // Compared as text: serde_json writes each float as its shortest round-trip form
        // and the keys sorted, so equal summaries are equal texts.
        let got = serde_json::to_string_pretty(&run(&name, &duration)).unwrap() + "\n";
        if bless {
            std::fs::write(&file, got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&file).unwrap();
        if got != want {
            differ.push(format!(
                "{}: the run differs from the reference:\n{got}",
                file.display()
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n\n"));
}
