# Issue 19 (Deliver 4): codel-dynamic's link (the CoDel paper's dynamic link, Nichols & Jacobson
# 2012 Fig. 7, as scenarios/codel-dynamic-link.toml builds it) in ns-2.35 (Debian's ns2), to
# hold our "RED (ns-2.35 defaults)" and "Adaptive RED (ns-2.35 defaults)" arms against
# ns-2.35's Queue/RED on the same link and traffic, with tail drop as the control.
#
#   ns tests/fidelity/ns2/codel_dynamic.tcl QDISC SEED PHASE_S WEB TRACE
#     QDISC    droptail | red (Queue/RED as ns-2.35 ships it: byte mode, mean_pktsize_ 500,
#              automatic thresholds and q_weight_, gentle_) | ared (the same with adaptive_ 1)
#     SEED     1, 2, ... (RED's drops from ns-2's default RNG seeded with it; PackMime's three
#              RNGs advanced SEED substreams)
#     PHASE_S  each rate's length in seconds (the reproduction: 50 full, 10 quick); the run
#              lasts 6 phases
#     WEB      packmime (PackMime-HTTP/1.1 at 5 connections/s, our sweep-packmime's web flow)
#              | none (the 4 bulk flows alone)
#     TRACE    the file the bottleneck's queue trace goes to (trace-queue gw1 -> gw2;
#              codel_dynamic.py reads it and deletes it)
#
# Set-up, as scenarios/codel-dynamic-link.toml: s1..s5 -> gw1 at 1 Gb/s, 20 ms; gw1 -> gw2 the
# bottleneck, 10 ms, both directions at the rate schedule 100, 10, 1, 50, 1, 100 Mb/s (the
# links' bandwidth_ set at each phase's start), QDISC on both directions with queue-limit 830
# (in byte mode ns-2's RED takes it as 830 x 500 = 415,000 bytes, red.cc enque); gw2 -> r1..r4
# at 1 Gb/s, 21-24 ms, gw2 -> r5 20 ms. Access queues 8330-packet tail drop. Four bulk flows
# s_k -> r_k: Agent/TCP/Linux with select_ca cubic, 1460-byte segments (1500 B on the wire),
# windowInit_ 4, an ACK per segment (Agent/TCPSink/Sack1), FTP from 0 s. Web: PackMime-HTTP/1.1
# with its server on s5 and its client on r5 (FullTcp, segsize_ 1460). ns-2 has no SYN for the
# bulk flows (ours open with a handshake). RED's automatic parameters are computed from the
# link's bandwidth when the simulation starts (100 Mb/s: red.cc initialize_params), as our
# arms take bandwidth = the schedule's first rate.
#
# Prints one line: QDISC SEED PHASE_S WEB, then on stderr RED's resolved parameters.
#
# Two switches for the start-up's evidence (tests/fidelity/ns2/README.md, "codel-dynamic"):
# CODEL_DYNAMIC_TCP=sack1 runs ns-2's own Agent/TCP/Sack1 (Reno with SACK) for the bulk flows in
# place of Agent/TCP/Linux CUBIC; CODEL_DYNAMIC_CWND=1 prints bulk flow 1's cwnd_ and ssthresh_
# on stderr every 0.1 s of the first 5 s.
if {$argc != 5} {
    puts stderr "usage: ns codel_dynamic.tcl droptail|red|ared SEED PHASE_S packmime|none TRACE"
    exit 2
}
lassign $argv qdisc seed phase web trace_name
if {[lsearch -exact {droptail red ared} $qdisc] < 0} {
    puts stderr "codel_dynamic.tcl: QDISC: expected droptail, red or ared, got $qdisc"
    exit 2
}
if {[lsearch -exact {packmime none} $web] < 0} {
    puts stderr "codel_dynamic.tcl: WEB: expected packmime or none, got $web"
    exit 2
}
foreach {name v} [list SEED $seed PHASE_S $phase] {
    if {![string is integer -strict $v] || $v < 1} {
        puts stderr "codel_dynamic.tcl: $name: expected a positive integer, got $v"
        exit 2
    }
}
set rates {100Mb 10Mb 1Mb 50Mb 1Mb 100Mb}
set duration [expr {6 * $phase}]

global defaultRNG
$defaultRNG seed $seed
Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 100000
Agent/TCP set windowInit_ 4
Agent/TCP/FullTcp set segsize_ 1460
if {$qdisc == "ared"} {
    Queue/RED set adaptive_ 1
}

