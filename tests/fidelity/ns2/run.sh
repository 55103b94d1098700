#!/usr/bin/env bash
# Runs fj93.tcl in ns-2.35 (Debian's `ns2`: apt-get install -y ns2) for every TCP, point and
# seed of the fidelity table and writes it as CSV (default: this folder's nosack.csv, the
# committed table tests/test_fidelity_nosack.py compares aqmlab with).
#
#   tests/fidelity/ns2/run.sh [OUT.csv]
#
# With --fig1214 it runs instead red-bursty's part 2 as Seeing RED set it up (fj93.tcl's SETUP
# cbcase: nodes 1-4 with a window of 12 and 1 ms, 10 s), Tahoe at every point of FJ93's Figs.
# 12 and 14 (tail drop 8-22 packets, RED min_th 3-14), with the average queue, into the table
# red-bursty reads (python/aqmlab/reproduce/builtin/red-bursty/ns2-fig1214.csv):
#
#   tests/fidelity/ns2/run.sh --fig1214 [OUT.csv]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
setup=issue
if [[ ${1:-} == --fig1214 ]]; then
    setup=cbcase
    shift
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if [[ $setup == issue ]]; then
    out=${1:-$here/nosack.csv}
    tcps="tahoe reno newreno"
    points=("droptail 8" "droptail 12" "droptail 16" "droptail 20" "droptail 24" "red 3" "red 7" "red 14")
    header="tcp,qdisc,size,seed,utilization,n5_share_pct,drops"
else
    out=${1:-$here/../../../python/aqmlab/reproduce/builtin/red-bursty/ns2-fig1214.csv}
    tcps="tahoe"
    points=()
    for b in 8 10 12 14 16 18 20 22; do points+=("droptail $b"); done
    for m in 3 4 5 6 7 8 9 10 11 12 13 14; do points+=("red $m"); done
    header="tcp,qdisc,size,seed,utilization,n5_share_pct,drops,avg_queue"
fi
for tcp in $tcps; do
    for point in "${points[@]}"; do
        for seed in 1 2 3; do
            # shellcheck disable=SC2086
            ns "$here/fj93.tcl" $tcp $point $seed $setup
        done
    done
done | tr ' ' ',' >"$tmp"
{
    echo "$header"
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
