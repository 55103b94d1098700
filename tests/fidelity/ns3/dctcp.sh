#!/usr/bin/env bash
# Builds dctcp.cc against Debian's ns-3 3.37 and runs issue 22's DCTCP set-up for 2 and 8 flows
# and K = 20 and 65 packets, seeds given (default 1 2), 100 simulated seconds measured over
# [50, 100) s; prints one JSON line per run (dctcp.json holds them) and a table of the means.
#
#   tests/fidelity/ns3/dctcp.sh [BUILD-DIR] [SEEDS...]
#   tests/fidelity/ns3/dctcp.sh /tmp/ns3 1 2 > tests/fidelity/ns3/dctcp.json
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/aqmlab-dctcp}
shift || true
seeds=("${@:-1 2}")
read -r -a seeds <<<"${seeds[*]}"
mkdir -p "$out"
if [ ! -x "$out/dctcp" ] || [ "$here/dctcp.cc" -nt "$out/dctcp" ]; then
    g++ -O2 -std=c++17 "$here/dctcp.cc" -o "$out/dctcp" -Wl,--no-as-needed -lns3-core \
        -lns3-network -lns3-internet -lns3-point-to-point -lns3-applications -lns3-traffic-control
fi
for n in 2 8; do
    for k in 20 65; do
        for seed in "${seeds[@]}"; do
            "$out/dctcp" --seed="$seed" --flows="$n" --k="$k" --duration=100 --from=50 --to=100 \
                >"$out/n${n}k${k}s${seed}.json" &
        done
    done
done
wait
python3 - "$out" "${seeds[@]}" <<'PY'
import json, sys
out, seeds = sys.argv[1], sys.argv[2:]
rows = []
for n in (2, 8):
    for k in (20, 65):
        runs = [json.load(open(f"{out}/n{n}k{k}s{s}.json")) for s in seeds]
        for r in runs:
            print(json.dumps({key: r[key] for key in ("seed", "flows_n", "k", "goodput_mbps",
                  "mean_qdisc_pkts", "mean_device_queue_pkts", "marks", "drops")}))
        rows.append((n, k, runs))
print("| flows | K | goodput (Mb/s) | queue disc + device queue (packets) | marks | drops |",
      file=sys.stderr)
print("|---|---|---|---|---|---|", file=sys.stderr)
for n, k, runs in rows:
    m = lambda key: sum(r[key] for r in runs) / len(runs)
    print(f"| {n} | {k} | {m('goodput_mbps'):.2f} | {m('mean_qdisc_pkts'):.2f} + "
          f"{m('mean_device_queue_pkts'):.2f} | {m('marks'):.0f} | {m('drops'):.0f} |",
          file=sys.stderr)
PY
