# One UDP on/off source of ns-2.35 (Application/Traffic/Pareto, tools/pareto.cc, or
# Application/Traffic/Exponential, tools/expoo.cc) over a fast link, for a long time: the
# arrivals at the sink, as ns-2's queue trace ("r" lines, microsecond times) on stdout.
# tests/test_fidelity_onoff.py reads them (bursts are runs of packets one interval apart).
#
#   ns tests/fidelity/ns2/onoff.tcl pareto|expo SHAPE DURATION_S SEED
#
# The source: 1000-byte packets at 1 Mb/s (interval 8 ms), burst_time_ 20 ms, idle_time_ 20 ms
# (SHAPE is ignored for expo). The link: 1 Gb/s, 1 ms, a buffer no burst fills.
if {$argc != 4} {
    puts stderr "usage: ns onoff.tcl pareto|expo SHAPE DURATION_S SEED"
    exit 2
}
lassign $argv kind shape duration seed
global defaultRNG
$defaultRNG seed $seed
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Gb 1ms DropTail
$ns queue-limit $n0 $n1 100000
$ns trace-queue $n0 $n1 stdout
set udp [new Agent/UDP]
$udp set packetSize_ 1500
$ns attach-agent $n0 $udp
set sink [new Agent/Null]
$ns attach-agent $n1 $sink
$ns connect $udp $sink
if {$kind == "pareto"} {
    set src [new Application/Traffic/Pareto]
    $src set shape_ $shape
} elseif {$kind == "expo"} {
    set src [new Application/Traffic/Exponential]
} else {
    puts stderr "onoff.tcl: expected pareto or expo, got $kind"
    exit 2
}
$src set packetSize_ 1000
$src set burst_time_ 20ms
$src set idle_time_ 20ms
$src set rate_ 1Mb
$src attach-agent $udp
$ns at 0.0 "$src start"
$ns at $duration "exit 0"
$ns run
