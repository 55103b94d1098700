# Issue 19 item 1: TCP without SACK in ns-2.35 on Floyd & Jacobson's node-5 set-up (their
# Figs. 11-14), for tests/fidelity/nosack.toml and tests/test_fidelity_nosack.py.
#
#   ns tests/fidelity/ns2/fj93.tcl TCP QDISC SIZE SEED
#     TCP    tahoe (Agent/TCP) | reno (Agent/TCP/Reno) | newreno (Agent/TCP/Newreno)
#     QDISC  droptail (SIZE = buffer, packets) | red (SIZE = min_th, packets; limit 100,
#            in cbcase 4 min_th)
#     SEED   1, 2, ... (start times and RED's drops)
#     SETUP  optional: issue (the default, as above) | cbcase: nodes 1-4 with a window of 12 and
#            1 ms each, 10 s, figures over [1, 10] s, every packet sent after a random wait of up
#            to one service time (overhead_; FJ93's phase randomisation), RED's limit
#            4 min_th: red-bursty's part 2, as Seeing RED ran FJ93's Figs. 12 and 14
#            fig6: FJ93's Fig. 6 (red-bursty's part 1): two FTPs with a window of 240 over
#            100 Mb/s and 1 ms, a 45 Mb/s, 20 ms gateway (SIZE: tail drop's buffer, or RED's
#            min_th with limit 100), starts at 0 and 0.13 s, 10 s, figures over [1, 10] s,
#            the random waits as in cbcase; the share printed is the second flow's
#
# Nodes 1-4 -> gw: 100 Mb/s, 1/4/5/8 ms, window 1000; node 5 -> gw: 45 Mb/s, 16 ms, window 8;
# gw -> sink: 45 Mb/s, 2 ms, the discipline under test. 1000-byte packets on the wire (960 B of
# payload + ns-2's 40-byte header), windowInit_ 1, no SYN, no delayed ACKs, min RTO 0.2 s
# (ns-2.35's default). Each flow starts at U[0, 1) s. RED: packet mode, max_th = 3 min_th,
# w_q 0.002, max_p 1/50, not gentle, no wait. Access and reverse queues: 1000 packets.
#
# Prints one line, over [5, 50] s:
#   TCP QDISC SIZE SEED utilization n5_share_pct drops
# utilization: bytes the bottleneck sent / (45 Mb/s x 45 s); n5_share_pct: node 5's part of the
# bytes delivered in order (each sender's cumulative ACK), in per cent; drops at the bottleneck;
# with SETUP cbcase or fig6 also the gateway's time-averaged queue in packets (its queue
# monitor's integrator), for red-bursty's Figs. 12 and 14, and the last flow's (node 5's) part of
# the gateway's drops, in per cent (a flow monitor on each sender's fid_), over the same window
# and over the whole run (from 0 s, as aqmlab's summary counts a flow's drops), for its Figs.
# 13-14.
#
# Environment: FJ93_DT_WAITING=1 makes tail drop's SIZE the packets waiting (queue-limit SIZE + 1;
# red-bursty's tables, run.sh --fig1214 and --fig6, compare ns-2 with our SIZEp so); FJ93_RED_LIMIT=N sets RED's buffer to N packets (red-bursty's hypothesis run,
# run.sh --red-limit100). Diagnosis (README.md "Classic Reno: ns-2's bugFix_"): FJ93_BUGFIX=true|false sets
# Agent/TCP's bugFix_ (ns-2.35's default: true); FJ93_COUNTS=1 also prints, on stderr, the
# senders' totals over the whole run: "timeouts T fast_retransmits F retransmits R" (nrexmit_,
# ncwndcuts_ - nrexmit_, nrexmitpack_). FJ93_TRACE=PREFIX writes PREFIX.starts (the flows' start
# times), PREFIX.tcp (each sender's cwnd_, ssthresh_, nrexmit_ and ncwndcuts_ at every change) and
# PREFIX.queue (the bottleneck's queue trace) for a comparison of traces (README.md "Classic Reno:
# the timeout's ssthresh"); the run's figures do not change.
if {$argc != 4 && $argc != 5} {
    puts stderr "usage: ns fj93.tcl tahoe|reno|newreno droptail|red SIZE SEED \[issue|cbcase|fig6\]"
    exit 2
}
lassign $argv tcpkind qdisc size seed setup
if {$setup == ""} {
    set setup issue
}
if {[lsearch -exact {issue cbcase fig6} $setup] < 0} {
    puts stderr "fj93.tcl: SETUP: expected issue, cbcase or fig6, got $setup"
    exit 2
}
array set agents {tahoe Agent/TCP reno Agent/TCP/Reno newreno Agent/TCP/Newreno}
if {![info exists agents($tcpkind)]} {
    puts stderr "fj93.tcl: TCP: expected tahoe, reno or newreno, got $tcpkind"
    exit 2
}
if {[lsearch -exact {droptail red} $qdisc] < 0} {
    puts stderr "fj93.tcl: QDISC: expected droptail or red, got $qdisc"
    exit 2
}
set t0 5.0
set t1 50.0
set specs {{100Mb 1ms 1000} {100Mb 4ms 1000} {100Mb 5ms 1000} {100Mb 8ms 1000} {45Mb 16ms 8}}
set bdelay 2ms
set starts {}
if {$setup != "issue"} {
    set t0 1.0
    set t1 10.0
    set specs {{100Mb 1ms 12} {100Mb 1ms 12} {100Mb 1ms 12} {100Mb 1ms 12} {45Mb 16ms 8}}
    if {$setup == "fig6"} {
        set specs {{100Mb 1ms 240} {100Mb 1ms 240}}
        set bdelay 20ms
        set starts {0.0 0.13}
    }
    # FJ93's phase-effect randomisation (as red-bursty's link jitter): every packet waits a
    # random time, uniform up to one packet's service time at the gateway (1000 B at 45 Mb/s).
    Agent/TCP set overhead_ [expr {1000 * 8 / 45e6}]
}

