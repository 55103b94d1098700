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
#
# With --fig6, red-bursty's part 1 (FJ93's Fig. 5 on the Fig. 6 topology: SETUP fig6), Tahoe,
# tail drop 15-140 packets and RED min_th 3-50, into red-bursty's ns2-fig6.csv.
#
# With --red-limit100, part 2's RED points of the small buffers (min_th 3-7) with a buffer of
# 100 packets instead of 4 min_th (FJ93_RED_LIMIT=100), into red-bursty's ns2-red-limit100.csv:
# the test of its hypothesis on node 5's drops at min_th 3.
#
# With --node5-seeds, part 2's RED points of the small buffers (min_th 3-7, buffer 4 min_th) over
# seeds 1-30, into red-bursty's ns2-node5-seeds.csv: the test of its hypothesis that node 5's few
# drops (about 5 a run at min_th 7) make a ratio over 3 seeds scatter (claims.toml's
# [hypothesis.seeds]).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
setup=issue
case ${1:-} in
--fig1214) setup=cbcase && shift ;;
--fig6) setup=fig6 && shift ;;
--red-limit100) setup=limit100 && shift ;;
--node5-seeds) setup=node5seeds && shift ;;
esac
seeds="1 2 3"
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
    header="tcp,qdisc,size,seed,utilization,n5_share_pct,drops,avg_queue,n5_drop_share_pct,n5_drop_share_run_pct"
fi
if [[ $setup == limit100 ]]; then
    out=${1:-$here/../../../python/aqmlab/reproduce/builtin/red-bursty/ns2-red-limit100.csv}
    points=()
    for m in 3 4 5 6 7; do points+=("red $m"); done
    export FJ93_RED_LIMIT=100
    setup=cbcase
fi
if [[ $setup == node5seeds ]]; then
    out=${1:-$here/../../../python/aqmlab/reproduce/builtin/red-bursty/ns2-node5-seeds.csv}
    points=()
    for m in 3 4 5 6 7; do points+=("red $m"); done
    seeds=$(seq 1 30)
    setup=cbcase
fi
# red-bursty's tables beside our runs: tail drop's SIZE is the packets waiting, as our SIZEp
# (ns-2.35's queue-limit N holds N - 1 waiting: fj93.tcl's FJ93_DT_WAITING; the fidelity
# table above keeps ns-2's queue-limit and its test gives us N - 1 packets instead).
if [[ $setup != issue ]]; then
    export FJ93_DT_WAITING=1
fi
if [[ $setup == fig6 ]]; then
    out=${1:-$here/../../../python/aqmlab/reproduce/builtin/red-bursty/ns2-fig6.csv}
    points=()
    for b in 15 30 45 60 75 90 100 110 120 130 140; do points+=("droptail $b"); done
    for m in 3 5 7 10 15 20 25 30 35 40 50; do points+=("red $m"); done
    header="tcp,qdisc,size,seed,utilization,flow2_share_pct,drops,avg_queue,flow2_drop_share_pct,flow2_drop_share_run_pct"
fi
for tcp in $tcps; do
    for point in "${points[@]}"; do
        for seed in $seeds; do
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
    share = [k for k in rs[0] if k.endswith("_share_pct")][0]  # node 5's, or fig6's 2nd flow's
    s = sum(float(r[share]) for r in rs) / len(rs)
    who = "node 5" if share.startswith("n5") else "flow 2"
    print(f"{tcp:8} {q:8} {n:3}: utilization {u:.3f}, {who} {s:.2f} % ({len(rs)} seeds)")
PY
