# Issue 19 ("a verdict must say why it differs"): red-vs-codel's set-up (Kuhn, Lochin & Mehani
# 2014, as python/aqmlab/reproduce/builtin/red-vs-codel/scenario.toml builds it) in ns-2.35
# (Debian's ns2), to test the hypothesis that RED's delay differs from CoDel's because of how
# RED is configured (claims.toml, [hypothesis.ns2-byte-mode]). ns-2.35 has no CoDel (it came
# with ns-2.36): the CoDel arm is ours.
#
#   ns tests/fidelity/ns2/kuhn14.tcl TCP QDISC BUFFER SEED [APPS DURATION]
#     TCP       cubic (Agent/TCP/Linux, select_ca cubic, Sack1 sink) | vegas (Agent/TCP/Vegas)
#     QDISC     droptail
#               red          the reproduction's RED: packet mode (bytes_ and queue_in_bytes_
#                            false), mean_pktsize_ 1500, ns-2.35's other defaults (thresh_ 0,
#                            maxthresh_ 0, q_weight_ -1, linterm_ 10, gentle_, wait_)
#               red-default  Queue/RED as ns-2.35 ships it: byte mode (bytes_ and
#                            queue_in_bytes_ true), mean_pktsize_ 500, the rest as above
#               ared         the reproduction's ARED: red with adaptive_ 1 and q_weight_ 0
#                            (1 - exp(-1/C), ARED §5, as our adaptive=true takes it)
#               ared-default red-default with adaptive_ 1 (ns-2.35 keeps q_weight_ -1)
#     BUFFER    the bottleneck's queue-limit in packets (100000 for "unlimited"; in byte mode
#               ns-2 takes it as BUFFER x mean_pktsize_ bytes, red.cc enque)
#     SEED      1, 2, ... (ns-2's default RNG: the Pareto periods and RED's drops)
#     APPS      on/off applications (default 100; the reproduction's quick mode runs 30)
#     DURATION  seconds (default 200; quick 60)
#
# Set-up, as scenario.toml: APPS senders each with a TCP carrying a Pareto on/off application
# (Application/Traffic/Pareto, ns-2's defaults but for packetSize_: 500 ms mean on and off
# periods, shape 1.5, 64 kb/s while on, in writes of 1460 bytes, each one TCP segment), all
# started at 0 s, and one 100 KB FTP from 5 s; senders -> A at 10 Mb/s, 10 ms; A -> B at
# 1 Mb/s, 250 ms, the discipline under test; B -> receivers 10 Mb/s, 10 ms. 1500-byte packets
# on the wire (packetSize_ 1460 + ns-2's 40-byte header), advertised window 10000 packets (not
# ns-2's default 20, which would cap every flow's window), ns-2.35's other TCP defaults. Every
# other queue is a 100000-packet tail drop, the reverse bottleneck's too (it carries ACKs only).
#
# Prints one line over the whole run (as our summary's bottleneck.sojourn_ms; with cubic,
# Agent/TCP/Linux also prints "cmd select_ca cubic" lines, which kuhn14.sh drops):
#   TCP QDISC BUFFER SEED delay_mean_ms delay_p50_ms drops utilization
# delay: the time from each packet's arrival at the bottleneck queue to its dequeue (trace-queue
# "+" to "-", as our sojourn: the time in the discipline); drops at the bottleneck (d events);
# utilization: bytes dequeued / (1 Mb/s x DURATION). On stderr, RED's resolved q_weight_,
# thresh_, maxthresh_ (in mean_pktsize_ packets, also in byte mode) and, with adaptive_, the last
# cur_max_p_.
if {$argc != 4 && $argc != 6} {
    puts stderr "usage: ns kuhn14.tcl cubic|vegas droptail|red|red-default|ared|ared-default BUFFER SEED \[APPS DURATION\]"
    exit 2
}
lassign $argv tcpkind qdisc buffer seed apps duration
if {$apps == ""} {
    set apps 100
    set duration 200
}
if {[lsearch -exact {cubic vegas} $tcpkind] < 0} {
    puts stderr "kuhn14.tcl: TCP: expected cubic or vegas, got $tcpkind"
    exit 2
}
if {[lsearch -exact {droptail red red-default ared ared-default} $qdisc] < 0} {
    puts stderr "kuhn14.tcl: QDISC: expected droptail, red, red-default, ared or ared-default, got $qdisc"
    exit 2
}
foreach {name v} [list BUFFER $buffer SEED $seed APPS $apps DURATION $duration] {
    if {![string is integer -strict $v] || $v < 1} {
        puts stderr "kuhn14.tcl: $name: expected a positive integer, got $v"
        exit 2
    }
}

