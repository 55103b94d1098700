# Mean HTTP request and response sizes of ns-2.35's PackMime-HTTP model at 5 connections/s, the
# offered load behind the web traffic of scenarios/codel-dynamic-link.toml (its comment cites
# this). Samples the model's own size generator; no network is simulated.
#
#   ns bench/ns2/packmime_sizes.tcl [draws] [seed]     (defaults: 200000 draws, seed 1)
set draws [expr {$argc > 0 ? [lindex $argv 0] : 200000}]
set seed [expr {$argc > 1 ? [lindex $argv 1] : 1}]
set conns_per_s 5

set ns [new Simulator]
set rng [new RNG]
$rng seed $seed
# Second argument: 0 = request (client → server), 1 = response (server → client).
foreach {side name} {0 request 1 response} {
    set size [new RandomVariable/PackMimeHTTPFileSize $conns_per_s $side]
    $size use-rng $rng
    set total 0.0
    for {set i 0} {$i < $draws} {incr i} {
        set total [expr {$total + [$size value]}]
    }
    puts [format "PackMime %s size at %d conn/s: mean %.0f bytes over %d draws" \
        $name $conns_per_s [expr {$total / $draws}] $draws]
}
exit 0
