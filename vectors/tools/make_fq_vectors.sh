#!/bin/sh
# Regenerates our own vectors (vectors/fq_*, blue.*, active.*, l4s_shared.*, l4s_loop.*, and our
# runs on the shared schedules: tiny.cobalt, l4s_mix.{cobalt,cobalt_l4s,pie_l4s},
# l4s_sparse.fq_pie_l4s)
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
# The same with FQ-COBALT (CAKE's ns-3 comparison, crates/aqmlab-qdisc/tests/cake_ns3.rs).
"$bin" --kind=fq_cobalt --schedule="$vec/fq_setways.schedule.csv" \
    --out="$vec/fq_setways.fq_cobalt.ns3.csv" --summary="$vec/fq_setways.fq_cobalt.ns3.summary.json" \
    --limit=10240 --flows=1024 --quantum=1514 --dropBatch=64 --useEcn=1 --target=5ms \
    --interval=100ms --setWays=8
echo "fq_setways fq_cobalt: $(cat "$vec/fq_setways.fq_cobalt.ns3.summary.json")"
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
# FQ-PIE on the same four schedules, and its L4S mode on fq_ecn and on the shared l4s_sparse.
for spec in fq_sizes:10240 fq_sparse:10240 fq_overflow:64 fq_ecn:10240; do
    s=${spec%%:*}
    limit=${spec#*:}
    "$bin" --kind=fq_pie --schedule="$vec/$s.schedule.csv" --out="$vec/$s.fq_pie.ns3.csv" \
        --summary="$vec/$s.fq_pie.ns3.summary.json" --limit="$limit" --flows=1024 \
        --quantum=1514 --dropBatch=64 --useEcn=1
    echo "$s fq_pie: $(cat "$vec/$s.fq_pie.ns3.summary.json")"
done
for s in fq_ecn l4s_sparse; do
    "$bin" --kind=fq_pie --useL4s=1 --ceThreshold=1ms --schedule="$vec/$s.schedule.csv" \
        --out="$vec/$s.fq_pie_l4s.ns3.csv" --summary="$vec/$s.fq_pie_l4s.ns3.summary.json" \
        --limit=10240 --flows=1024 --quantum=1514 --dropBatch=64 --useEcn=1
    echo "$s fq_pie_l4s: $(cat "$vec/$s.fq_pie_l4s.ns3.summary.json")"
done
# L4S and classic packets in one flow queue: FQ-PIE, FQ-CoDel and FQ-COBALT in L4S mode on
# l4s_shared (tools/gen_l4s_shared_schedule.py).
python3 "$here/gen_l4s_shared_schedule.py" "$vec"
for kind in fq_pie fq_codel fq_cobalt; do
    codel="--target=5ms --interval=100ms" # CoDel's and COBALT's (PIE keeps its defaults)
    [ $kind = fq_pie ] && codel=""
    # shellcheck disable=SC2086 # $codel: two options or none
    "$bin" --kind=$kind --useL4s=1 --ceThreshold=1ms --schedule="$vec/l4s_shared.schedule.csv" \
        --out="$vec/l4s_shared.${kind}_l4s.ns3.csv" \
        --summary="$vec/l4s_shared.${kind}_l4s.ns3.summary.json" --limit=10240 --flows=1024 \
        --quantum=1514 --dropBatch=64 --useEcn=1 $codel
    echo "l4s_shared ${kind}_l4s: $(cat "$vec/l4s_shared.${kind}_l4s.ns3.summary.json")"
done
# L4S packets inside CoDel's dropping loop (tools/gen_l4s_loop_schedule.py): single-queue CoDel
# (limit 1000p) and FQ-CoDel in L4S mode, UseEcn on and off. (On l4s_mix, --kind=codel --useEcn=1
# --useL4s=1 --ceThreshold=1ms --limit=1000 reproduces the shared l4s_mix.codel.ns3.csv exactly.)
python3 "$here/gen_l4s_loop_schedule.py" "$vec"
for kind in codel fq_codel; do
    limit=10240
    [ $kind = codel ] && limit=1000
    for ecn in 1 0; do
        name=${kind}_l4s
        [ $ecn = 0 ] && name=${kind}_l4s_noecn
        "$bin" --kind=$kind --useEcn=$ecn --useL4s=1 --ceThreshold=1ms --l4sCounts=1 \
            --schedule="$vec/l4s_loop.schedule.csv" --out="$vec/l4s_loop.$name.ns3.csv" \
            --summary="$vec/l4s_loop.$name.ns3.summary.json" --limit=$limit --flows=1024 \
            --quantum=1514 --dropBatch=64 --target=5ms --interval=100ms
        echo "l4s_loop $name: $(cat "$vec/l4s_loop.$name.ns3.summary.json")"
    done
done
# Single-queue COBALT (limit 1000p): tiny; the shared l4s_mix ECN mix with UseEcn, classic and
# L4S; and PIE's L4S mode on l4s_mix. (On overload, --kind=cobalt --useEcn=0 reproduces the
# shared overload.cobalt.ns3.csv exactly.)
"$bin" --kind=cobalt --useEcn=0 --schedule="$vec/tiny.schedule.csv" --out="$vec/tiny.cobalt.ns3.csv" \
    --summary="$vec/tiny.cobalt.ns3.summary.json" --limit=1000
echo "tiny cobalt: $(cat "$vec/tiny.cobalt.ns3.summary.json")"
"$bin" --kind=cobalt --useEcn=1 --schedule="$vec/l4s_mix.schedule.csv" \
    --out="$vec/l4s_mix.cobalt.ns3.csv" --summary="$vec/l4s_mix.cobalt.ns3.summary.json" --limit=1000
echo "l4s_mix cobalt: $(cat "$vec/l4s_mix.cobalt.ns3.summary.json")"
for kind in cobalt pie; do
    "$bin" --kind=$kind --useEcn=1 --useL4s=1 --ceThreshold=1ms \
        --schedule="$vec/l4s_mix.schedule.csv" --out="$vec/l4s_mix.${kind}_l4s.ns3.csv" \
        --summary="$vec/l4s_mix.${kind}_l4s.ns3.summary.json" --limit=1000
    echo "l4s_mix ${kind}_l4s: $(cat "$vec/l4s_mix.${kind}_l4s.ns3.summary.json")"
done
# BLUE's random drops: the blue schedule (limit 100p, UseEcn), COBALT and FQ-COBALT.
python3 "$here/gen_blue_schedule.py" "$vec"
for kind in cobalt fq_cobalt; do
    "$bin" --kind=$kind --useEcn=1 --schedule="$vec/blue.schedule.csv" \
        --out="$vec/blue.$kind.ns3.csv" --summary="$vec/blue.$kind.ns3.summary.json" --limit=100 \
        --flows=1024 --quantum=1514 --dropBatch=64
    echo "blue $kind: $(cat "$vec/blue.$kind.ns3.summary.json")"
done
# PIE's and FQ-PIE's ActiveThreshold (ns-3's, not RFC 8033's) on the active schedule: PIE with
# the threshold off, 10 ms, 20 ms and 500 us, and 10 ms with the dequeue-rate estimator; FQ-PIE
# off, 10 ms and 20 ms (each child PIE's, through Config::SetDefault).
python3 "$here/gen_active_schedule.py" "$vec"
for spec in pie: pie_th10ms:10ms pie_th20ms:20ms pie_th500us:500us; do
    name=${spec%%:*}
    th=${spec#*:}
    "$bin" --kind=pie --useEcn=1 --limit=1000 --activeThreshold="${th:-off}" \
        --schedule="$vec/active.schedule.csv" --out="$vec/active.$name.ns3.csv" \
        --summary="$vec/active.$name.ns3.summary.json"
    echo "active $name: $(cat "$vec/active.$name.ns3.summary.json")"
done
"$bin" --kind=pie --useEcn=1 --limit=1000 --activeThreshold=10ms --estimator=dq_rate \
    --schedule="$vec/active.schedule.csv" --out="$vec/active.pie_dq_th10ms.ns3.csv" \
    --summary="$vec/active.pie_dq_th10ms.ns3.summary.json"
echo "active pie_dq_th10ms: $(cat "$vec/active.pie_dq_th10ms.ns3.summary.json")"
for spec in fq_pie: fq_pie_th10ms:10ms fq_pie_th20ms:20ms; do
    name=${spec%%:*}
    th=${spec#*:}
    "$bin" --kind=fq_pie --useEcn=1 --limit=10240 --flows=1024 --quantum=1514 --dropBatch=64 \
        --activeThreshold="${th:-off}" --schedule="$vec/active.schedule.csv" \
        --out="$vec/active.$name.ns3.csv" --summary="$vec/active.$name.ns3.summary.json"
    echo "active $name: $(cat "$vec/active.$name.ns3.summary.json")"
done
