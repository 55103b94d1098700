#!/usr/bin/env bash
# Builds the Rust core with profile-guided optimisation (PGO) and installs the aqmlab package in
# editable mode: what `make install` and `make install-test` run.
#
#   scripts/pgo-install.sh [PIP-TARGET]      # PIP-TARGET: `.` (default) or `.[test]`
#   AQMLAB_PGO=0 scripts/pgo-install.sh      # a plain release build (quicker to compile)
#   PYTHON="python3.12" scripts/pgo-install.sh
#
# Why: the simulator's per-packet path is short, branchy code spread over a few dozen functions;
# knowing which branches are taken lets the compiler lay it out and inline it better. On the
# bulk benchmark the PGO build runs 10-12% faster (README, "The profile-guided build"). PGO
# changes the machine code only, never a result (no floating-point reassociation):
# tests/reference/ holds summaries that the installed build must reproduce exactly.
#
# How:
#  1. build the scenario runner (crates/aqmlab-sim/examples/run_scenario.rs) instrumented, in
#     its own target directory (target/pgo/gen), so the usual builds are left alone;
#  2. run it on the training set below: every bundled scenario, with every discipline swapped
#     onto the dynamic link, so no discipline's code is left untrained (untrained code would be
#     laid out as cold, and run slower than without PGO). The Python bindings are not trained:
#     they run once per call (summary, series), not per packet;
#  3. merge the raw profiles with llvm-profdata, from the toolchain's `llvm-tools` component
#     (added with rustup when missing);
#  4. build and install the Python module with the merged profile (target/pgo/use).
# Steps 1-3 are skipped when the profile was made from the same sources and toolchain (a stamp
# in target/pgo records them; outside a git checkout they always run), so a repeated install
# is incremental. The flags are added to the user's own RUSTFLAGS / CARGO_ENCODED_RUSTFLAGS
# (cargo's `build.rustflags` config is overridden by them, as by any RUSTFLAGS).
# Without llvm-profdata (no rustup to add it), it says so and makes a plain build.
set -euo pipefail
cd "$(dirname "$0")/.."
# PYTHON may hold arguments too ("uv run python").
read -ra python <<<"${PYTHON:-python3}"
rustc=${RUSTC:-rustc}
target=${1:-.}

pip_install() {
    "${python[@]}" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
        -e "$target"
}

case "${AQMLAB_PGO:-1}" in
0 | false | no | off)
    pip_install
    exit
    ;;
esac

sysroot=$("$rustc" --print sysroot)
host=$("$rustc" -vV | sed -n 's/^host: //p')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ] && command -v rustup >/dev/null; then
    echo "pgo: adding the toolchain's llvm-tools component (for llvm-profdata)" >&2
    rustup component add llvm-tools >&2 || true
fi
if [ ! -x "$profdata" ]; then
    echo "pgo: llvm-profdata not found ($profdata), so building without profile-guided" \
        "optimisation: the simulator will run about 10% slower. Install rustup's llvm-tools" \
        "component to get it, or set AQMLAB_PGO=0 to skip this notice." >&2
    pip_install
    exit
fi

# The user's rustc flags, as cargo's \x1f-separated list, with `$1` appended (an encoded list
# keeps a path with spaces in one argument).
sep=$'\x1f'
user_flags=${CARGO_ENCODED_RUSTFLAGS:-}
if [ -z "$user_flags" ] && [ -n "${RUSTFLAGS:-}" ]; then
    read -ra words <<<"$RUSTFLAGS"
    user_flags=$(IFS=$sep; echo "${words[*]}")
fi
with_flag() {
    if [ -n "$user_flags" ]; then
        printf '%s%s%s' "$user_flags" "$sep" "$1"
    else
        printf '%s' "$1"
    fi
}

dir=$PWD/target/pgo
profile=$dir/merged.profdata
stamp=$dir/profile.stamp
# What the profile depends on: the sources and the training set (tracked and modified files),
# the toolchain, and the flags.
sources() {
    git rev-parse HEAD:crates HEAD:scenarios HEAD:bench HEAD:Cargo.lock 2>/dev/null &&
        git status --porcelain -- crates scenarios bench Cargo.lock Cargo.toml &&
        git diff -- crates scenarios bench Cargo.lock Cargo.toml | cksum &&
        "$rustc" -vV && printf '%s\n' "$user_flags"
}
want=$(sources) || want=""
if [ -n "$want" ] && [ -f "$profile" ] && [ -f "$stamp" ] && [ "$want" = "$(cat "$stamp")" ]; then
    echo "pgo: the profile in target/pgo is up to date" >&2
else
    rm -rf "$dir/raw" "$stamp"
    mkdir -p "$dir/raw"
    echo "pgo: building the instrumented scenario runner" >&2
    CARGO_ENCODED_RUSTFLAGS=$(with_flag "-Cprofile-generate=$dir/raw") CARGO_TARGET_DIR="$dir/gen" \
        cargo build --release --quiet -p aqmlab-sim --example run_scenario
    runner=$dir/gen/release/examples/run_scenario

    echo "pgo: training on the bundled scenarios" >&2
    for scenario in scenarios/*.toml; do
        "$runner" "$scenario" >/dev/null
    done
    for kind in droptail red pie fq_codel lstf_codel; do
        "$runner" scenarios/codel-dynamic-link.toml "bottleneck=$kind" >/dev/null
    done
    "$profdata" merge -o "$profile.new" "$dir/raw"
    # Replaced only when it changed: rustc tracks the file, and a new one rebuilds every crate.
    if [ -f "$profile" ] && cmp -s "$profile.new" "$profile"; then
        rm "$profile.new"
    else
        mv "$profile.new" "$profile"
    fi
    if [ -n "$want" ]; then
        printf '%s\n' "$want" >"$stamp"
    fi
fi

echo "pgo: building and installing aqmlab with the profile" >&2
CARGO_ENCODED_RUSTFLAGS=$(with_flag "-Cprofile-use=$profile") AQMLAB_BUILD=profile-guided \
    CARGO_TARGET_DIR="$dir/use" pip_install
