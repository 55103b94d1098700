#!/usr/bin/env python3
"""Lists the functions of the scenario loader (crates/aqmlab-sim/src/scenario.rs, scenario/,
resolved.rs) with their length in lines, and those that no unit test names (issue 20: "small
resolve steps, each unit-tested").

    scripts/scenario-fns.py            # counts, the functions over 70 lines, the untested ones
    scripts/scenario-fns.py --all      # every function: file, line, length, named or not

How it counts:
- A function is a `fn NAME` line outside test code, its length from that line to its closing
  brace (braces in strings, characters and comments are skipped). Serde's trait methods
  (`deserialize`, `serialize`, `expecting`, `visit_*`) are left out of the counts.
- Test code is everything after `#[cfg(test)]` in a source file, and every file that a
  `#[cfg(test)]`-gated `#[path = "..."] mod tests;` loads (or `NAME/tests.rs`), anywhere under
  crates/aqmlab-sim/src.
- A function is "named" when its name occurs as a whole identifier in that test code (comments
  and strings left out), other than as a test's own `fn NAME`. This is by name: two functions of
  one name (e.g. trait methods) count as named together; a function reached only through
  another one a test calls counts as not named.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "crates/aqmlab-sim/src"
SERDE = {"deserialize", "serialize", "expecting"}
FN = re.compile(r"^\s*(?:pub(?:\([a-z]+\))?\s+)?(?:const\s+)?(?:unsafe\s+)?fn\s+([a-z_][a-z0-9_]*)")


def strip(text: str) -> str:
    """`text` with comments, strings and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif (m := re.match(r'b?r(#*)"', text[i:])) and (i == 0 or not text[i - 1].isalnum()):
            end = '"' + m.group(1)
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'" and (m := re.match(r"'(\\.[^']*|[^\\'])'", text[i:])):
            out.append(" " * m.end())
            i += m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_tests(path: Path) -> tuple[str, str]:
    """The file's code and its test code (stripped), and the test files it loads."""
    text = strip(path.read_text())
    at = text.find("#[cfg(test)]")
    return (text, "") if at < 0 else (text[:at], text[at:])


def test_files() -> set[Path]:
    """The files loaded as `mod tests` behind `#[cfg(test)]`."""
    found = set()
    for f in SRC.rglob("*.rs"):
        raw = f.read_text()
        for m in re.finditer(r'#\[cfg\(test\)\]\s*#\[path\s*=\s*"([^"]+)"\]\s*mod\s+\w+\s*;', raw):
            # A `#[path]` on a module declared in a non-mod.rs file is relative to the folder
            # named after that file.
            base = f.parent if f.name in ("mod.rs", "lib.rs") else f.parent / f.stem
            found.add((base / m.group(1)).resolve())
        for m in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+(\w+)\s*;", raw):
            base = f.parent if f.name in ("mod.rs", "lib.rs") else f.parent / f.stem
            found.add((base / f"{m.group(1)}.rs").resolve())
    return found


def functions(code: str) -> list[tuple[str, int, int]]:
    """(name, first line, length in lines) of each `fn` with a body in `code`."""
    lines = code.split("\n")
    found = []
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        depth, started = 0, False
        for j in range(i, len(lines)):
            for ch in lines[j]:
                if ch == "{":
                    depth += 1
                    started = True
                elif ch == "}":
                    depth -= 1
                elif ch == ";" and not started and depth == 0:
                    break  # a declaration without a body (a trait's)
            else:
                if started and depth == 0:
                    found.append((m.group(1), i + 1, j - i + 1))
                    break
                continue
            break
    return found


def main() -> None:
    show_all = "--all" in sys.argv[1:]
    tfiles = test_files()
    sources = [SRC / "scenario.rs", SRC / "resolved.rs"]
    sources += sorted(p for p in (SRC / "scenario").rglob("*.rs") if p.resolve() not in tfiles)
    test_code = []
    for f in SRC.rglob("*.rs"):
        if f.resolve() in tfiles:
            test_code.append(strip(f.read_text()))
        else:
            test_code.append(split_tests(f)[1])
    tests = "\n".join(test_code)
    # Test code's identifiers, without the names a test defines for itself.
    named = set(re.findall(r"\b[a-z_][a-z0-9_]*\b", re.sub(r"\bfn\s+[a-z_][a-z0-9_]*", "", tests)))
    rows = []
    for f in sources:
        code, _ = split_tests(f)
        for name, line, length in functions(code):
            if name in SERDE or name.startswith("visit_"):
                continue
            rows.append((str(f.relative_to(SRC)), line, name, length, name in named))
    if show_all:
        for f, line, name, length, ok in rows:
            print(f"{f}:{line}\t{name}\t{length}\t{'named' if ok else 'NOT NAMED'}")
        return
    untested = [r for r in rows if not r[4]]
    long = [r for r in rows if r[3] > 70]
    counts = f"over 70 lines: {len(long)}; named in no unit test: {len(untested)}"
    print(f"functions: {len(rows)}; {counts}")
    for f, line, name, length, _ in long:
        print(f"  long: {f}:{line} {name} ({length} lines)")
    for f, line, name, length, _ in untested:
        print(f"  not named: {f}:{line} {name} ({length} lines)")


if __name__ == "__main__":
    main()
