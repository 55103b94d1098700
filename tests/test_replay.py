"""``aqmlab replay`` and ``aqmlab.replay``: output format, agreement with ns-3, bad input."""

import csv
import io
import json

import aqmlab
import pytest
from aqmlab.schedules import overload, write_schedule
from conftest import ROOT, VECTORS, run_cli

KINDS = [
    "droptail",
    "red",
    "codel",
    "lstf_codel",
    "fq_codel",
    "pie",
    "fq_pie",
    "cobalt",
    "fq_cobalt",
    "dualpi2",
    "cake",
]


def _sorted_rows(text: str) -> list[dict]:
    return sorted(csv.DictReader(io.StringIO(text)), key=lambda r: int(r["id"]))


def test_cli_codel_ns3_matches_reference_decisions(tmp_path):
    out = tmp_path / "d.csv"
    r = run_cli(
        "replay", "--qdisc", "codel", "--param", "variant=ns3", "limit=1000p",
        "-o", str(out), "--summary", str(tmp_path / "s.json"),
        str(VECTORS / "overload.schedule.csv"),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    ours = _sorted_rows(out.read_text())
    theirs = _sorted_rows((VECTORS / "overload.codel.ns3.csv").read_text())
    assert ours == theirs
    summary = json.loads((tmp_path / "s.json").read_text())
    ref = json.loads((VECTORS / "overload.codel.ns3.summary.json").read_text())
    for k in ("packets", "delivered", "dropped_enqueue", "dropped_dequeue", "queued_at_end"):
        assert summary[k] == ref[k], k


@pytest.mark.parametrize(
    "schedule,kind,params",
    [
        ("overload", "cobalt", ["limit=1000p"]),
        ("sparse", "fq_cobalt", ["quantum=1514"]),
        ("sparse", "fq_pie", ["quantum=1514"]),
        ("l4s_mix", "codel", ["variant=ns3", "ecn=true", "l4s=true", "ce_threshold=1ms"]),
        ("l4s_sparse", "fq_codel", ["variant=ns3", "quantum=1514", "l4s=true", "ce_threshold=1ms"]),
    ],
)
def test_cli_replays_the_newer_disciplines_as_ns3_does(tmp_path, schedule, kind, params):
    out = tmp_path / "d.csv"
    # The random ones draw from ns-3's stream (CoDel draws nothing and refuses --uniforms).
    uniforms = [] if kind.endswith("codel") else ["--uniforms", str(VECTORS / "ns3-uniforms.txt")]
    r = run_cli(
        "replay", "--qdisc", kind, "--param", *params, *uniforms, "-o", str(out),
        "--summary", str(tmp_path / "s.json"), str(VECTORS / f"{schedule}.schedule.csv"),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    theirs = (VECTORS / f"{schedule}.{kind}.ns3.csv").read_text()
    assert _sorted_rows(out.read_text()) == _sorted_rows(theirs)
    summary = json.loads((tmp_path / "s.json").read_text())
    ref = json.loads((VECTORS / f"{schedule}.{kind}.ns3.summary.json").read_text())
    for k in ("packets", "delivered", "marked", "dropped_enqueue", "dropped_dequeue"):
        assert summary[k] == ref[k], k
    assert (summary["dequeue_calls"], summary["deq_lines_skipped"]) == (
        ref["dequeue_calls"],
        ref["deq_lines_skipped"],
    )


def test_cli_writes_csv_to_stdout_with_the_documented_header(vectors):
    r = run_cli("replay", "--qdisc", "droptail", str(vectors / "tiny.schedule.csv"))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "id,enq_t_ns,outcome,deq_t_ns"
    assert len(lines) == 11
    assert r.stdout == (vectors / "tiny.pfifo.ns3.csv").read_text()


def test_list_prints_every_discipline_and_parameter():
    r = run_cli("replay", "--list")
    assert r.returncode == 0, r.stderr
    for q in aqmlab.list_qdiscs():
        assert q["name"] in r.stdout
        for p in q["params"]:
            assert p["name"] in r.stdout
    assert {q["name"] for q in aqmlab.list_qdiscs()} == set(KINDS)


def test_help_names_every_discipline():
    # `--qdisc KIND`'s help once hand-listed nine kinds and missed dualpi2 and cake.
    r = run_cli("replay", "--help")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert ", ".join(KINDS) in text


COLUMNS = ["name", "type", "unit", "default", "range", "doc"]


def _list_tables(text):
    """`replay --list` read back: {discipline: [[name, type, unit, default, range, doc], ...]},
    each row cut at its block's header columns (the facts lines, `  - ...`, after the rows)."""
    tables = {}
    for block in text.strip("\n").split("\n\n"):
        title, header, *rows = block.splitlines()
        rows = [r for r in rows if not r.startswith("  - ")]
        starts = [header.index(f" {c}") + 1 for c in COLUMNS]
        ends = starts[1:] + [None]
        tables[title.split(":")[0]] = [[r[a:b].strip() for a, b in zip(starts, ends)] for r in rows]
    return tables


def test_list_round_trips_every_parameter_table():
    r = run_cli("replay", "--list")
    assert r.returncode == 0, r.stderr
    tables = _list_tables(r.stdout)
    want = {
        q["name"]: [
            [p["name"], p["type"], p["unit"], p["default"], p["range"], p["help"]]
            for p in q["params"]
        ]
        for q in aqmlab.list_qdiscs()
    }
    assert tables == want
    # Typed, with units and ranges: CoDel's target is a duration > 0, PIE's alpha a number in
    # [0, 1e9] per second, the FQ schedulers' flows an integer in [1, 65536].
    row = {(k, r[0]): r for k, rows in tables.items() for r in rows}
    assert row["codel", "target"][1:5] == ["duration", "time", "5ms", "> 0"]
    assert row["pie", "alpha"][1:5] == ["number", "1/s", "0.125", "[0, 1e9]"]
    assert row["fq_codel", "flows"][1:5] == ["integer", "-", "1024", "[1, 65536]"]
    assert row["codel", "variant"][1:5] == ["enum", "-", "rfc", "rfc|linux|ns3"]


def test_list_prints_each_disciplines_tuning_and_cost():
    # RFC 7928 §11-12 under each table: the derived and adapted parameters, then the facts.
    r = run_cli("replay", "--list")
    assert r.returncode == 0, r.stderr
    for q in aqmlab.list_qdiscs():
        block = r.stdout.split(f"\n{q['name']}: ")[-1].split("\n\n")[0]
        facts = [line for line in block.splitlines() if line.startswith("  - ")]
        tuned = [
            f"  - {p['tuning']} {p['name']}: {p['tuning_how']}"
            for p in q["params"]
            if p["tuning"] != "fixed"
        ]
        f = q["facts"]
        want = tuned or ["  - tuning: none derived or adapted: every value is the operator's"]
        want += [f"  - {k.replace('_', ' ')}: {f[k]}" for k in ("state", "per_flow")]
        want += [f"  - {k.replace('_', ' ')}: {f[k]}" for k in ("per_packet", "timers", "spec")]
        assert facts == want, q["name"]
    pie = next(q for q in aqmlab.list_qdiscs() if q["name"] == "pie")
    alpha = next(p for p in pie["params"] if p["name"] == "alpha")
    assert alpha["tuning"] == "adapted" and "RFC 8033 §4.2" in alpha["tuning_how"]


def test_api_replay_summary_and_pandas():
    res = aqmlab.replay(VECTORS / "tiny.schedule.csv", "codel", {"variant": "ns3", "ecn": False})
    assert res.summary["packets"] == 10
    assert res.summary["delivered"] == 5
    assert res.summary["queued_at_end"] == 5
    df = res.to_pandas()
    assert list(df.columns) == ["id", "enq_t_ns", "outcome", "deq_t_ns"]
    assert len(df) == 10
    assert res.sojourns_ns()[:2] == [50_000, 900_000]


def test_trace_lists_codel_state_changes(tmp_path):
    res = aqmlab.replay(VECTORS / "overload.schedule.csv", "codel", ["variant=ns3"], trace=True)
    rows = list(csv.DictReader(io.StringIO(res.trace_csv)))
    first_drop = next(r for r in rows if r["var"] == "dropping" and r["value"] == "1")
    assert first_drop["t_ns"] == "124800000"
    dn = next(r for r in rows if r["var"] == "drop_next_ns")
    assert (dn["t_ns"], dn["value"]) == ("124800000", "224797696")


def test_red_uniforms_file_that_runs_out_is_reported(tmp_path):
    u = tmp_path / "u.txt"
    u.write_text("0.5\n0.25\n")
    r = run_cli(
        "replay", "--qdisc", "red", "--param", "min_th=5", "max_th=15", "mode=packet",
        "bandwidth=10Mbps", "--uniforms", str(u), str(VECTORS / "overload.schedule.csv"),
    )  # fmt: skip
    assert r.returncode == 2
    assert "the uniforms file ran out: it holds 2 draws" in r.stderr
    assert "Traceback" not in r.stderr


def test_uniforms_for_a_deterministic_discipline_is_an_error():
    r = run_cli(
        "replay", "--qdisc", "codel", "--uniforms", str(VECTORS / "ns3-uniforms.txt"),
        str(VECTORS / "tiny.schedule.csv"),
    )  # fmt: skip
    assert r.returncode == 2
    assert "--uniforms: codel draws no random numbers" in r.stderr


def test_overload_generator_reproduces_the_reference_schedule(tmp_path):
    p = tmp_path / "o.csv"
    write_schedule(overload(), p)
    assert p.read_bytes() == (VECTORS / "overload.schedule.csv").read_bytes()


SCHEDULE_ERRORS = [
    ("bad_row.csv", "t_ns,op,size\n0,enq\n", "line 2: expected 3 comma-separated fields"),
    ("bad_op.csv", "t_ns,op,size\n0,push,100\n", 'line 2: op: expected enq or deq, got "push"'),
    (
        "backwards.csv",
        "t_ns,op,size\n10,enq,100\n5,deq,0\n",
        "line 3: t_ns 5 goes back in time: the previous row is at 10",
    ),
    ("zero.csv", "t_ns,op,size\n0,enq,0\n", "line 2: size: expected a packet size in bytes > 0"),
    ("neg.csv", "t_ns,op,size\n0,enq,-3\n", "line 2: size: expected a packet size in bytes > 0"),
    ("empty.csv", "", "the file is empty: expected a header t_ns,op,size"),
    ("header.csv", "time,op,size\n0,enq,1\n", "line 1: expected a header t_ns,op,size"),
    ("noint.csv", "t_ns,op,size\n1.5,enq,100\n", "line 2: t_ns: expected a whole number"),
]


@pytest.mark.parametrize("name,text,message", SCHEDULE_ERRORS)
def test_bad_schedules_give_one_line_naming_the_line(tmp_path, name, text, message):
    p = tmp_path / name
    p.write_text(text)
    r = run_cli("replay", "--qdisc", "codel", str(p))
    assert r.returncode == 2
    assert r.stdout == ""
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert message in r.stderr, r.stderr
    assert str(p) in r.stderr


def test_binary_file_is_refused(tmp_path):
    p = tmp_path / "bin.csv"
    p.write_bytes(b"\x7fELF\x02\x01\x00\x00\x00garbage")
    r = run_cli("replay", "--qdisc", "codel", str(p))
    assert r.returncode == 2
    assert "binary data" in r.stderr and "expected a CSV text file" in r.stderr


PARAM_ERRORS = [
    (["--qdisc", "blue"], 'unknown queue discipline "blue": expected one of droptail'),
    (["--qdisc", "codel", "-p", "tagret=5ms"], 'codel has no parameter "tagret"'),
    (
        ["--qdisc", "codel", "-p", "target=5"],
        "codel: parameter target = 5: expected a duration > 0 (like 5ms, 100us",
    ),
    (
        ["--qdisc", "codel", "-p", "interval=0ms"],
        "codel: parameter interval = 0ms: expected a duration > 0",
    ),
    (
        ["--qdisc", "codel", "-p", "variant=bsd"],
        "codel: parameter variant = bsd: expected one of rfc, linux, ns3",
    ),
    (
        ["--qdisc", "droptail", "-p", "limit=1000"],
        "droptail: parameter limit = 1000: expected a size in packets or bytes > 0 (like 1000p",
    ),
    (["--qdisc", "red", "-p", "min_th=20", "max_th=10"], "min_th"),
    (["--qdisc", "pie", "-p", "t_update=0ms"], "t_update"),
    (["--qdisc", "fq_codel", "-p", "flows=0"], "flows"),
    (["--qdisc", "lstf_codel", "-p", "alpha=1.5"], "alpha"),
    (["--qdisc", "codel", "-p", "target"], 'parameter "target": expected NAME=VALUE'),
]


@pytest.mark.parametrize("args,message", PARAM_ERRORS)
def test_bad_parameters_give_one_line_naming_the_parameter(args, message):
    r = run_cli("replay", *args, str(VECTORS / "tiny.schedule.csv"))
    assert r.returncode == 2, r.stdout
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert message in r.stderr, r.stderr


def test_missing_file_and_missing_qdisc():
    r = run_cli("replay", "--qdisc", "codel", "no/such/file.csv")
    assert r.returncode == 2
    assert "no/such/file.csv: cannot read the schedule" in r.stderr
    r = run_cli("replay", str(VECTORS / "tiny.schedule.csv"))
    assert r.returncode == 2
    assert "--qdisc KIND is required" in r.stderr


def test_api_raises_typed_exceptions():
    with pytest.raises(aqmlab.ParameterError, match="no parameter"):
        aqmlab.replay(VECTORS / "tiny.schedule.csv", "codel", {"bogus": 1})
    with pytest.raises(aqmlab.ScheduleError):
        aqmlab.replay(ROOT / "README.md", "codel")
    assert issubclass(aqmlab.ScheduleError, aqmlab.AqmlabError)


def test_cli_cake_reads_dscp_and_shapes_with_atm_overhead(tmp_path):
    # 20 Best Effort and 20 EF packets at 0; the link asks every 100 us. CAKE at 10 Mbit/s with
    # overhead 18 and ATM sends one 1500-B packet per 1,356,800 ns (32 cells of 53 B), and
    # diffserv3 gives EF (Voice) one slot in four while both are backlogged.
    sched = tmp_path / "s.csv"
    rows = ["t_ns,op,size,flow,dscp"]
    for _ in range(20):
        rows += ["0,enq,1500,1,0", "0,enq,1500,2,46"]
    rows += [f"{k * 100_000},deq,0,0,0" for k in range(600)]
    sched.write_text("\n".join(rows) + "\n")
    out = tmp_path / "d.csv"
    r = run_cli(
        "replay", "--qdisc", "cake", "--param", "bandwidth=10Mbps", "overhead=18", "atm=atm",
        "-o", str(out), str(sched),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    sent = sorted(
        (int(d["deq_t_ns"]), int(d["id"]))
        for d in csv.DictReader(io.StringIO(out.read_text()))
        if int(d["deq_t_ns"]) >= 0
    )
    times = [t for t, _ in sent]
    # Each departure is the first 100-us tick at or after the shaper's time k x 1,356,800 ns.
    assert times == [-(-k * 1_356_800 // 100_000) * 100_000 for k in range(len(times))]
    first8 = [i % 2 for _, i in sent[:8]]  # ids alternate: even = Best Effort, odd = EF
    assert first8.count(1) == 2, first8