global defaultRNG
$defaultRNG seed $seed
set ns [new Simulator]

Agent/TCP set packetSize_ 960
Agent/TCP set windowInit_ 1
Agent/TCP set syn_ false
Agent/TCP set delay_growth_ false
Agent/TCP set maxcwnd_ 0
if {[info exists env(FJ93_BUGFIX)]} {
    Agent/TCP set bugFix_ $env(FJ93_BUGFIX)
}

Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set mean_pktsize_ 1000
Queue/RED set q_weight_ 0.002
Queue/RED set linterm_ 50
Queue/RED set gentle_ false
Queue/RED set wait_ false
Queue/RED set setbit_ false
Queue/RED set adaptive_ 0

set gw [$ns node]
set sink [$ns node]
if {$qdisc == "red"} {
    Queue/RED set thresh_ $size
    Queue/RED set maxthresh_ [expr {3 * $size}]
    $ns simplex-link $gw $sink 45Mb $bdelay RED
    # RED's buffer: 100 packets, and in cbcase 4 min_th (Seeing RED's Fig11Topo, as
    # red-bursty's part 2 sets it); FJ93_RED_LIMIT=N overrides it (red-bursty's hypothesis run
    # with a 100-packet buffer).
    set redlimit [expr {$setup == "cbcase" ? 4 * $size : 100}]
    if {[info exists env(FJ93_RED_LIMIT)]} {
        set redlimit $env(FJ93_RED_LIMIT)
    }
    $ns queue-limit $gw $sink $redlimit
} else {
    $ns simplex-link $gw $sink 45Mb $bdelay DropTail
    # ns-2.35's DropTail::enque (queue/drop-tail.cc) drops an arrival when length + 1 >= qlim_,
    # the packet on the wire not counted: queue-limit N holds N - 1 waiting. FJ93_DT_WAITING=1
    # makes SIZE the packets waiting, as aqmlab's buffer counts them (queue-limit SIZE + 1).
    set dtlimit $size
    if {[info exists env(FJ93_DT_WAITING)] && $env(FJ93_DT_WAITING)} {
        set dtlimit [expr {$size + 1}]
    }
    $ns queue-limit $gw $sink $dtlimit
}
$ns simplex-link $sink $gw 45Mb $bdelay DropTail
$ns queue-limit $sink $gw 1000
set mon [$ns monitor-queue $gw $sink ""]
set integ [$mon get-pkts-integrator]
# Per-flow drops at the bottleneck (a flow monitor keyed by each sender's fid_, added after
# the queue monitor: both count every drop, early and forced; neither changes the run).
set fmon [$ns makeflowmon Fid]
$ns attach-fmon [$ns link $gw $sink] $fmon

