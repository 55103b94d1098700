# ns-2 (2.35) version of scenarios/bulk-dumbbell.toml, for the speed comparison in the README:
# 8 NewReno bulk flows of 1500-byte packets through a 100 Mb/s bottleneck with a 1000-packet
# tail-drop buffer, 1 Gb/s access links, base RTT 2 x (1 + 48 + 1) ms = 100 ms, delayed ACKs,
# 60 simulated seconds. Prints the packets delivered to hosts (data at the receivers and ACKs at
# the senders, counted by queue monitors on the last hop), the same count `aqmlab bench` reports.
#
#   time ns bench/ns2/bulk-dumbbell.tcl              # no trace: queue-monitor counters only
#   time ns bench/ns2/bulk-dumbbell.tcl bottleneck   # + every packet event of the bottleneck
#                                                    #   (to /dev/null): what a per-packet
#                                                    #   delay of one link costs in ns-2
#   time ns bench/ns2/bulk-dumbbell.tcl all          # + trace-all (every link), to /dev/null
set trace [expr {$argc > 0 ? [lindex $argv 0] : "none"}]
if {[lsearch -exact {none bottleneck all} $trace] < 0} {
    puts stderr "usage: ns bulk-dumbbell.tcl \[none|bottleneck|all\], got $trace"
    exit 2
}
set n_flows 8
set duration 60.0

set ns [new Simulator]
# packetSize_ is the payload: ns-2 adds the 40-byte TCP/IP header, so packets are 1500 B on the wire.
Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 100000
Agent/TCP set maxcwnd_ 0

if {$trace == "all"} {
    $ns trace-all [open /dev/null w]
}

set g1 [$ns node]
set g2 [$ns node]
$ns duplex-link $g1 $g2 100Mb 48ms DropTail
if {$trace == "bottleneck"} {
    $ns trace-queue $g1 $g2 [open /dev/null w]
}
$ns queue-limit $g1 $g2 1000
$ns queue-limit $g2 $g1 1000

set monitors {}
for {set i 0} {$i < $n_flows} {incr i} {
    set s($i) [$ns node]
    set r($i) [$ns node]
    $ns duplex-link $s($i) $g1 1Gb 1ms DropTail
    $ns duplex-link $g2 $r($i) 1Gb 1ms DropTail
    foreach {a b} [list $s($i) $g1 $g1 $s($i) $g2 $r($i) $r($i) $g2] {
        $ns queue-limit $a $b 10000
    }
    # Last hops into hosts: data into r_i, ACKs into s_i.
    lappend monitors [$ns monitor-queue $g2 $r($i) ""]
    lappend monitors [$ns monitor-queue $g1 $s($i) ""]

    set tcp($i) [new Agent/TCP/Newreno]
    set sink($i) [new Agent/TCPSink/DelAck]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $r($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at 0.0 "$ftp($i) start"
}

proc finish {} {
    global monitors
    set delivered 0
    foreach m $monitors {
        incr delivered [$m set pdepartures_]
    }
    puts "ns-2 bulk-dumbbell: $delivered packets delivered"
    exit 0
}
$ns at $duration "finish"
$ns run
