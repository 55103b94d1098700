#!/usr/bin/env bash
# Runs fj93.tcl in ns-2.35 (Debian's `ns2`: apt-get install -y ns2) for every TCP, point and
# seed of the fidelity table and writes it as CSV (default: this folder's nosack.csv, the
# committed table tests/test_fidelity_nosack.py compares aqmlab with).
#
#   tests/fidelity/ns2/run.sh [OUT.csv]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/nosack.csv}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for tcp in tahoe reno newreno; do
    for point in "droptail 8" "droptail 12" "droptail 16" "droptail 20" "droptail 24" \
        "red 3" "red 7" "red 14"; do
        for seed in 1 2 3; do
            # shellcheck disable=SC2086
            ns "$here/fj93.tcl" $tcp $point $seed
        done
    done
done | tr ' ' ',' >"$tmp"
{
    echo "tcp,qdisc,size,seed,utilization,n5_share_pct,drops"
    cat "$tmp"
} >"$out"
python3 - "$out" <<'PY'
import csv, sys
from collections import defaultdict
acc = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    acc[(r["tcp"], r["qdisc"], int(r["size"]))].append(r)
for (tcp, q, n), rs in acc.items():
    u = sum(float(r["utilization"]) for r in rs) / len(rs)
    s = sum(float(r["n5_share_pct"]) for r in rs) / len(rs)
    print(f"{tcp:8} {q:8} {n:3}: utilization {u:.3f}, node 5 {s:.2f} % ({len(rs)} seeds)")
PY