set start [new RandomVariable/Uniform]
$start set min_ 0.0
$start set max_ 1.0
set nflows [llength $specs]
for {set i 0} {$i < $nflows} {incr i} {
    lassign [lindex $specs $i] rate delay window
    set n($i) [$ns node]
    $ns duplex-link $n($i) $gw $rate $delay DropTail
    $ns queue-limit $n($i) $gw 1000
    $ns queue-limit $gw $n($i) 1000
    set tcp($i) [new $agents($tcpkind)]
    $tcp($i) set window_ $window
    $tcp($i) set fid_ $i
    set snk($i) [new Agent/TCPSink]
    $ns attach-agent $n($i) $tcp($i)
    $ns attach-agent $sink $snk($i)
    $ns connect $tcp($i) $snk($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    set at [expr {$starts == {} ? [$start value] : [lindex $starts $i]}]
    $ns at $at "$ftp($i) start"
    set startat($i) $at
}
if {[info exists env(FJ93_TRACE)]} {
    # FJ93_TRACE (see the header): nrexmit_ counts the timeouts, ncwndcuts_ every reduction.
    set sf [open $env(FJ93_TRACE).starts w]
    for {set i 0} {$i < $nflows} {incr i} {
        puts $sf [format "%d %.17g" $i $startat($i)]
    }
    close $sf
    set tf [open $env(FJ93_TRACE).tcp w]
    for {set i 0} {$i < $nflows} {incr i} {
        $tcp($i) attach $tf
        foreach v {cwnd_ ssthresh_ nrexmit_ ncwndcuts_} {
            $tcp($i) trace $v
        }
    }
    $ns trace-queue $gw $sink [open $env(FJ93_TRACE).queue w]
}

proc snapshot {which} {
    global mon tcp snap integ ns nflows fmon
    for {set i 0} {$i < $nflows} {incr i} {
        set snap($which,fdrops$i) 0
    }
    foreach f [$fmon flows] {
        set snap($which,fdrops[$f set flowid_]) [$f set pdrops_]
    }
    # The queue's integral over time (packets x s), brought up to now.
    $integ newpoint [$ns now] [$mon set pkts_]
    set snap($which,qsum) [$integ set sum_]
    set snap($which,bytes) [$mon set bdepartures_]
    set snap($which,drops) [$mon set pdrops_]
    for {set i 0} {$i < $nflows} {incr i} {
        # ack_: the highest cumulative ACK, in packets (-1 before the first).
        set snap($which,ack$i) [expr {max(0, [$tcp($i) set ack_] + 1)}]
    }
}

proc finish {} {
    global snap tcpkind qdisc size seed t0 t1 setup nflows
    snapshot end
    set util [expr {($snap(end,bytes) - $snap(start,bytes)) * 8.0 / 45e6 / ($t1 - $t0)}]
    set total 0
    for {set i 0} {$i < $nflows} {incr i} {
        set d($i) [expr {$snap(end,ack$i) - $snap(start,ack$i)}]
        incr total $d($i)
    }
    set share [expr {100.0 * $d([expr {$nflows - 1}]) / $total}]
    set drops [expr {$snap(end,drops) - $snap(start,drops)}]
    set line [format "%s %s %s %s %.4f %.3f %d" $tcpkind $qdisc $size $seed $util $share $drops]
    if {$setup != "issue"} {
        # and the gateway's time-averaged queue (packets waiting, not the one being sent)
        append line [format " %.3f" [expr {($snap(end,qsum) - $snap(start,qsum)) / ($t1 - $t0)}]]
        # and the last flow's (node 5's) part of the bottleneck's drops, in per cent, over the
        # window and over the whole run (as aqmlab's summary counts each flow's drops)
        set last [expr {$nflows - 1}]
        foreach from {start zero} {
            set fdsum 0
            for {set i 0} {$i < $nflows} {incr i} {
                set before [expr {$from == "zero" ? 0 : $snap(start,fdrops$i)}]
                set fd($i) [expr {$snap(end,fdrops$i) - $before}]
                incr fdsum $fd($i)
            }
            append line [format " %.3f" [expr {$fdsum ? 100.0 * $fd($last) / $fdsum : 0.0}]]
        }
    }
    puts $line
    global env tcp
    if {[info exists env(FJ93_COUNTS)]} {
        set to 0
        set cuts 0
        set rx 0
        for {set i 0} {$i < $nflows} {incr i} {
            incr to [$tcp($i) set nrexmit_]
            incr cuts [$tcp($i) set ncwndcuts_]
            incr rx [$tcp($i) set nrexmitpack_]
        }
        puts stderr "timeouts $to fast_retransmits [expr {$cuts - $to}] retransmits $rx"
    }
    exit 0
}
$ns at $t0 "snapshot start"
$ns at $t1 "finish"
$ns run
