# Where aqmlab's classic Reno and ns-2.35's Agent/TCP/Reno part (issue 19 item 1): one Reno
# flow without SACK, an initial window of 10 packets, the 2nd and 6th packets (seqno 1 and 5)
# lost once. The first loss is fast-retransmitted; its ACK is partial (it covers the packets up
# to the second hole), which ends classic Reno's recovery; the new packets the inflated window
# sent draw three duplicate ACKs for the second hole. With bugFix_ true (ns-2's default)
# dupack_action refuses a second fast retransmit (highest_ack_ is not above recover_) and the
# hole waits for the retransmission timer; with bugFix_ false it is fast-retransmitted at
# once, as RFC 5681 §3.2's Reno (aqmlab's default) does.
#
#   ns tests/fidelity/ns2/reno_two_losses.tcl true|false
#
# Prints every data packet put on the link in the first 0.4 s ("send TIME SEQNO", seqno from
# 0, "drop" for the two losses), then the fast retransmits and timeouts over that time.
# aqmlab's counterpart: crates/aqmlab-tcp/tests/recovery.rs, reno_two_losses.
if {$argc != 1 || [lsearch -exact {true false} [lindex $argv 0]] < 0} {
    puts stderr "usage: ns reno_two_losses.tcl true|false   (Agent/TCP's bugFix_)"
    exit 2
}
set ns [new Simulator]
Agent/TCP set packetSize_ 960
Agent/TCP set windowInit_ 10
Agent/TCP set syn_ false
Agent/TCP set delay_growth_ false
Agent/TCP set bugFix_ [lindex $argv 0]
set a [$ns node]
set b [$ns node]
$ns duplex-link $a $b 10Mb 20ms DropTail
$ns queue-limit $a $b 1000
set em [new ErrorModel/List]
$em droplist {1 5}
$em drop-target [new Agent/Null]
$ns lossmodel $em $a $b
set tcp [new Agent/TCP/Reno]
$tcp set window_ 100
set snk [new Agent/TCPSink]
$ns attach-agent $a $tcp
$ns attach-agent $b $snk
$ns connect $tcp $snk
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0 "$ftp start"
# The link's queue trace, to a temporary file read back at the end.
set tracefile [exec mktemp]
set f [open $tracefile w]
$ns trace-queue $a $b $f
proc finish {} {
    global tcp f tracefile
    close $f
    set in [open $tracefile r]
    while {[gets $in line] >= 0} {
        lassign $line ev t from to type size flags fid src dst seqno
        if {$type != "tcp"} {
            continue
        }
        if {$ev == "+"} {
            puts [format "send %.4f %d" $t $seqno]
        } elseif {$ev == "d"} {
            puts [format "drop %.4f %d" $t $seqno]
        }
    }
    close $in
    file delete $tracefile
    set timeouts [$tcp set nrexmit_]
    set cuts [$tcp set ncwndcuts_]
    puts "fast_retransmits [expr {$cuts - $timeouts}] timeouts $timeouts"
    exit 0
}
$ns at 0.4 "finish"
$ns run
