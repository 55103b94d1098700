//! The path of a `--set links[0].params.target=5ms` from the command line to CoDel's typed
//! configuration (issue 20: "a parameter given with `--set` crosses few functions"), as the
//! module doc of `crates/aqmlab-sim/src/scenario/disc_params.rs` lists it: each function on it
//! calls the next ones directly (so a function put in between, or a step moved behind another
//! caller, fails here), and the doc lists the same functions, in order, with their count.
//!
//! What this cannot see: a new function inside one of the listed ones' own work (it checks the
//! calls between them), which the doc's rule for counting still asks to list.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const SIM: &str = "crates/aqmlab-sim/src/scenario/";

/// One function on the path: its file, its name, and the calls it makes to the functions after
/// it on the path (as its source writes them).
struct Hop {
    file: &'static str,
    name: &'static str,
    calls: &'static [&'static str],
}

const fn hop(file: &'static str, name: &'static str, calls: &'static [&'static str]) -> Hop {
    Hop { file, name, calls }
}

/// The path, in the doc's order.
fn path() -> Vec<Hop> {
    vec![
        hop(
            "python/aqmlab/cli.py",
            "_cmd_run",
            &["_core.load_scenario("],
        ),
        hop(
            "crates/aqmlab-py/src/lib.rs",
            "load_scenario",
            &["scenario::resolve_with_edits("],
        ),
        hop(
            "crates/aqmlab-sim/src/scenario/resolve.rs",
            "resolve_with_edits",
            &["edit(", "read_topology(", "discipline("],
        ),
        hop("crates/aqmlab-sim/src/scenario/edits.rs", "edit", &[]),
        hop(
            "crates/aqmlab-sim/src/scenario/links.rs",
            "read_topology",
            &[],
        ),
        hop(
            "crates/aqmlab-sim/src/scenario/disc_params.rs",
            "discipline",
            &[
                "spec.read(",
                "Params::with_values(",
                "AnyConfig::from_params(",
            ],
        ),
        hop("crates/aqmlab-qdisc/src/params.rs", "read", &[]),
        hop("crates/aqmlab-qdisc/src/params.rs", "with_values", &[]),
        hop(
            "crates/aqmlab-qdisc/src/registry.rs",
            "from_params",
            &["codel_params_from("],
        ),
        hop("crates/aqmlab-qdisc/src/codel.rs", "codel_params_from", &[]),
    ]
}

/// The native loader's functions from `resolve_with_edits` on, as the path above lists them:
/// where the sweep's and the API's paths join it.
fn native_tail() -> Vec<Hop> {
    path().into_iter().skip(2).collect()
}

/// The path of a sweep's `--vary` value while the sweep is planned, as the module doc of
/// `python/aqmlab/sweepplan.py` lists it: the text as typed, to the native loader.
fn sweep_path() -> Vec<Hop> {
    let mut p = vec![
        hop(
            "python/aqmlab/cli.py",
            "_cmd_sweep",
            &["from_cli(", "run_sweep("],
        ),
        hop("python/aqmlab/sweepspec.py", "from_cli", &["_axis_values("]),
        hop("python/aqmlab/sweepspec.py", "_axis_values", &[]),
        hop("python/aqmlab/sweep.py", "run_sweep", &["plan("]),
        hop(
            "python/aqmlab/sweepplan.py",
            "plan",
            &["_core.resolve_scenario("],
        ),
        hop(
            "crates/aqmlab-py/src/lib.rs",
            "resolve_scenario",
            &["scenario::resolve_with_edits("],
        ),
    ];
    p.extend(native_tail());
    p
}

/// The path of a `set` value of the Python API (`aqmlab.run`), as the module doc of
/// `python/aqmlab/run.py` lists it: written once as TOML, to the native loader.
fn api_path() -> Vec<Hop> {
    let mut p = vec![
        hop("python/aqmlab/run.py", "run", &["load("]),
        hop(
            "python/aqmlab/run.py",
            "load",
            &["_toml_value(", "_core.load_scenario("],
        ),
        hop("python/aqmlab/run.py", "_toml_value", &[]),
        hop(
            "crates/aqmlab-py/src/lib.rs",
            "load_scenario",
            &["scenario::resolve_with_edits("],
        ),
    ];
    p.extend(native_tail());
    p
}

