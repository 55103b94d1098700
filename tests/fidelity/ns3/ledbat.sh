#!/usr/bin/env bash
# Builds ledbat.cc against Debian's ns-3 3.37 and runs TcpLedbat (target 25 ms, gain 1) alone
# and beside a TcpNewReno flow, 10 Mb/s, RTT 100 ms, a 1000-packet tail-drop buffer, 60
# simulated seconds measured over [30, 60) s, seeds given (default 1 2); prints one JSON line per
# run (ledbat.json holds them).
#
#   tests/fidelity/ns3/ledbat.sh [BUILD-DIR] [SEEDS...] > tests/fidelity/ns3/ledbat.json
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/aqmlab-ledbat}
shift || true
seeds=("${@:-1 2}")
read -r -a seeds <<<"${seeds[*]}"
mkdir -p "$out"
if [ ! -x "$out/ledbat" ] || [ "$here/ledbat.cc" -nt "$out/ledbat" ]; then
    g++ -O2 -std=c++17 "$here/ledbat.cc" -o "$out/ledbat" -Wl,--no-as-needed -lns3-core \
        -lns3-network -lns3-internet -lns3-point-to-point -lns3-applications -lns3-traffic-control
fi
for nr in 0 1; do
    for seed in "${seeds[@]}"; do
        "$out/ledbat" --seed="$seed" --newreno="$nr" --target=25 --gain=1 --buffer=1000 \
            --duration=60 --from=30 --to=60 >"$out/nr${nr}s${seed}.json" &
    done
done
wait
for nr in 0 1; do
    for seed in "${seeds[@]}"; do
        cat "$out/nr${nr}s${seed}.json"
    done
done
