"""BBR's model over time, aqmlab against the patched ns-3 3.37 (bbr.md, "BBR's model state"):
BBR beside CUBIC in the 1000-packet FIFO. Reads the traces `bbr-fixed --trace` wrote (one CSV
per seed, TraceBbr in bbr.cc), runs aqmlab's scenario with its BBR flow's state sampled every
10 ms (`aqmlab.run(..., trace_flows={0: 0.01})`), and prints per seed, over [50, 100) s, the
means of each side's BtlBw, RTprop and window, the share of time in PROBE_RTT, and when each
left STARTUP and DRAIN.

    cd /tmp/aqmlab-bbr-fixed && for s in $(seq 1 10); do ./bbr-fixed --seed=$s --mix=cubic \\
        --buffer=1000 --duration=100 --from=50 --to=100 --trace=trace-s$s.csv >/dev/null; done
    PYTHONPATH=python python3 tests/fidelity/ns3/bbr_state.py /tmp/aqmlab-bbr-fixed 1 2 ... 10
"""

from __future__ import annotations

import os
import sys

import aqmlab
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "bbr-cubic-b1000.toml")
MSS = 1460
# TcpBbr::BbrMode_t and aqmlab's bbr_mode: 0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT.
PROBE_BW, PROBE_RTT = 2, 3


def ns3_state(path: str) -> pd.DataFrame:
    d = pd.read_csv(path).set_index("t_s")
    return pd.DataFrame(
        {
            "mode": d["mode"],
            "btl_bw_bps": d["btl_bw_bps"],
            "rtprop_s": d["rtprop_s"],
            "cwnd_seg": d["cwnd_bytes"] / MSS,
            "rtt_s": d["last_rtt_s"],
        }
    )


def aqmlab_state(seed: int) -> tuple[pd.DataFrame, float]:
    r = aqmlab.run(SCENARIO, seed=seed, trace_flows={0: 0.01})
    fs = r.flow_states
    fs = fs[fs["flow"] == 0]
    p = fs.pivot_table(index="t_ns", columns="var", values="value")
    p.index = p.index / 1e9
    goodput = r.summary["windows"]["after_warmup"]["flows"][0]["goodput_bps"] / 1e6
    state = pd.DataFrame(
        {
            "mode": p["bbr_mode"],
            "btl_bw_bps": p["btl_bw_bps"],
            "rtprop_s": p["rtprop_s"],
            "cwnd_seg": p["cwnd"] / MSS,
            "rtt_s": p["srtt_s"],
        }
    )
    return state, goodput


def figures(s: pd.DataFrame) -> dict[str, float]:
    w = s[(s.index >= 50) & (s.index < 100)]
    left_drain = s.index[s["mode"] >= PROBE_BW]
    return {
        "btl_bw_mbps": w["btl_bw_bps"].mean() / 1e6,
        "rtprop_s": w["rtprop_s"].mean(),
        "cwnd_seg": w["cwnd_seg"].mean(),
        "probe_rtt": float((w["mode"] == PROBE_RTT).mean()),
        "drain_end_s": float(left_drain[0]) if len(left_drain) else float("nan"),
    }


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    trace_dir, seeds = argv[0], [int(s) for s in argv[1:]]
    rows = []
    for seed in seeds:
        path = os.path.join(trace_dir, f"trace-s{seed}.csv")
        if not os.path.exists(path):
            print(f"bbr_state: no ns-3 trace {path} (run bbr-fixed --trace)", file=sys.stderr)
            return 2
        ours, goodput = aqmlab_state(seed)
        ns3 = pd.read_json(os.path.join(trace_dir, f"s{seed}.json"), typ="series")
        for side, st, mbps in (
            ("ns-3", ns3_state(path), ns3["flows"][0]["goodput_mbps"]),
            ("aqmlab", ours, goodput),
        ):
            rows.append({"seed": seed, "side": side, "bbr_mbps": mbps, **figures(st)})
    t = pd.DataFrame(rows)
    pd.set_option("display.width", 160)
    print(t.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(
        t.groupby("side")
        .mean(numeric_only=True)
        .drop(columns="seed")
        .to_string(float_format=lambda x: f"{x:.3f}")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