/// The functions cut from the path (issue 20), by file: none of them is defined again outside
/// the file's tests.
const GONE: &[(&str, &str)] = &[
    ("crates/aqmlab-sim/src/scenario/edits.rs", "set_in"),
    ("crates/aqmlab-sim/src/scenario/resolve.rs", "parse"),
    // Between `resolve_with_edits` (which handed it the edited text) and the topology's steps.
    (
        "crates/aqmlab-sim/src/scenario/resolve.rs",
        "resolve_expanded",
    ),
    // `CodelConfig::from_params`.
    ("crates/aqmlab-qdisc/src/codel.rs", "from_params"),
    // Read each value when the link directions were made, and handed it to `direction`, which
    // gave it to `with_values`: now one step, `discipline`.
    (
        "crates/aqmlab-sim/src/scenario/disc_params.rs",
        "disc_params",
    ),
    // The sweep's and the API's: the Python API between a sweep and the native loader
    // (`_native_args`), the sweep's own steps (`_plan_points`, `split_point`) and its splits
    // (`_pair`, `_values`: now `_axis_values`).
    ("python/aqmlab/run.py", "_native_args"),
    ("python/aqmlab/sweep.py", "_plan_points"),
    ("python/aqmlab/sweepplan.py", "_plan_points"),
    ("python/aqmlab/sweepspec.py", "split_point"),
    ("python/aqmlab/sweepspec.py", "_pair"),
    ("python/aqmlab/sweepspec.py", "_values"),
    // The sweep's split at the commas (now in `_axis_values`) and its pairs for the loader
    // (now made in `plan`).
    ("python/aqmlab/sweepspec.py", "split_values"),
    ("python/aqmlab/sweepspec.py", "overrides"),
];

/// What a function on the path must not do to the value on its way: `(file, function, text)`.
/// The CLI hands the `--set` strings to the native loader as typed, not through the Python API
/// (`load`, `_native_args`, `_toml_value`) nor split first (`_pairs`, `TomlText`).
const NOT_ON_THE_WAY: &[(&str, &str, &str)] = &[
    // The direction takes the checked table only: it neither reads a value, nor hands the
    // values on to be checked, nor goes through the discipline's step.
    (
        "crates/aqmlab-sim/src/scenario/links.rs",
        "direction",
        "discipline(",
    ),
    (
        "crates/aqmlab-sim/src/scenario/links.rs",
        "direction",
        "with_values(",
    ),
    (
        "crates/aqmlab-sim/src/scenario/links.rs",
        "direction",
        "read(",
    ),
    // The disciplines and the keys they keep are known before the flows: no value read then.
    (
        "crates/aqmlab-sim/src/scenario/disc_params.rs",
        "disc_of",
        "read(",
    ),
    ("python/aqmlab/cli.py", "_cmd_run", "_pairs(a.set"),
    ("python/aqmlab/cli.py", "_cmd_run", "TomlText("),
    ("python/aqmlab/cli.py", "_cmd_run", "load("),
    ("python/aqmlab/cli.py", "_cmd_run", "_native_args("),
    ("python/aqmlab/cli.py", "_cmd_run", "_toml_value("),
    // A sweep hands its values to the native loader, not through the Python API (`resolve`,
    // `run`, `load`), and reads no command-line value as TOML on the way (`literal` gives the
    // results table's value only: it is no argument of the loader).
    ("python/aqmlab/sweepplan.py", "plan", "resolve("),
    ("python/aqmlab/sweep.py", "execute", "run("),
    ("python/aqmlab/sweep.py", "execute", "load("),
    ("python/aqmlab/sweep.py", "execute", "_toml_value("),
    // A run the cache lacks is built from the resolved scenario planning keyed: its worker
    // resolves no value again, nor makes the provenance planning made.
    ("python/aqmlab/sweep.py", "execute", "scenario_arg("),
    ("python/aqmlab/sweep.py", "execute", "provenance_of("),
    ("python/aqmlab/sweepplan.py", "plan", "literal("),
    ("python/aqmlab/sweepplan.py", "plan", "_toml_loads("),
    ("python/aqmlab/sweepspec.py", "_axis_values", "literal("),
];

