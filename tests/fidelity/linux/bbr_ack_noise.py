"""BBR v1 under tail drop, aqmlab against Linux (docs/models/bbr.md, "Against Linux").

    python3 tests/fidelity/linux/bbr_ack_noise.py sim        # aqmlab, ACK-path jitter sweep
    python3 tests/fidelity/linux/bbr_ack_noise.py emu N      # N emulated Linux runs (root)

``sim``: the median sojourn of ``scenarios/emu-vs-sim-bbr.toml`` under tail drop, seeds 1-3,
with uniform jitter of 0, 0-2, 0-5 and 0-10 ms on the ACK path (the bottleneck's reverse).
``emu``: Linux's bbr through ``aqmlab shell`` on the same link, with ``ss -tin`` read every
200 ms in the sender's namespace: the median sojourn, the ACKs per data packet, the
forwarder's lateness, and Linux's own bandwidth estimate, window and RTT.
"""

import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "..", "..", "scenarios", "emu-vs-sim-bbr.toml")
JITTERS = ("0ms", "uniform(0ms, 2ms)", "uniform(0ms, 5ms)", "uniform(0ms, 10ms)")


def sim():
    import aqmlab

    for j in JITTERS:
        p50s = []
        for seed in (1, 2, 3):
            res = aqmlab.run(
                SCENARIO,
                seed=seed,
                qdisc={"bottleneck": "droptail"},
                set={"dumbbell.bottleneck.reverse.jitter": j},
            )
            p50s.append(res.summary["links"]["bottleneck"]["sojourn_ms"]["p50"])
        print(f"ACK jitter {j:<20} median sojourn ms: " + ", ".join(f"{p:.2f}" for p in p50s))


def emu(runs):
    from aqmlab.shell import emulate

    py = sys.executable
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="aqmlab-bbr-ss-") as tmp:
            log = os.path.join(tmp, "ss.log")
            ss = f"ss -tin dst $AQMLAB_PEER_ADDR >> {log}"
            sampler = f"for i in $(seq 60); do sleep 0.2; {ss}; done"
            bulk = f"{py} -m aqmlab.emutool bulk $AQMLAB_PEER_ADDR 5001 14 bbr"
            res = emulate(
                ["sh", "-c", f"{py} -m aqmlab.emutool sink 5001 12 > /dev/null"],
                link=f"{SCENARIO}:bottleneck",
                link_qdisc="droptail",
                server=f"sh -c '{bulk} & {sampler}; wait'",
                rt=50,
                cc="bbr",
            )
            text = ""
            if os.path.exists(log):
                with open(log, encoding="utf-8") as f:
                    text = f.read()
        s = res.summary
        links = s["links"]
        late = s["emulation"]["lateness_ms"]
        bws = [int(b) / 1e6 for b in re.findall(r"bbr:\(bw:(\d+)bps", text)]
        cwnds = [int(c) for c in re.findall(r"\bcwnd:(\d+)", text)]
        rtts = [float(r) for r in re.findall(r"\brtt:([\d.]+)/", text)]
        high = sum(r > 60 for r in rtts)
        per_ack = links["downlink"]["delivered_pkts"] / links["uplink"]["delivered_pkts"]
        print(
            f"median sojourn {links['downlink']['sojourn_ms']['p50']:.2f} ms; "
            f"data/ACK {per_ack:.2f}; "
            f"lateness p99 {late['p99']:.2f} max {late['max']:.2f} ms; "
            f"Linux bw {min(bws, default=0):.2f}-{max(bws, default=0):.2f} Mb/s, "
            f"cwnd {min(cwnds, default=0)}-{max(cwnds, default=0)}, "
            f"srtt > 60 ms in {high} of {len(rtts)} samples"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["sim"]:
        sim()
    elif sys.argv[1:2] == ["emu"]:
        emu(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    else:
        sys.exit(__doc__)
