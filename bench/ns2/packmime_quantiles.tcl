# Quantiles of ns-2.35's PackMime-HTTP request and response sizes (and its server delay), the
# table behind aqmlab's `model = "packmime"` web traffic (crates/aqmlab-sim/src/packmime.rs).
# Samples the model's own generators; no network is simulated. The size marginals do not depend
# on the connection rate (their correlation does); `rate` only sets that correlation.
#
#   ns bench/ns2/packmime_quantiles.tcl [draws] [seed] [rate]   (defaults: 2000000, 1, 5)
#
# Prints, for each of request, response and server_delay, its mean and one line per probability
# `p quantile` (sorted draws, the ceil(p*draws)-th).
set draws [expr {$argc > 0 ? [lindex $argv 0] : 2000000}]
set seed [expr {$argc > 1 ? [lindex $argv 1] : 1}]
set rate [expr {$argc > 2 ? [lindex $argv 2] : 5}]
set probs {0.0001 0.0005 0.001 0.002 0.005}
for {set i 1} {$i < 100} {incr i} { lappend probs [expr {$i / 100.0}] }
lappend probs 0.995 0.998 0.999 0.9995 0.9998 0.9999 0.99995 0.99998 0.99999

set ns [new Simulator]
set rng [new RNG]
$rng seed $seed
proc report {name xs} {
    global probs draws
    set total 0.0
    foreach x $xs { set total [expr {$total + $x}] }
    puts [format "%s mean %.6g" $name [expr {$total / $draws}]]
    set sorted [lsort -real $xs]
    foreach p $probs {
        set k [expr {int(ceil($p * $draws)) - 1}]
        puts [format "%s %s %.6g" $name $p [lindex $sorted $k]]
    }
}
# Second argument: 0 = request (client → server), 1 = response (server → client).
foreach {side name} {0 request 1 response} {
    set size [new RandomVariable/PackMimeHTTPFileSize $rate $side]
    $size use-rng $rng
    set xs {}
    for {set i 0} {$i < $draws} {incr i} { lappend xs [$size value] }
    report $name $xs
}
set delay [new RandomVariable/PackMimeHTTPServerDelay 0.63 305]
$delay use-rng $rng
set xs {}
for {set i 0} {$i < $draws} {incr i} { lappend xs [$delay value] }
report server_delay $xs
exit 0
