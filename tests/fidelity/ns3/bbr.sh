#!/usr/bin/env bash
# Builds bbr.cc against Debian's ns-3 3.37 and runs issue 22's BBR v1 set-up: one TcpBbr flow
# alone or beside one TcpCubic flow, 83- and 1000-packet tail-drop buffers, seeds given (default
# 1 2 3), 100 simulated seconds measured over [50, 100) s; prints one JSON line per run (bbr.json
# holds them) and a table to stderr.
#
#   tests/fidelity/ns3/bbr.sh [BUILD-DIR] [SEEDS...]
#   tests/fidelity/ns3/bbr.sh /tmp/aqmlab-bbr 1 2 3 > tests/fidelity/ns3/bbr.json
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/aqmlab-bbr}
shift || true
seeds=("${@:-1 2 3}")
read -r -a seeds <<<"${seeds[*]}"
mkdir -p "$out"
if [ ! -x "$out/bbr" ] || [ "$here/bbr.cc" -nt "$out/bbr" ]; then
    g++ -O2 -std=c++17 "$here/bbr.cc" -o "$out/bbr" -Wl,--no-as-needed -lns3-core \
        -lns3-network -lns3-internet -lns3-point-to-point -lns3-applications -lns3-traffic-control
fi
for mix in alone cubic; do
    for b in 83 1000; do
        for seed in "${seeds[@]}"; do
            "$out/bbr" --seed="$seed" --mix="$mix" --buffer="$b" --duration=100 --from=50 \
                --to=100 >"$out/m${mix}b${b}s${seed}.json" &
        done
    done
done
wait
python3 - "$out" "${seeds[@]}" <<'PY'
import json, sys
out, seeds = sys.argv[1], sys.argv[2:]
print("| mix | buffer | seed | BBR Mb/s | CUBIC Mb/s | queue (packets) | BBR timeouts |",
      file=sys.stderr)
print("|---|---|---|---|---|---|---|", file=sys.stderr)
for mix in ("alone", "cubic"):
    for b in (83, 1000):
        for s in seeds:
            r = json.load(open(f"{out}/m{mix}b{b}s{s}.json"))
            print(json.dumps(r))
            f = r["flows"]
            cubic = f"{f[1]['goodput_mbps']:.3f}" if len(f) > 1 else "-"
            q = r["mean_qdisc_pkts"] + r["mean_device_queue_pkts"]
            print(f"| {mix} | {b} | {s} | {f[0]['goodput_mbps']:.3f} | {cubic} | {q:.1f} | "
                  f"{f[0]['rtos']} |", file=sys.stderr)
PY