set ns [new Simulator]
set gw1 [$ns node]
set gw2 [$ns node]
set kind [expr {$qdisc == "droptail" ? "DropTail" : "RED"}]
$ns duplex-link $gw1 $gw2 100Mb 10ms $kind
$ns queue-limit $gw1 $gw2 830
$ns queue-limit $gw2 $gw1 830
set q [[$ns link $gw1 $gw2] queue]
set tf [open $trace_name w]
$ns trace-queue $gw1 $gw2 $tf

# The rate schedule, both directions.
for {set i 0} {$i < 6} {incr i} {
    foreach {x y} [list $gw1 $gw2 $gw2 $gw1] {
        $ns at [expr {$i * $phase}] "[[$ns link $x $y] link] set bandwidth_ [lindex $rates $i]"
    }
}

set big 8330
proc host_pair {k rdelay} {
    global ns gw1 gw2 big
    set s [$ns node]
    set r [$ns node]
    $ns duplex-link $s $gw1 1Gb 20ms DropTail
    $ns duplex-link $gw2 $r 1Gb $rdelay DropTail
    foreach {x y} [list $s $gw1 $gw1 $s $gw2 $r $r $gw2] {
        $ns queue-limit $x $y $big
    }
    return [list $s $r]
}

set bulk_tcp [expr {[info exists env(CODEL_DYNAMIC_TCP)] ? $env(CODEL_DYNAMIC_TCP) : "linux"}]
if {[lsearch -exact {linux sack1} $bulk_tcp] < 0} {
    puts stderr "codel_dynamic.tcl: CODEL_DYNAMIC_TCP: expected linux or sack1, got $bulk_tcp"
    exit 2
}
for {set k 1} {$k <= 4} {incr k} {
    lassign [host_pair $k [expr {20 + $k}]ms] s r
    if {$bulk_tcp == "linux"} {
        set tcp [new Agent/TCP/Linux]
        $ns at 0.0 "$tcp select_ca cubic"
    } else {
        set tcp [new Agent/TCP/Sack1]
    }
    set bulk($k) $tcp
    $tcp set fid_ $k
    set sink [new Agent/TCPSink/Sack1]
    $ns attach-agent $s $tcp
    $ns attach-agent $r $sink
    $ns connect $tcp $sink
    set ftp($k) [new Application/FTP]
    $ftp($k) attach-agent $tcp
    $ns at 0.0 "$ftp($k) start"
}

lassign [host_pair 5 20ms] s5 r5
if {$web == "packmime"} {
    set rate 5
    set pm [new PackMimeHTTP]
    $pm set-client $r5
    $pm set-server $s5
    $pm set-rate $rate
    $pm set-http-1.1
    set flow_arrive [new RandomVariable/PackMimeHTTPFlowArrive $rate]
    set req_size [new RandomVariable/PackMimeHTTPFileSize $rate 0]
    set rsp_size [new RandomVariable/PackMimeHTTPFileSize $rate 1]
    foreach rv [list $flow_arrive $req_size $rsp_size] {
        set rng [new RNG]
        for {set i 0} {$i < $seed} {incr i} {
            $rng next-substream
        }
        $rv use-rng $rng
    }
    $pm set-flow_arrive $flow_arrive
    $pm set-req_size $req_size
    $pm set-rsp_size $rsp_size
    $ns at 0.0 "$pm start"
}

proc probe {} {
    global ns bulk
    set t [$ns now]
    puts stderr [format "t %.1f cwnd_ %s ssthresh_ %s" $t [$bulk(1) set cwnd_] [$bulk(1) set ssthresh_]]
    if {$t < 4.95} {
        $ns at [expr {$t + 0.1}] "probe"
    }
}
if {[info exists env(CODEL_DYNAMIC_CWND)]} {
    $ns at 0.1 "probe"
}

proc finish {} {
    global ns tf q qdisc seed phase web
    $ns flush-trace
    close $tf
    if {$qdisc != "droptail"} {
        set line "q_weight_ [$q set q_weight_] thresh_ [$q set thresh_] maxthresh_ [$q set maxthresh_]"
        if {$qdisc == "ared"} {
            append line " cur_max_p_ [$q set cur_max_p_]"
        }
        puts stderr $line
    }
    puts "$qdisc $seed $phase $web"
    exit 0
}
$ns at $duration "finish"
$ns run
