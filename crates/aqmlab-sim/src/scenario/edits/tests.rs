use super::*;
use crate::scenario::{build_with_edits, build_with_sets, resolve_with_edits};
use std::path::Path;

const FILE: &str = "duration = \"1s\"\n\
        # a comment\n\
        [dumbbell.bottleneck]\n\
        rate = \"10Mbps\"\n\
        params = { target = \"5ms\" }\n\
        [[flows]]\n\
        kind = \"udp\"\n\
        from = \"a\"\n\
        [[flows]]\n\
        kind = \"tcp\"\n\
        count = 2\n\
        from = [\"a\", \"b\"]\n\
        [[flows]]\n\
        kind = \"tcp\"\n\
        to = \"x\"\n";

fn sets(s: &[(&str, &str)]) -> Vec<(String, String)> {
    s.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The edited line holding `needle` and its origin.
fn origin_of_text(ed: &Edited<'_>, needle: &str) -> Origin {
    let l = ed
        .text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in\n{}", ed.text));
    ed.origins()[l]
}

#[test]
fn the_origin_map_names_the_files_line_or_the_set() {
    let s = sets(&[
        ("dumbbell.bottleneck.delay", "5ms"),
        ("dumbbell.bottleneck.rate", "20Mbps"),
        ("seed", "7"),
    ]);
    let unsets = ["flows[0]".to_string()];
    let ed = edit(FILE, "t.toml", &unsets, &s, &[], true).unwrap();
    // Lines a --set inserted (or rewrote) are the set's.
    assert_eq!(origin_of_text(&ed, "delay = \"5ms\""), Origin::Set(0));
    assert_eq!(origin_of_text(&ed, "rate = \"20Mbps\""), Origin::Set(1));
    assert_eq!(origin_of_text(&ed, "seed = 7"), Origin::Set(2));
    // Untouched lines are the file's, though lines were inserted before them and flows[0]
    // removed: the last flow (flows[1] after the removal and the expansion of the counted
    // one into two) is line 15 of the file.
    assert_eq!(origin_of_text(&ed, "params ="), Origin::File(5));
    assert_eq!(origin_of_text(&ed, "to = \"x\""), Origin::File(15));
    // The instances of a counted flow have no single line.
    assert_eq!(origin_of_text(&ed, "from = \"b\""), Origin::None);
    // Counterfactual: without edits every line is its own.
    let plain = edit(FILE, "t.toml", &[], &[], &[], false).unwrap();
    assert!(!plain.changed());
    assert_eq!(plain.origins()[14], Origin::File(15));
}

#[test]
fn blame_says_an_error_about_the_file_as_written() {
    let s = sets(&[("dumbbell.bottleneck.delay", "10")]);
    let unsets = ["flows[0]".to_string()];
    let ed = edit(FILE, "t.toml", &unsets, &s, &[], true).unwrap();
    let line_of = |needle: &str| ed.text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let err = |line: usize, path: &str| ScenarioError {
        file: "t.toml".into(),
        line: Some(line),
        path: path.into(),
        msg: "bad".into(),
    };
    // The last flow: edited flows[2] (after removal and expansion), flows[2] of the file.
    let e = ed.blame(err(line_of("to = \"x\""), "flows[2].to"));
    assert_eq!(e.to_string(), "t.toml:15: flows[1].to: bad");
    // An instance of the counted flow.
    let e = ed.blame(err(line_of("from = \"b\""), "flows[1].from"));
    assert_eq!(
        e.to_string(),
        "t.toml: flows[0] (flow 2 of count = 2).from: bad"
    );
    // A key the --set wrote.
    let e = ed.blame(err(line_of("delay = 10"), "dumbbell.bottleneck.delay"));
    assert_eq!(
        e.to_string(),
        "t.toml: --set dumbbell.bottleneck.delay=10: bad"
    );
}

#[test]
fn a_count_error_names_the_files_line_after_an_unset() {
    let bad = FILE.replace("count = 2", "count = 0");
    let unsets = ["flows[0]".to_string()];
    let e = edit(&bad, "t.toml", &unsets, &[], &[], true).err().unwrap();
    // flows[0] of the edited document, line 11 of the file.
    assert_eq!(
        e.to_string(),
        "t.toml:11: flows[0].count: expected a number of flows from 1 to 100000, got 0"
    );
    let s = sets(&[("flows[1].count", "0")]);
    let e = edit(FILE, "t.toml", &[], &s, &[], true).err().unwrap();
    assert!(
        e.to_string()
            .starts_with("t.toml: --set flows[1].count=0: expected a number"),
        "{e}"
    );
}

/// The `[[flows]]` tables of TOML `text`.
fn flow_tables(text: &str) -> toml_edit::ArrayOfTables {
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    doc["flows"].as_array_of_tables().unwrap().clone()
}

#[test]
fn the_total_counts_each_valid_count_and_one_for_any_other_table() {
    let f = flow_tables(
        "[[flows]]\nkind = \"udp\"\n[[flows]]\ncount = 3\n[[flows]]\ncount = 0\n\
             [[flows]]\ncount = \"x\"\n[[flows]]\ncount = 100000\n",
    );
    // 1 (no count) + 3 + 1 (0 is refused later) + 1 (not a number) + 100 000.
    assert_eq!(flow_total(&f), 100_006);
}

#[test]
fn a_count_is_a_number_from_1_to_the_most_flows() {
    let f = flow_tables("[[flows]]\ncount = 4\n[[flows]]\ncount = 0\n[[flows]]\ncount = 1.5\n");
    assert_eq!(count_of(&f.get(0).unwrap()["count"]), Ok(4));
    assert_eq!(
        count_of(&f.get(1).unwrap()["count"]),
        Err("expected a number of flows from 1 to 100000, got 0".to_string())
    );
    assert_eq!(
        count_of(&f.get(2).unwrap()["count"]),
        Err("expected a number of flows from 1 to 100000, got 1.5".to_string())
    );
}

#[test]
fn per_flow_lists_must_have_one_value_per_flow() {
    let f = flow_tables(
        "[[flows]]\ncount = 2\nfrom = \"a\"\nladder = [\"1Mbps\", \"2Mbps\"]\n\
             [[flows]]\ncount = 2\nfrom = [\"a\", \"b\"]\n\
             [[flows]]\ncount = 2\nto = \"x\"\nfrom = [\"a\", \"b\", \"c\"]\n",
    );
    // A ladder (a list itself) is per flow only as a list of lists.
    assert_eq!(has_lists(f.get(0).unwrap(), 2), Ok(false));
    assert_eq!(has_lists(f.get(1).unwrap(), 2), Ok(true));
    assert_eq!(
        has_lists(f.get(2).unwrap(), 2),
        Err((
            "from",
            "expected one value, or a list of 2 (one per flow of count = 2), got 3 values"
                .to_string()
        ))
    );
}

#[test]
fn a_stamped_table_drops_only_its_count_and_an_instance_takes_its_values() {
    let f =
        flow_tables("[[flows]]\nname = \"g\"\ncount = 2\nkind = \"tcp\"\nfrom = [\"a\", \"b\"]\n");
    let t = f.get(0).unwrap();
    let keys = |t: &toml_edit::Table| {
        t.iter()
            .map(|(k, v)| format!("{k}={}", v.to_string().trim()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        keys(&stamped(t)),
        ["name=\"g\"", "kind=\"tcp\"", "from=[\"a\", \"b\"]"]
    );
    assert_eq!(
        keys(&instance(t, 0)),
        ["name=\"g-1\"", "kind=\"tcp\"", "from=\"a\""]
    );
    assert_eq!(
        keys(&instance(t, 1)),
        ["name=\"g-2\"", "kind=\"tcp\"", "from=\"b\""]
    );
}

#[test]
fn one_document_takes_unsets_sets_and_counts() {
    let s = sets(&[("flows[0].kind", "tcp")]);
    let unsets = ["duration".to_string()];
    let ed = edit(FILE, "t.toml", &unsets, &s, &[], true).unwrap();
    let doc: toml::Table = ed.text.parse().unwrap();
    assert!(!doc.contains_key("duration"));
    let flows = doc["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 4);
    assert_eq!(flows[0]["kind"].as_str(), Some("tcp"));
    assert_eq!(flows[2]["from"].as_str(), Some("b"));
    assert!(flows.iter().all(|f| f.get("count").is_none()));
}

#[test]
fn a_count_expands_a_multi_line_array() {
    // red-vs-codel writes its 100 senders as an array over several lines; each element
    // keeps its line break as decor, which must not reach the expanded `from = ...`.
    let text = "[[flows]]\nkind = \"tcp\"\ncount = 3\nfrom = [\n    \"a\", \"b\",\n    \"c\",\n]\n";
    let ed = edit(text, "t.toml", &[], &[], &[], true).unwrap();
    let doc: toml::Table = ed
        .text
        .parse()
        .unwrap_or_else(|e| panic!("{e}\n{}", ed.text));
    let from: Vec<_> = doc["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["from"].as_str().unwrap())
        .collect();
    assert_eq!(from, ["a", "b", "c"]);
}

#[test]
fn an_error_in_a_varied_key_names_the_vary() {
    let text = "duration = \"1s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nname = \"l\"\n\
            from = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";
    let sets = vec![
        ("links[0].qdiscc".to_string(), "codel".to_string()),
        ("links[0].delay".to_string(), "2ms".to_string()),
    ];
    let err = |varied: &[&str]| {
        let ov = Overrides {
            varied: varied
                .iter()
                .map(|k| (k.to_string(), "--vary".to_string()))
                .collect(),
            ..Overrides::default()
        };
        resolve_with_edits(text, "t.toml", Path::new(""), "t", &[], &sets, &ov)
            .err()
            .unwrap()
    };
    // A typo in a key the sweep varies names the --vary the user wrote.
    let e = err(&["links[0].qdiscc"]);
    assert_eq!(e.path, "--vary links[0].qdiscc=codel", "{e}");
    // A fixed edit, or a sweep varying another key, still names the --set.
    assert_eq!(err(&[]).path, "--set links[0].qdiscc=codel");
    assert_eq!(err(&["links[0].delay"]).path, "--set links[0].qdiscc=codel");
    // A key path that cannot be read names the --vary too.
    let bad = vec![("links[x]".to_string(), "1".to_string())];
    let ov = Overrides {
        varied: vec![("links[x]".into(), "--vary".into())],
        ..Overrides::default()
    };
    let e = resolve_with_edits(text, "t.toml", Path::new(""), "t", &[], &bad, &ov)
        .err()
        .unwrap();
    assert!(e.path.starts_with("--vary links[x]"), "{e}");
}

#[test]
fn the_document_is_none_only_for_a_syntax_error_without_edits() {
    let d = document("a = 1\n", "t.toml", true).unwrap().unwrap();
    assert_eq!(d.to_string(), "a = 1\n");
    assert!(document("a = \n", "t.toml", false).unwrap().is_none());
    let e = document("a = \n", "t.toml", true).err().unwrap();
    assert_eq!((e.file.as_str(), e.line), ("t.toml", Some(1)));
}

#[test]
fn the_unset_pass_removes_each_key_in_order_and_names_a_missing_one() {
    let mut doc: toml_edit::DocumentMut =
        "a = 1\nx = [1, 2, 3]\n[b]\nc = 2\nd = 3\n".parse().unwrap();
    let keys = ["b.c".to_string(), "x[0]".to_string(), "a".to_string()];
    let paths = unset_keys(&mut doc, "t.toml", &keys).unwrap();
    assert_eq!(doc.to_string(), "x = [ 2, 3]\n[b]\nd = 3\n");
    let k = |s: &str| Seg::Key(s.to_string());
    assert_eq!(
        paths,
        [
            vec![k("b"), k("c")],
            vec![k("x"), Seg::Index(0)],
            vec![k("a")]
        ]
    );
    let e = unset_keys(&mut doc, "t.toml", &["b.c".to_string()])
        .err()
        .unwrap();
    assert_eq!(
        (e.path.as_str(), e.msg.as_str(), e.line),
        ("--unset b.c", "no such key in the scenario", None)
    );
}

#[test]
fn the_walk_makes_missing_tables_and_says_where_the_value_goes() {
    let bad = |msg: String| ScenarioError {
        file: "t.toml".into(),
        line: None,
        path: "--set".into(),
        msg,
    };
    let path = |p: &str| key_path(p, &bad, true).unwrap();
    let mut doc: toml_edit::DocumentMut =
        "x = [1, 2]\n[[flows]]\nkind = \"udp\"\n".parse().unwrap();
    // Missing tables are made (inline) on the way; the place is the last key.
    let p = path("a.b.c");
    match place(&mut doc, &p, &bad).unwrap() {
        Place::Key(t, key) => {
            assert_eq!(key, "c");
            assert!(t.is_empty());
            t.insert(key, toml_edit::value(5));
        }
        Place::Element(..) => panic!("a key, not an element"),
    }
    let p = path("x[1]");
    match place(&mut doc, &p, &bad).unwrap() {
        Place::Element(arr, i) => {
            assert_eq!((arr.len(), i), (2, 1));
            arr.replace(i, 7);
        }
        Place::Key(..) => panic!("an element, not a key"),
    }
    let p = path("flows[0].kind");
    match place(&mut doc, &p, &bad).unwrap() {
        Place::Key(t, key) => {
            assert_eq!(key, "kind");
            assert_eq!(t.get(key).unwrap().as_str(), Some("udp"));
        }
        Place::Element(..) => panic!("a key, not an element"),
    }
    assert_eq!(
        doc.to_string(),
        "x = [1, 7]\na = { b = { c = 5 } }\n[[flows]]\nkind = \"udp\"\n"
    );
    let err = |p: &str, doc: &mut toml_edit::DocumentMut| {
        let p = path(p);
        place(doc, &p, &bad).err().unwrap().msg
    };
    assert_eq!(err("x[2]", &mut doc), "x has 2 elements, no [2]");
    assert_eq!(
        err("flows[1].kind", &mut doc),
        "flows has 1 elements, no [1]"
    );
    assert_eq!(
        err("flows[0]", &mut doc),
        "flows[0] is a table: set one of its keys instead"
    );
    assert_eq!(err("x[0].y", &mut doc), "x is not an array of tables");
    assert_eq!(err("a.b.c.d", &mut doc), "c is not a table");
    // A failed walk edits nothing.
    assert_eq!(
        doc.to_string(),
        "x = [1, 7]\na = { b = { c = 5 } }\n[[flows]]\nkind = \"udp\"\n"
    );
}

/// `expand_counts` on the document of `text` (read with no edits): its expansion as
/// `(flows, tables, stamps)`, and the `[[flows]]` tables it leaves, one line each.
#[allow(clippy::type_complexity)]
fn expanded(
    text: &str,
) -> Result<Option<(FlowOrigins, FlowOrigins, Vec<Option<usize>>, Vec<String>)>, String> {
    let ed = edit(text, "t.toml", &[], &[], &[], false).unwrap();
    let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
    let x = ed.expand_counts(&mut doc).map_err(|e| e.to_string())?;
    Ok(x.map(|x| {
        let tables = doc["flows"]
            .as_array_of_tables()
            .unwrap()
            .iter()
            .map(|t| {
                t.iter()
                    .map(|(k, v)| format!("{k}={}", v.to_string().trim()))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        (x.flows, x.tables, x.stamps, tables)
    }))
}

#[test]
fn expand_counts_stamps_a_plain_table_and_writes_out_one_with_lists() {
    // Nothing to expand: no flows, or no flow with a count.
    assert!(expanded("duration = \"1s\"\n").unwrap().is_none());
    assert!(expanded("[[flows]]\nkind = \"udp\"\n").unwrap().is_none());
    let (flows, tables, stamps, out) = expanded(
        "[[flows]]\nkind = \"udp\"\n\
             [[flows]]\ncount = 3\nkind = \"tcp\"\n\
             [[flows]]\ncount = 2\nfrom = [\"a\", \"b\"]\n",
    )
    .unwrap()
    .unwrap();
    // By flow: the plain table, the stamped table's 3 flows, the listed table's 2.
    assert_eq!(
        flows,
        [
            (0, 0, 1),
            (1, 0, 3),
            (1, 1, 3),
            (1, 2, 3),
            (2, 0, 2),
            (2, 1, 2)
        ]
    );
    // By table of the edited document: the stamped table once, each instance once.
    assert_eq!(tables, [(0, 0, 1), (1, 0, 3), (2, 0, 2), (2, 1, 2)]);
    assert_eq!(stamps, [None, Some(3), None, None]);
    assert_eq!(
        out,
        ["kind=\"udp\"", "kind=\"tcp\"", "from=\"a\"", "from=\"b\""]
    );
}

#[test]
fn expand_counts_checks_the_total_then_each_count_and_list() {
    let big = "[[flows]]\ncount = 100000\n[[flows]]\nkind = \"udp\"\n";
    assert_eq!(
        expanded(big).err().unwrap(),
        "t.toml: flows: expected at most 100000 flows, got 100001 (counts included)"
    );
    let zero = "[[flows]]\nkind = \"udp\"\n[[flows]]\nkind = \"tcp\"\ncount = 0\n";
    assert_eq!(
        expanded(zero).err().unwrap(),
        "t.toml:5: flows[1].count: expected a number of flows from 1 to 100000, got 0"
    );
    let short = "[[flows]]\ncount = 2\nfrom = [\"a\"]\n";
    assert_eq!(
        expanded(short).err().unwrap(),
        "t.toml:3: flows[0].from: expected one value, or a list of 2 (one per flow of \
             count = 2), got 1 values"
    );
}

/// `unset_in` of `path` on the document `text`: the document after, or the error's text.
fn unset_text(text: &str, path: &[Seg]) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
    let missing = || ScenarioError {
        file: "t.toml".into(),
        line: None,
        path: "--unset k".into(),
        msg: "missing".into(),
    };
    unset_in(doc.as_table_mut(), path, &missing).map_err(|e| e.to_string())?;
    Ok(doc.to_string())
}

#[test]
fn unset_in_removes_a_key_an_element_or_a_key_below_them() {
    let k = |s: &str| Seg::Key(s.into());
    let text = "seed = 1\nsteps = [1, 2, 3]\n[a.b]\nc = 1\nd = 2\n\
                    [[flows]]\nx = 1\n[[flows]]\nx = 2\ny = 3\n";
    let missing = Err("t.toml: --unset k: missing".to_string());
    // A key of the top table, of a nested table, of an array's table.
    let out = unset_text(text, &[k("seed")]).unwrap();
    assert!(!out.contains("seed") && out.contains("steps"), "{out}");
    let out = unset_text(text, &[k("a"), k("b"), k("c")]).unwrap();
    assert!(out.contains("[a.b]\nd = 2\n"), "{out}");
    let out = unset_text(text, &[k("flows"), Seg::Index(1), k("y")]).unwrap();
    assert!(out.ends_with("[[flows]]\nx = 2\n"), "{out}");
    // An element of an array of tables, or of an array of values.
    let out = unset_text(text, &[k("flows"), Seg::Index(0)]).unwrap();
    assert!(out.ends_with("[[flows]]\nx = 2\ny = 3\n"), "{out}");
    assert_eq!(out.matches("[[flows]]").count(), 1, "{out}");
    let out = unset_text(text, &[k("steps"), Seg::Index(1)]).unwrap();
    assert!(out.contains("steps = [1, 3]"), "{out}");
    // Anything not there is the caller's error.
    assert_eq!(unset_text(text, &[k("nope")]), missing);
    assert_eq!(unset_text(text, &[k("a"), k("x"), k("c")]), missing);
    assert_eq!(unset_text(text, &[k("steps"), Seg::Index(3)]), missing);
    assert_eq!(unset_text(text, &[k("flows"), Seg::Index(2)]), missing);
    assert_eq!(unset_text(text, &[k("seed"), Seg::Index(0)]), missing);
    assert_eq!(
        unset_text(text, &[k("flows"), Seg::Index(2), k("x")]),
        missing
    );
    assert_eq!(
        unset_text(text, &[k("steps"), Seg::Index(0), k("x")]),
        missing
    );
    assert_eq!(unset_text(text, &[Seg::Index(0)]), missing);
}

#[test]
fn path_text_writes_keys_with_dots_and_indices_in_brackets() {
    let k = |s: &str| Seg::Key(s.into());
    assert_eq!(path_text(&[]), "");
    assert_eq!(path_text(&[k("seed")]), "seed");
    assert_eq!(
        path_text(&[k("flows"), Seg::Index(2), k("app"), k("rate")]),
        "flows[2].app.rate"
    );
    assert_eq!(
        path_text(&[k("s"), Seg::Index(0), Seg::Index(1)]),
        "s[0][1]"
    );
}

#[test]
fn set_flag_is_the_option_that_varies_the_key_else_set() {
    let varied = sets(&[("seed", "--vary"), ("flows[0].rate", "--vary-rate")]);
    assert_eq!(set_flag("seed", &varied), "--vary");
    assert_eq!(set_flag("flows[0].rate", &varied), "--vary-rate");
    assert_eq!(set_flag("flows[0]", &varied), "--set");
    assert_eq!(set_flag("seed", &[]), "--set");
}

#[test]
fn a_flows_header_is_the_array_of_tables_with_spaces_and_a_comment_allowed() {
    assert!(is_flows_header("[[flows]]"));
    assert!(is_flows_header("  [[ flows ]]  # the next one"));
    assert!(!is_flows_header("[flows]"));
    assert!(!is_flows_header("[[flows.x]]"));
    assert!(!is_flows_header("[[flowsx]]"));
    assert!(!is_flows_header("[[flows]] x = 1"));
    assert!(!is_flows_header("# [[flows]]"));
}

/// More `[[flows]]` tables than [`MAX_FLOWS`] are refused before the text is read; as many are
/// not.
#[test]
fn refuse_flow_tables_counts_the_headers() {
    let text = "[[flows]]\n".repeat(MAX_FLOWS);
    assert!(refuse_flow_tables(&text, "t.toml").is_ok());
    let text = format!("{text}[[ flows ]] # one more\n");
    let e = refuse_flow_tables(&text, "t.toml").unwrap_err();
    assert_eq!((e.line, e.path.as_str()), (None, "flows"));
    assert_eq!(
        e.msg,
        format!("expected at most {MAX_FLOWS} flows, got {}", MAX_FLOWS + 1)
    );
}

/// The `--set` keys of a discipline's parameters (or its whole table) are added to the
/// overrides' `set_params`, after the ones there; the others are not, and no `--set` borrows.
#[test]
fn with_set_params_adds_the_params_keys() {
    let ov = Overrides {
        set_params: vec!["x.params".into()],
        ..Default::default()
    };
    assert!(matches!(with_set_params(&ov, &[]), Cow::Borrowed(_)));
    let sets = [
        ("links[0].params.target".to_string(), "5ms".to_string()),
        ("links[0].rate".into(), "1Mbps".into()),
        ("dumbbell.bottleneck.params".into(), "{}".into()),
        ("a.paramsx".into(), "1".into()),
    ];
    assert_eq!(
        with_set_params(&ov, &sets).set_params,
        [
            "x.params",
            "links[0].params.target",
            "dumbbell.bottleneck.params"
        ]
    );
}

#[test]
fn an_error_is_the_sets_when_its_key_is_at_or_under_the_set_key_or_names_it() {
    let err = |path: &str, msg: &str| ScenarioError {
        file: "t.toml".into(),
        line: Some(4),
        path: path.into(),
        msg: msg.into(),
    };
    let s = sets(&[("links[0].params.target", "7"), ("flows[1]", "{}")]);
    let shown = |e: ScenarioError, varied: &[(String, String)]| {
        let (e, by) = attribute_to_set(e, &s, varied);
        (e.to_string(), by)
    };
    // The set key itself: its message, with the file's hint about quotes said for a --set.
    assert_eq!(
        shown(
            err(
                "links[0].params.target",
                "expected a time (write values with units in quotes, like \"5ms\")"
            ),
            &[]
        ),
        (
            "t.toml: --set links[0].params.target=7: expected a time (give a unit where one \
             belongs, like 20ms or 10Mbps; after --set a bare number or boolean is read as one, \
             so quote text: links[0].params.target='\"7\"')"
                .to_string(),
            true
        )
    );
    // A key under a set table: named, after the set.
    assert_eq!(
        shown(err("flows[1].rate", "bad"), &[]),
        (
            "t.toml: --set flows[1]={}: flows[1].rate: bad".to_string(),
            true
        )
    );
    // A key above the set key, about its last part: the set's; merely listing it: the file's.
    assert_eq!(
        shown(
            err("links[0].params", "codel has no parameter \"target\""),
            &[]
        ),
        (
            "t.toml: --set links[0].params.target=7: links[0].params: codel has no parameter \
             \"target\""
                .to_string(),
            true
        )
    );
    assert_eq!(
        shown(
            err("links[0].params", "expected one of target, interval"),
            &[]
        ),
        (
            "t.toml:4: links[0].params: expected one of target, interval".to_string(),
            false
        )
    );
    // A key the set key is a prefix of, not a key above it, is not the set's.
    assert_eq!(
        shown(err("links[0].params.targets", "bad"), &[]),
        ("t.toml:4: links[0].params.targets: bad".to_string(), false)
    );
    // A sweep's --vary names itself.
    let varied = sets(&[("flows[1]", "--vary")]);
    assert_eq!(
        shown(err("flows[1].rate", "bad"), &varied).0,
        "t.toml: --vary flows[1]={}: flows[1].rate: bad"
    );
}

#[test]
fn a_per_flow_value_is_a_list_and_a_ladders_a_list_of_lists() {
    let item = |v: &str| {
        let doc: toml_edit::DocumentMut = format!("k = {v}").parse().unwrap();
        doc["k"].clone()
    };
    assert_eq!(
        per_flow("rate", &item("[\"1Mbps\", \"2Mbps\"]")).map(|a| a.len()),
        Some(2)
    );
    assert_eq!(per_flow("rate", &item("\"1Mbps\"")).map(|a| a.len()), None);
    assert_eq!(
        per_flow("ladder", &item("[\"1Mbps\", \"2Mbps\"]")).map(|a| a.len()),
        None
    );
    assert_eq!(
        per_flow("ladder", &item("[[\"1Mbps\"], [\"2Mbps\"]]")).map(|a| a.len()),
        Some(2)
    );
    assert_eq!(per_flow("ladder", &item("[]")).map(|a| a.len()), None);
    assert_eq!(per_flow("rate", &item("[]")).map(|a| a.len()), Some(0));
}

#[test]
fn the_files_key_lines_are_each_keys_path_and_line() {
    let text = "a = 1\n[t]\nb = { c = 2 }\n[[f]]\nd = [\n  3,\n]\n[[f]]\ne = 4\n";
    let lines: Vec<(String, usize)> = key_lines(text)
        .into_iter()
        .map(|(p, l)| (path_text(&p), l))
        .collect();
    // A key's line, then its value's (each where it starts; the element of a multi-line array
    // on its own line); a table of an array of tables where its header is.
    let want: Vec<(String, usize)> = [
        ("a", 1),
        ("a", 1),
        ("t", 2),
        ("t", 2),
        ("t.b", 3),
        ("t.b", 3),
        ("t.b.c", 3),
        ("t.b.c", 3),
        ("f", 4),
        ("f[0]", 4),
        ("f[0].d", 5),
        ("f[0].d", 5),
        ("f[0].d[0]", 6),
        ("f[1]", 8),
        ("f[1].e", 9),
        ("f[1].e", 9),
    ]
    .iter()
    .map(|(p, l)| (p.to_string(), *l))
    .collect();
    assert_eq!(lines, want);
    assert!(key_lines("a = ").is_empty());
}

#[test]
fn a_flow_key_of_the_file_is_named_by_its_line_or_its_set_after_the_unsets() {
    let s = sets(&[("flows[1].to", "\"y\"")]);
    let unsets = ["flows[0]".to_string()];
    let ed = edit(FILE, "t.toml", &unsets, &s, &[], false).unwrap();
    // flows[0] of the document after the unset is flows[1] of the file (line 11's count).
    let e = ed.flow_error(0, ("count", "bad".into()));
    assert_eq!(e.to_string(), "t.toml:11: flows[0].count: bad");
    // A key a --set wrote names the set.
    let e = ed.flow_error(1, ("to", "bad".into()));
    assert_eq!(e.to_string(), "t.toml: --set flows[1].to=\"y\": bad");
    // A key the file does not have: no line.
    let e = ed.flow_error(1, ("rate", "bad".into()));
    assert_eq!(e.to_string(), "t.toml: flows[1].rate: bad");
    // origin_of, by path: the file's line, a set's index, or none.
    let lines: BTreeMap<Vec<Seg>, usize> = key_lines(FILE).into_iter().collect();
    let path = |p: &str| key_path(p, &|_| unreachable!(), true).unwrap();
    assert_eq!(
        ed.origin_of(&path("flows[0].kind"), &lines, false),
        Origin::File(10)
    );
    assert_eq!(
        ed.origin_of(&path("flows[1].to"), &lines, false),
        Origin::Set(0)
    );
    assert_eq!(
        ed.origin_of(&path("flows[1].kind"), &lines, false),
        Origin::File(14)
    );
    assert_eq!(ed.origin_of(&path("seed"), &lines, false), Origin::None);
}

#[test]
fn the_public_edits_keep_the_rest_of_the_file_as_written_and_do_not_expand() {
    // A set rewrites its key in place; the counted flow stays one table.
    let s = sets(&[("dumbbell.bottleneck.rate", "\"20Mbps\"")]);
    assert_eq!(
        apply_sets(FILE, "t.toml", &s).unwrap(),
        FILE.replace("rate = \"10Mbps\"", "rate = \"20Mbps\"")
    );
    assert_eq!(
        apply_unsets(FILE, "t.toml", &["dumbbell.bottleneck.params".to_string()]).unwrap(),
        FILE.replace("params = { target = \"5ms\" }\n", "")
    );
    assert_eq!(
        apply_unsets(FILE, "t.toml", &["seed".to_string()])
            .unwrap_err()
            .to_string(),
        "t.toml: --unset seed: no such key in the scenario"
    );
}

#[test]
fn a_scenario_is_built_with_its_unsets_then_its_sets() {
    let text = "duration = \"1s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nname = \"l\"\n\
                from = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
                qdisc = \"codel\"\nparams = { target = \"7ms\" }\n";
    let dir = Path::new("");
    let ov = Overrides::default();
    let unsets = ["links[0].params".to_string()];
    let s = sets(&[("links[0].params.interval", "\"50ms\"")]);
    let sc = build_with_edits(text, "t.toml", dir, "n", &unsets, &s, &ov).unwrap();
    assert!(
        sc.resolved
            .contains("target = \"5ms\", interval = \"50ms\""),
        "{}",
        sc.resolved
    );
    let sc = build_with_sets(text, "t.toml", dir, "n", &s, &ov).unwrap();
    assert!(
        sc.resolved
            .contains("target = \"7ms\", interval = \"50ms\""),
        "{}",
        sc.resolved
    );
    let e = build_with_sets(
        text,
        "t.toml",
        dir,
        "n",
        &sets(&[("links[0].rate", "5")]),
        &ov,
    )
    .err()
    .unwrap();
    assert_eq!(e.path, "--set links[0].rate=5");
}

#[test]
fn the_walk_records_each_key_value_and_element_at_its_start_line() {
    let text = "t = { a = [\n1,\n2] }\n[u]\nb = 3\n";
    let doc = toml_edit::ImDocument::parse(text).unwrap();
    let line = |span: Option<std::ops::Range<usize>>| {
        span.map(|s| text[..s.start].matches('\n').count() + 1)
    };
    let shown = |out: Vec<(Vec<Seg>, usize)>| -> Vec<(String, usize)> {
        out.into_iter().map(|(p, l)| (path_text(&p), l)).collect()
    };
    let pairs = |v: &[(&str, usize)]| -> Vec<(String, usize)> {
        v.iter().map(|(p, l)| (p.to_string(), *l)).collect()
    };
    // A value: itself, then each key (and value) of an inline table, each element of an array.
    let mut out = Vec::new();
    let mut path = vec![Seg::Key("t".into())];
    walk_value(doc["t"].as_value().unwrap(), &mut path, &line, &mut out);
    assert_eq!(
        shown(out),
        pairs(&[
            ("t", 1),
            ("t.a", 1),
            ("t.a", 1),
            ("t.a[0]", 2),
            ("t.a[1]", 3)
        ])
    );
    assert_eq!(path, [Seg::Key("t".into())]);
    // An item that is a table: its header's line, then its keys.
    let mut out = Vec::new();
    let mut path = vec![Seg::Key("u".into())];
    walk_item(&doc["u"], &mut path, &line, &mut out);
    assert_eq!(shown(out), pairs(&[("u", 4), ("u.b", 5), ("u.b", 5)]));
    // The document: each key's line before its value's.
    let mut out = Vec::new();
    walk_table(doc.as_table(), &mut Vec::new(), &line, &mut out);
    assert_eq!(shown(out)[..2], pairs(&[("t", 1), ("t", 1)]));
}
