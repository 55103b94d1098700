# RED's automatic w_q in ns-2.35 (Debian's ns2): the q_weight_ its initialize_params computes
# for a link, read back, for crates/aqmlab-sim/tests/red_link_delay.rs.
#
#   ns tests/fidelity/ns2/red_qweight.tcl RATE DELAY [MEAN_PKTSIZE]
#     RATE          the link's rate in ns-2's units, e.g. 10Mb
#     DELAY         its propagation delay, e.g. 50ms
#     MEAN_PKTSIZE  Queue/RED mean_pktsize_ (default 500, ns-2.35's)
#
# One simplex link with Queue/RED and ns-2.35's defaults (q_weight_ -1, thresh_ 0, maxthresh_ 0).
# The link command (ns-2.35 queue/red.cc, "link") sets edp_.ptc from the link's bandwidth and
# edp_.delay from its delay and calls initialize_params, which replaces q_weight_ -1 by
# 1 - exp(-1/(10 RTT C)), RTT = max(0.1, 3 (delay + 1/C)). q_weight_ is bound to edp_.q_w, so
# reading it after the simulation has started gives the value RED uses. Prints one line:
#   q_weight_ W thresh_ MIN maxthresh_ MAX
# with W printed by Tcl to 17 significant digits (the double exactly).
if {$argc != 2 && $argc != 3} {
    puts stderr "usage: ns red_qweight.tcl RATE DELAY \[MEAN_PKTSIZE\]"
    exit 2
}
lassign $argv rate delay pktsize
if {$pktsize != ""} {
    Queue/RED set mean_pktsize_ $pktsize
}
set ns [new Simulator]
set a [$ns node]
set b [$ns node]
$ns simplex-link $a $b $rate $delay RED
set q [[$ns link $a $b] queue]
proc report {} {
    global q
    puts "q_weight_ [$q set q_weight_] thresh_ [$q set thresh_] maxthresh_ [$q set maxthresh_]"
    exit 0
}
# After $ns run has reset the queues (REDQueue::reset calls initialize_params again).
$ns at 0.5 "report"
$ns run
