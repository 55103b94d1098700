//! Fingerprints the model's sources (the Rust files of the crates that decide a run's results)
//! into `AQMLAB_SOURCE_HASH`, so that a sweep's cache, keyed by it, never serves a result that
//! an edited simulator would compute differently, even when the version number stays the same.

use std::path::{Path, PathBuf};

/// The crates whose code decides what a run computes: the workspace crates (`aqmlab-*`) this
/// one depends on, directly or through each other, read from their `Cargo.toml` files, so that
/// a crate the model comes to depend on is fingerprinted without being listed here (a list by
/// hand missed `aqmlab-link`, the link model, and would have missed `aqmlab-report`).
fn model_crates(crates: &Path) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut todo = vec![String::from("aqmlab-py")];
    while let Some(c) = todo.pop() {
        let manifest = crates.join(&c).join("Cargo.toml");
        println!("cargo:rerun-if-changed={}", manifest.display());
        let text = std::fs::read_to_string(&manifest)
            .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
        for d in workspace_deps(&text) {
            if d != "aqmlab-py" && !found.contains(&d) {
                found.push(d.clone());
                todo.push(d);
            }
        }
    }
    found.sort();
    found
}

/// The `aqmlab-*` crates named in the `[dependencies]` table of manifest text `toml` (one
/// entry a line: `aqmlab-x.workspace = true` or `aqmlab-x = { path = ... }`).
fn workspace_deps(toml: &str) -> Vec<String> {
    let mut in_deps = false;
    let mut out = Vec::new();
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
        } else if in_deps {
            let name = line
                .split(|c: char| c == '=' || c == '.' || c.is_whitespace())
                .next()
                .unwrap_or("");
            if name.starts_with("aqmlab-") {
                out.push(name.to_string());
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// 64-bit FNV-1a: enough to tell two source trees apart; not a security hash.
fn fnv1a(h: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *h ^= *b as u64;
        *h = h.wrapping_mul(0x0100_0000_01b3);
    }
}

fn main() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    let model = model_crates(&crates);
    for c in &model {
        let src = crates.join(c).join("src");
        println!("cargo:rerun-if-changed={}", src.display());
        rust_files(&src, &mut files);
    }
    // Sorted by path relative to the crates folder: the same tree hashes the same anywhere.
    let mut rel: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|p| {
            let r = p
                .strip_prefix(&crates)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            (r, p)
        })
        .collect();
    rel.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (r, p) in &rel {
        fnv1a(&mut h, r.as_bytes());
        fnv1a(&mut h, &[0]);
        fnv1a(&mut h, &std::fs::read(p).unwrap_or_default());
        fnv1a(&mut h, &[0]);
    }
    println!("cargo:rustc-env=AQMLAB_SOURCE_HASH={h:016x}");
    println!("cargo:rustc-env=AQMLAB_MODEL_CRATES={}", model.join(","));
}
