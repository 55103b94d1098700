#!/usr/bin/env python3
"""Where the instructions go, through inlining.

`callgrind_annotate` charges an instruction to the source line it came from, so in an optimised
build nearly everything lands in one function (the event loop, where it is all inlined) or in
the standard library's files (slice indexing, comparisons). This script charges each
instruction to a frame of its inline stack instead, read from the binary's debug information
with `addr2line -i`:

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out BINARY ARGS...
    scripts/callgrind-frames.py cg.out BINARY [--by file|function|line] [--depth N] [--top N]

`--by file` (the default) sums by the source file of the innermost frame in this repository
(standard-library code inlined into, say, the event queue counts as the event queue's);
`--by function` by that frame's function; `--by line` by its line, with `--depth N` more
enclosing frames of this repository shown after it ("f@file:line <- caller@file:line").
The binary needs debug information: `--profile profiling`, or `CARGO_PROFILE_RELEASE_DEBUG=true`.
Costs are exclusive (a call's cost stays with the callee), so the shares add up to 100 %.

With a cache simulation (`--cache-sim=yes`), `--event` picks the event counted (`Ir`, the
default, or `D1mr`, `DLmw`, ...; several joined by `+`: `DLmr+DLmw` for last-level data
misses), and `--minus SHORT.out` subtracts a shorter run of the same binary and scenario, so
that set-up cancels (the difference of an 8-s and a 4-s run is what the 4 s between cost);
`--per N` divides by N (the difference of their delivered packets: a cost per packet).
"""

import argparse
import collections
import re
import subprocess
import sys


def instruction_costs(path, event="Ir"):
    """Exclusive cost per instruction address (a callgrind file written with --dump-instr=yes)
    of `event`: one of the file's events, or several joined by `+` (their sum)."""
    costs = collections.Counter()
    addr = 0
    after_call = False
    columns = None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                names = line.split()[1:]
                try:
                    columns = [names.index(e) for e in event.split("+")]
                except ValueError:
                    sys.exit(f"{path}: no event {event!r}; its events: {' '.join(names)}")
                continue
            if line.startswith("calls="):
                after_call = True  # the next cost line is the call's inclusive cost: skip it
                continue
            if not line or line[0] not in "+-*0":
                continue
            fields = line.split()
            if len(fields) < 3:
                continue
            a = fields[0]
            if a.startswith("0x"):
                addr = int(a, 16)
            elif a[0] == "+":
                addr += int(a[1:])
            elif a[0] == "-":
                addr -= int(a[1:])
            if not after_call:
                # Trailing zero counts are left out of a line.
                costs[addr] += sum(int(fields[2 + c]) for c in columns if 2 + c < len(fields))
            after_call = False
    return costs


def inline_frames(binary, addrs):
    """For each address, its inline stack (innermost first) as (function, file:line) pairs."""
    out = subprocess.run(
        ["addr2line", "-a", "-i", "-f", "-C", "-e", binary] + [hex(a) for a in addrs],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    frames, cur, i = {}, None, 0
    while i < len(out):
        if re.fullmatch(r"0x[0-9a-f]+", out[i]):
            cur = int(out[i], 16)
            frames[cur] = []
            i += 1
        elif cur is not None and i + 1 < len(out):
            frames[cur].append((out[i], out[i + 1]))
            i += 2
        else:
            i += 1
    return frames


def ours(frame):
    """True for a frame in this repository's code (not the standard library or a dependency)."""
    return "/crates/" in frame[1] and "/rustc/" not in frame[1] and "/.cargo/" not in frame[1]


def label(frame, by):
    fn = frame[0].split("::")[-1]
    where = frame[1].rsplit("/", 1)[-1].split(" ")[0]
    if by == "file":
        return where.split(":")[0]
    if by == "function":
        return fn
    return f"{fn}@{where}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("callgrind_out")
    ap.add_argument("binary")
    ap.add_argument("--by", choices=["file", "function", "line"], default="file")
    ap.add_argument("--depth", type=int, default=0)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--event", default="Ir", help="event to count (Ir, D1mr, DLmr+DLmw, ...)")
    ap.add_argument("--minus", help="a shorter run's callgrind file, subtracted")
    ap.add_argument("--per", type=float, default=1e6, help="divide the costs by this")
    args = ap.parse_args()
    costs = instruction_costs(args.callgrind_out, args.event)
    if args.minus:
        costs.subtract(instruction_costs(args.minus, args.event))
    frames = inline_frames(args.binary, sorted(costs))
    totals = collections.Counter()
    for addr, cost in costs.items():
        stack = [f for f in frames.get(addr, []) if ours(f)]
        if not stack:
            totals["(outside this repository)"] += cost
            continue
        depth = args.depth if args.by == "line" else 0
        totals[" <- ".join(label(f, args.by) for f in stack[: depth + 1])] += cost
    grand = sum(totals.values())
    unit = " M" if args.per == 1e6 else ""
    print(f"{grand / args.per:10.2f}{unit} {args.event} in all")
    for key, cost in totals.most_common(args.top):
        print(f"{cost / args.per:10.2f}{unit} {100 * cost / grand:5.1f} %  {key}")


if __name__ == "__main__":
    sys.exit(main())
