#!/usr/bin/env bash
# Builds the Rust core with profile-guided optimisation (PGO) and installs the aqmlab package in
# editable mode: what `make install` and `make install-test` run.
#
#   scripts/pgo-install.sh [PIP-TARGET]      # PIP-TARGET: `.` (default) or `.[test]`
#   AQMLAB_PGO=0 scripts/pgo-install.sh      # a plain release build (faster to build)
#
# Why: the simulator's per-packet path is short, branchy code spread over a few dozen functions;
# knowing which branches are taken lets the compiler lay it out and inline it better. On the
# bulk benchmark the PGO build runs about 10% faster (README, "Speed"). PGO changes the machine
# code only, never a result (no floating-point reassociation): the same scenario gives the same
# summary either way.
#
# How:
#  1. build the scenario runner (crates/aqmlab-sim/examples/run_scenario.rs) instrumented, in
#     its own target directory (target/pgo/gen), so the usual builds are left alone;
#  2. run it on the training set below: every bundled scenario, with every discipline swapped
#     onto the dynamic link, so no discipline's code is left untrained (untrained code would be
#     laid out as cold, and run slower than without PGO);
#  3. merge the raw profiles with llvm-profdata, from the toolchain's `llvm-tools` component
#     (added with rustup when missing);
#  4. build and install the Python module with the merged profile (target/pgo/use).
# Without llvm-profdata (no rustup to add it), it says so and makes a plain build.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
target=${1:-.}

pip_install() {
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
        -e "$target"
}

if [ "${AQMLAB_PGO:-1}" = 0 ]; then
    pip_install
    exit
fi

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ] && command -v rustup >/dev/null; then
    echo "pgo: adding the toolchain's llvm-tools component (for llvm-profdata)" >&2
    rustup component add llvm-tools >/dev/null 2>&1 || true
fi
if [ ! -x "$profdata" ]; then
    echo "pgo: llvm-profdata not found ($profdata), so building without profile-guided" \
        "optimisation: the simulator will run about 10% slower. Install rustup's llvm-tools" \
        "component to get it, or set AQMLAB_PGO=0 to skip this notice." >&2
    pip_install
    exit
fi

dir=$PWD/target/pgo
rm -rf "$dir/raw"
mkdir -p "$dir/raw"
echo "pgo: building the instrumented scenario runner" >&2
RUSTFLAGS="-Cprofile-generate=$dir/raw" CARGO_TARGET_DIR="$dir/gen" \
    cargo build --release --quiet -p aqmlab-sim --example run_scenario
runner="$dir/gen/release/examples/run_scenario"

echo "pgo: training on the bundled scenarios" >&2
for scenario in scenarios/*.toml bench/web-overload.toml; do
    "$runner" "$scenario" >/dev/null
done
for kind in droptail red pie fq_codel lstf_codel; do
    "$runner" scenarios/codel-dynamic-link.toml "bottleneck=$kind" >/dev/null
done
"$profdata" merge -o "$dir/merged.profdata" "$dir/raw"

echo "pgo: building and installing aqmlab with the profile" >&2
RUSTFLAGS="-Cprofile-use=$dir/merged.profdata" CARGO_TARGET_DIR="$dir/use" pip_install
