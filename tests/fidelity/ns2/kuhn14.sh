#!/usr/bin/env bash
# Runs kuhn14.tcl in ns-2.35 (Debian's `ns2`: apt-get install -y ns2) at every point of
# red-vs-codel (TCP x buffer), for tail drop and each RED configuration, seeds 1-3, in the full
# mode (100 applications, 200 s) and the quick one (30, 60 s), and writes the table
# red-vs-codel's [hypothesis.ns2-byte-mode] and [hypothesis.ared-itself] read (default:
# python/aqmlab/reproduce/builtin/red-vs-codel/ns2-kuhn14.csv). About 5 min on 2 busy cores.
#
#   tests/fidelity/ns2/kuhn14.sh [OUT.csv]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../../python/aqmlab/reproduce/builtin/red-vs-codel/ns2-kuhn14.csv}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for mode in "100 200" "30 60"; do
    for tcp in cubic vegas; do
        for qdisc in droptail red red-default ared ared-default; do
            for buffer in 10 45 127 100000; do
                for seed in 1 2 3; do
                    # Agent/TCP/Linux prints "cmd select_ca cubic" on stdout (C's buffer, so
                    # after the figures when piped): the figures are the line without it.
                    # shellcheck disable=SC2086
                    line=$(ns "$here/kuhn14.tcl" "$tcp" "$qdisc" "$buffer" "$seed" $mode 2>/dev/null | grep -v '^cmd ')
                    echo "${mode/ /,},${line// /,}"
                done
            done
        done
    done
done >"$tmp"
{
    echo "apps,duration_s,tcp,qdisc,buffer,seed,delay_mean_ms,delay_p50_ms,drops,utilization"
    cat "$tmp"
} >"$out"
python3 - "$out" <<'PY'
import csv, sys
from collections import defaultdict
acc = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    acc[(r["apps"], r["tcp"], r["qdisc"], r["buffer"])].append(float(r["delay_mean_ms"]))
for (apps, tcp, q, b), ds in acc.items():
    print(f"{apps:>3} apps {tcp:6} {q:13} {b:>6}: mean delay {sum(ds) / len(ds):8.1f} ms ({len(ds)} seeds)")
PY