/// Where function `name` is defined in `text` (of `file`, its tests cut off): the offsets of
/// its `fn`/`def` lines.
fn heads(file: &str, text: &str, name: &str) -> Vec<usize> {
    let python = file.ends_with(".py");
    text.match_indices(&format!("{} {name}", if python { "def" } else { "fn" }))
        .map(|(i, _)| i)
        .filter(|&i| {
            let after = text[i..].split_once(name).unwrap().1;
            let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
            (after.starts_with('(') || after.starts_with('<'))
                && text[line_start..i]
                    .split_whitespace()
                    .all(|w| ["pub", "pub(super)", "pub(crate)", "const"].contains(&w))
        })
        .collect()
}

/// The source of the one function `name` of `text` (outside its tests): from its `fn`/`def`
/// line to the end of its body.
fn body<'a>(file: &str, text: &'a str, name: &str) -> &'a str {
    let python = file.ends_with(".py");
    let text = text.split("#[cfg(test)]").next().unwrap();
    let heads = heads(file, text, name);
    assert_eq!(heads.len(), 1, "{file}: {name} is defined once");
    let start = text[..heads[0]].rfind('\n').map_or(0, |n| n + 1);
    let indent = text[start..].len() - text[start..].trim_start().len();
    // The body ends at the first line back at the definition's indentation (Python: a line
    // there that is not the signature's closing parenthesis; Rust: the closing brace).
    let mut end = text.len();
    let mut at = start + text[start..].find('\n').unwrap() + 1;
    while at < text.len() {
        let line = text[at..].split('\n').next().unwrap();
        let ind = line.len() - line.trim_start().len();
        let t = line.trim_start();
        let ends = if python {
            !t.is_empty() && ind <= indent && !t.starts_with(')')
        } else {
            ind == indent && t.starts_with('}')
        };
        if ends {
            end = at + if python { 0 } else { line.len() };
            break;
        }
        at += line.len() + 1;
    }
    &text[start..end]
}

/// Whether `src` calls `call` (a name followed by `(`, not the tail of a longer name).
fn calls(src: &str, call: &str) -> bool {
    src.match_indices(call).any(|(i, _)| {
        src[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
    })
}

#[test]
fn each_function_on_the_path_calls_the_next_ones_directly() {
    for path in [path(), sweep_path(), api_path()] {
        calls_in_order(&path);
    }
}

/// Each function on `path` calls the next ones it names, and is called by one before it.
fn calls_in_order(path: &[Hop]) {
    let mut called = vec![path[0].name];
    for (i, h) in path.iter().enumerate() {
        let text = std::fs::read_to_string(root().join(h.file)).unwrap();
        let src = body(h.file, &text, h.name);
        for c in h.calls {
            assert!(calls(src, c), "{}: {} does not call {c}", h.file, h.name);
            called.push(c.rsplit(['.', ':']).next().unwrap().trim_end_matches('('));
        }
        // Each function is reached from one before it: the list is one path, in order.
        assert!(
            called.contains(&h.name),
            "{} (#{}) is called by none before it",
            h.name,
            i + 1
        );
    }
}

#[test]
fn the_module_doc_lists_the_path() {
    let text = std::fs::read_to_string(root().join(SIM).join("disc_params.rs")).unwrap();
    // "//! N. `FILE` `FUNCTION` ...": the files' and functions' names, in order.
    let listed: Vec<(usize, String, String)> = text
        .lines()
        .filter_map(|l| {
            let l = l.strip_prefix("//! ")?;
            let (n, rest) = l.split_once(". `")?;
            let n: usize = n.parse().ok()?;
            let (file, rest) = rest.split_once("` `")?;
            let (name, _) = rest.split_once('`')?;
            Some((n, file.to_string(), name.to_string()))
        })
        .collect();
    let path = path();
    let want: Vec<(usize, String, String)> = path
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let file = h.file.rsplit('/').next().unwrap().to_string();
            (i + 1, file, h.name.to_string())
        })
        .collect();
    assert_eq!(listed, want);
    assert!(
        text.contains(&format!(": {} functions, each handing", path.len())),
        "the doc's count"
    );
}