global defaultRNG
$defaultRNG seed $seed
Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 10000

# Before the link: its "link" command resolves thresh_ 0 and q_weight_ -1 from the class's
# values (ns-2.35 red.cc initialize_params), and reset at start keeps what it resolved.
if {$qdisc == "red" || $qdisc == "ared"} {
    Queue/RED set bytes_ false
    Queue/RED set queue_in_bytes_ false
    Queue/RED set mean_pktsize_ 1500
}
if {$qdisc == "ared"} {
    Queue/RED set q_weight_ 0
}
if {[string match ared* $qdisc]} {
    Queue/RED set adaptive_ 1
}

set ns [new Simulator]
set a [$ns node]
set b [$ns node]
set big 100000
if {$qdisc == "droptail"} {
    $ns simplex-link $a $b 1Mb 250ms DropTail
} else {
    $ns simplex-link $a $b 1Mb 250ms RED
}
$ns queue-limit $a $b $buffer
$ns simplex-link $b $a 1Mb 250ms DropTail
$ns queue-limit $b $a $big
set q [[$ns link $a $b] queue]

set trace_name [exec mktemp /tmp/kuhn14.XXXXXX]
set tf [open $trace_name w]
$ns trace-queue $a $b $tf

# Sender i and receiver i; flow 0 is the FTP, flows 1..APPS the on/off applications.
proc endpoint {i} {
    global ns a b big tcpkind
    set s [$ns node]
    set r [$ns node]
    $ns duplex-link $s $a 10Mb 10ms DropTail
    $ns duplex-link $b $r 10Mb 10ms DropTail
    foreach {x y} [list $s $a $a $s $b $r $r $b] {
        $ns queue-limit $x $y $big
    }
    if {$tcpkind == "cubic"} {
        set tcp [new Agent/TCP/Linux]
        $tcp set timestamps_ true
        set sink [new Agent/TCPSink/Sack1]
        $sink set ts_echo_rfc1323_ true
    } else {
        set tcp [new Agent/TCP/Vegas]
        set sink [new Agent/TCPSink]
    }
    $tcp set fid_ $i
    $ns attach-agent $s $tcp
    $ns attach-agent $r $sink
    $ns connect $tcp $sink
    if {$tcpkind == "cubic"} {
        $ns at 0.0 "$tcp select_ca cubic"
    }
    return $tcp
}

set ftp [new Application/FTP]
$ftp attach-agent [endpoint 0]
$ns at 5.0 "$ftp send 100000"
for {set i 1} {$i <= $apps} {incr i} {
    set p [new Application/Traffic/Pareto]
    $p set packetSize_ 1460
    $p set rate_ 64k
    $p set burst_time_ 0.5
    $p set idle_time_ 0.5
    $p set shape_ 1.5
    $p attach-agent [endpoint $i]
    $ns at 0.0 "$p start"
}

proc finish {} {
    global ns tf trace_name q qdisc tcpkind buffer seed duration
    $ns flush-trace
    close $tf
    if {$qdisc != "droptail"} {
        set line "q_weight_ [$q set q_weight_] thresh_ [$q set thresh_] maxthresh_ [$q set maxthresh_]"
        if {[string match ared* $qdisc]} {
            append line " cur_max_p_ [$q set cur_max_p_]"
        }
        puts stderr $line
    }
    # Sojourn of each dequeued packet: its "-" time less its "+" time, matched by uid (field 12).
    set f [open $trace_name r]
    set delays {}
    set drops 0
    set bytes 0
    while {[gets $f line] >= 0} {
        set ev [lindex $line 0]
        set t [lindex $line 1]
        set uid [lindex $line 11]
        if {$ev == "+"} {
            set arr($uid) $t
        } elseif {$ev == "-"} {
            lappend delays [expr {($t - $arr($uid)) * 1000.0}]
            incr bytes [lindex $line 5]
            unset arr($uid)
        } elseif {$ev == "d"} {
            incr drops
            unset -nocomplain arr($uid)
        }
    }
    close $f
    file delete $trace_name
    set n [llength $delays]
    set sum 0.0
    foreach d $delays {
        set sum [expr {$sum + $d}]
    }
    set sorted [lsort -real $delays]
    set p50 [lindex $sorted [expr {int(0.5 * ($n - 1))}]]
    set util [expr {$bytes * 8.0 / (1e6 * $duration)}]
    puts [format "%s %s %s %s %.3f %.3f %d %.4f" $tcpkind $qdisc $buffer $seed \
        [expr {$sum / $n}] $p50 $drops $util]
    exit 0
}
$ns at $duration "finish"
$ns run
