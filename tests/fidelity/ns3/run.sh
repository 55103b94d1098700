#!/usr/bin/env bash
# Builds codel8.cc against Debian's ns-3 3.37 and runs seeds 1-3 with the options given, then
# prints each seed's figures over [10, 60) s and their means (README.md).
#
#   tests/fidelity/ns3/run.sh [BUILD-DIR] -- [codel8 options...]
#   tests/fidelity/ns3/run.sh /tmp/ns3 -- --buf=16777216 --devQueue=1p --timestamps=false
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/aqmlab-codel8}
shift || true
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
if [ ! -x "$out/codel8" ] || [ "$here/codel8.cc" -nt "$out/codel8" ]; then
    # Debian's ns3-*.pc files name libgsl.so (libgsl-dev) and carry a stray `-I/usr;`, so the
    # ns-3 libraries are named directly. --no-as-needed keeps libraries that are reached only
    # through ns-3's type registry.
    g++ -O2 -std=c++17 "$here/codel8.cc" -o "$out/codel8" -Wl,--no-as-needed -lns3-core \
        -lns3-network -lns3-internet -lns3-point-to-point -lns3-applications -lns3-traffic-control
fi
for seed in 1 2 3; do
    "$out/codel8" --seed="$seed" "$@" >"$out/seed$seed.json" &
done
wait
python3 - "$out" <<'EOF'
import json, sys
runs = [json.load(open(f"{sys.argv[1]}/seed{s}.json")) for s in (1, 2, 3)]
for r in runs:
    print(f"seed {r['seed']}: drops {r['drops']} (codel {r['drops_codel']}, overlimit "
          f"{r['drops_overlimit']}), queue disc {r['mean_qdisc_pkts']:.2f} + device queue "
          f"{r['mean_device_queue_pkts']:.2f} packets, utilization {r['utilization']:.4f}, "
          f"recoveries {sum(f['recoveries'] for f in r['flows'])}, "
          f"RTOs {sum(f['rtos'] for f in r['flows'])}")
mean = lambda k: sum(r[k] for r in runs) / 3
print(f"mean: drops {mean('drops'):.1f}, queue disc {mean('mean_qdisc_pkts'):.2f} + device "
      f"queue {mean('mean_device_queue_pkts'):.2f} packets, utilization {mean('utilization'):.4f}")
EOF