/// The numbered list `N. `FILE` `FUNCTION`` of the Python module doc of `file` (its lines from
/// the first "1. `" to the first blank line after it).
fn python_doc_list(file: &str) -> Vec<(usize, String, String)> {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let doc = text.split("\"\"\"").nth(1).unwrap();
    let start = doc.find("\n1. `").expect("a numbered list") + 1;
    let list = doc[start..].split("\n\n").next().unwrap();
    list.lines()
        .filter_map(|l| {
            let (n, rest) = l.split_once(". `")?;
            let n: usize = n.parse().ok()?;
            let (file, rest) = rest.split_once("` `")?;
            let (name, _) = rest.split_once('`')?;
            Some((n, file.to_string(), name.to_string()))
        })
        .collect()
}

#[test]
fn the_sweeps_and_the_apis_docs_list_their_paths() {
    for (doc, path, total) in [
        (
            "python/aqmlab/sweepplan.py",
            sweep_path(),
            "Planning (the key), 14 functions",
        ),
        (
            "python/aqmlab/run.py",
            api_path(),
            "counts ``aqmlab run --set``'s: 12 functions",
        ),
    ] {
        let own = path.len() - native_tail().len();
        let want: Vec<(usize, String, String)> = path
            .iter()
            .take(own)
            .enumerate()
            .map(|(i, h)| {
                let file = h.file.rsplit('/').next().unwrap().to_string();
                (i + 1, file, h.name.to_string())
            })
            .collect();
        assert_eq!(python_doc_list(doc), want, "{doc}");
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(total), "{doc}: the count");
        assert_eq!(
            total.rsplit(' ').nth(1).unwrap().parse::<usize>().unwrap(),
            path.len(),
            "{doc}: the count is the list's"
        );
    }
}

#[test]
fn the_functions_cut_from_the_path_stay_off_it() {
    for (file, name) in GONE {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let text = text.split("#[cfg(test)]").next().unwrap();
        assert!(
            heads(file, text, name).is_empty(),
            "{file}: {name} is back (issue 20 cut it from the --set path)"
        );
    }
    for (file, name, text) in NOT_ON_THE_WAY {
        let src = std::fs::read_to_string(root().join(file)).unwrap();
        assert!(
            !calls(body(file, &src, name), text),
            "{file}: {name} has {text} again (issue 20 cut it from the --set path)"
        );
    }
    // The sweep's runs are built from the resolved scenario planning keyed, loaded with no
    // edit and no override (the pairs planning gave the loader are not handed on to them).
    let sweep = std::fs::read_to_string(root().join("python/aqmlab/sweep.py")).unwrap();
    let planning = std::fs::read_to_string(root().join("python/aqmlab/sweepplan.py")).unwrap();
    assert!(body("python/aqmlab/sweep.py", &sweep, "execute")
        .contains("_core.load_scenario(task.path, text=resolved, warn=False)"));
    for (file, text) in [
        ("python/aqmlab/sweep.py", &sweep),
        ("python/aqmlab/sweepplan.py", &planning),
    ] {
        assert!(
            !text.contains("loader_sets:") && !text.contains("task.loader_sets"),
            "{file}: a task carries the loader's pairs again"
        );
    }
    // Planning writes as TOML only a value the command line did not give (a sweep file's, the
    // API's): the command line's go to the loader as typed.
    assert!(body("python/aqmlab/sweepplan.py", &planning, "plan")
        .contains("_toml_value(v, f\"{named.get(k, 'set')}: {k}\") if text is None else text"));
    // The command line's values go to the loader as typed (`literal` reads them for the table).
    let spec = std::fs::read_to_string(root().join("python/aqmlab/sweepspec.py")).unwrap();
    assert!(body("python/aqmlab/sweepspec.py", &spec, "from_cli")
        .contains("texts=[(x,) for x in vals]"));
    // The CLI gives the strings as typed.
    let cli = std::fs::read_to_string(root().join("python/aqmlab/cli.py")).unwrap();
    assert!(body("python/aqmlab/cli.py", &cli, "_cmd_run").contains("set_args=a.set,"));
}
