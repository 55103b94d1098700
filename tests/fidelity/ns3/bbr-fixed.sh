#!/usr/bin/env bash
# bbr.sh's set-up in ns-3 3.37 with the retransmission-timeout collapse fixed (bbr.md, "3.37
# with the fix"): Debian's ns-3 3.37 source of tcp-rate-ops.cc, patched by bbr-rate-fix.patch,
# is compiled into the bbr.cc program, whose exported TcpRateLinux symbols take the place of
# libns3-internet's (-rdynamic; the patch renames the file's log component, which ns-3 refuses
# to register twice). Prints one JSON line per run, as bbr.sh (bbr-fixed.json holds them).
#
#   tests/fidelity/ns3/bbr-fixed.sh [BUILD-DIR] [SEEDS...] > tests/fidelity/ns3/bbr-fixed.json
#
# The source comes from `apt-get source --download-only ns3` (needs a deb-src line for
# bookworm, e.g. /etc/apt/sources.list.d/*.sources with "Types: deb-src"), or from
# NS3_ORIG=/path/to/ns3_3.37.orig.tar.bz2.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/aqmlab-bbr-fixed}
shift || true
seeds=("${@:-1 2 3}")
read -r -a seeds <<<"${seeds[*]}"
mkdir -p "$out"
cd "$out"
if [ ! -f src/internet/model/tcp-rate-ops.cc ]; then
    orig=${NS3_ORIG:-}
    if [ -z "$orig" ]; then
        apt-get source --download-only ns3=3.37-2 >&2
        orig=$out/ns3_3.37.orig.tar.bz2
    fi
    tar xjf "$orig" --strip-components=2 ns-allinone-3.37/ns-3.37/src/internet/model/tcp-rate-ops.cc
    patch -p1 <"$here/bbr-rate-fix.patch" >&2
fi
if [ ! -x bbr-fixed ] || [ "$here/bbr.cc" -nt bbr-fixed ] || [ "$here/bbr-rate-fix.patch" -nt bbr-fixed ]; then
    g++ -O2 -std=c++17 -rdynamic "$here/bbr.cc" src/internet/model/tcp-rate-ops.cc -o bbr-fixed \
        -Wl,--no-as-needed -lns3-core -lns3-network -lns3-internet -lns3-point-to-point \
        -lns3-applications -lns3-traffic-control
fi
for mix in alone cubic; do
    for b in 83 1000; do
        for seed in "${seeds[@]}"; do
            ./bbr-fixed --seed="$seed" --mix="$mix" --buffer="$b" --duration=100 --from=50 \
                --to=100 >"m${mix}b${b}s${seed}.json" &
        done
    done
done
wait
for mix in alone cubic; do
    for b in 83 1000; do
        for seed in "${seeds[@]}"; do
            python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' \
                "m${mix}b${b}s${seed}.json"
        done
    done
done
