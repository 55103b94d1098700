#!/bin/sh
# Regenerates our own multi-flow vectors vectors/fq_*.{schedule,fq_codel.ns3,fq_cobalt.ns3,...}
# with ns-3 3.37 (Debian 12: apt-get install -y ns3 libns3-dev g++). Run from anywhere:
#   sh vectors/tools/make_fq_vectors.sh
# The parameters per schedule are those in crates/aqmlab-qdisc/tests/vectors.rs (FQ_NS3) and in
# vectors/README.md; keep the three in step.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
vec=$(dirname "$here")
bin=${TMPDIR:-/tmp}/aqmlab-fq_replay
g++ -O2 -std=c++17 "$here/fq_replay.cc" -o "$bin" -Wl,--no-as-needed -lns3-core -lns3-network \
    -lns3-internet -lns3-traffic-control
python3 "$here/gen_fq_schedules.py" "$vec"
for spec in fq_sizes:10240 fq_sparse:10240 fq_overflow:64 fq_ecn:10240; do
    s=${spec%%:*}
    limit=${spec#*:}
    "$bin" --schedule="$vec/$s.schedule.csv" --out="$vec/$s.fq_codel.ns3.csv" \
        --summary="$vec/$s.fq_codel.ns3.summary.json" --limit="$limit" --flows=1024 \
        --quantum=1514 --dropBatch=64 --useEcn=1 --target=5ms --interval=100ms
    echo "$s: $(cat "$vec/$s.fq_codel.ns3.summary.json")"
done
# ns-3's set-associative hash (EnableSetAssociativeHash, SetWays 8) on fourteen crowded flows.
python3 "$here/gen_setways_schedule.py" "$vec"
"$bin" --schedule="$vec/fq_setways.schedule.csv" --out="$vec/fq_setways.fq_codel.ns3.csv" \
    --summary="$vec/fq_setways.fq_codel.ns3.summary.json" --limit=10240 --flows=1024 \
    --quantum=1514 --dropBatch=64 --useEcn=1 --target=5ms --interval=100ms --setWays=8
echo "fq_setways: $(cat "$vec/fq_setways.fq_codel.ns3.summary.json")"
# FQ-COBALT on the same four schedules, and the L4S modes of FQ-CoDel and FQ-COBALT on fq_ecn.
for spec in fq_sizes:10240 fq_sparse:10240 fq_overflow:64 fq_ecn:10240; do
    s=${spec%%:*}
    limit=${spec#*:}
    "$bin" --kind=fq_cobalt --schedule="$vec/$s.schedule.csv" --out="$vec/$s.fq_cobalt.ns3.csv" \
        --summary="$vec/$s.fq_cobalt.ns3.summary.json" --limit="$limit" --flows=1024 \
        --quantum=1514 --dropBatch=64 --useEcn=1 --target=5ms --interval=100ms
    echo "$s fq_cobalt: $(cat "$vec/$s.fq_cobalt.ns3.summary.json")"
done
for kind in fq_codel fq_cobalt; do
    "$bin" --kind=$kind --useL4s=1 --ceThreshold=1ms --schedule="$vec/fq_ecn.schedule.csv" \
        --out="$vec/fq_ecn.${kind}_l4s.ns3.csv" --summary="$vec/fq_ecn.${kind}_l4s.ns3.summary.json" \
        --limit=10240 --flows=1024 --quantum=1514 --dropBatch=64 --useEcn=1 --target=5ms \
        --interval=100ms
    echo "fq_ecn ${kind}_l4s: $(cat "$vec/fq_ecn.${kind}_l4s.ns3.summary.json")"
done
