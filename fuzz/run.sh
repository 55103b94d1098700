#!/usr/bin/env bash
# Coverage-guided fuzzing of the schedule parser, every discipline and scenario files (cargo-fuzz, libFuzzer).
# Usage: fuzz/run.sh [SECONDS_PER_TARGET]   (default 30). Needs the nightly toolchain;
# installs cargo-fuzz from crates.io if it is missing. Crashes land in fuzz/artifacts/.
set -euo pipefail
secs=${1:-30}
cd "$(dirname "$0")"
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
for t in schedule_parser qdisc_ops scenario_text dualpi2_ops cake_ops ack_filter_ops; do
  mkdir -p "corpus/$t"
  cargo +nightly fuzz run "$t" "corpus/$t" -- -max_total_time="$secs" -max_len=4096
done
