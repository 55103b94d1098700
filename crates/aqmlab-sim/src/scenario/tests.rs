//! Unit tests of `scenario.rs`'s own steps (its error wording, seeds, node names, files).

use super::*;

#[test]
fn one_line_escapes_control_characters_only() {
    assert!(matches!(one_line("a b"), std::borrow::Cow::Borrowed("a b")));
    assert_eq!(one_line("a\nb\u{1b}c\t"), "a\\nb\\u{1b}c\\t");
    let e = ScenarioError {
        file: "f\n.toml".into(),
        line: Some(3),
        path: "k\r".into(),
        msg: "bad\nvalue".into(),
    };
    assert_eq!(e.to_string(), "f\\n.toml:3: k\\r: bad\\nvalue");
}

#[derive(Debug, Deserialize)]
struct Seeded {
    #[serde(default, deserialize_with = "seed_value")]
    seed: Option<u64>,
}

#[test]
fn a_seed_is_a_whole_number_as_an_integer_or_a_string_of_digits() {
    let seed = |text: &str| {
        toml::from_str::<Seeded>(text)
            .map(|s| s.seed)
            .map_err(|e| e.message().to_string())
    };
    assert_eq!(seed(""), Ok(None));
    assert_eq!(seed("seed = 0"), Ok(Some(0)));
    assert_eq!(
        seed("seed = 9223372036854775807"),
        Ok(Some(i64::MAX as u64))
    );
    assert_eq!(seed("seed = \"18446744073709551615\""), Ok(Some(u64::MAX)));
    assert_eq!(
        seed("seed = -1"),
        Err("expected a whole number 0..18446744073709551615, got -1".into())
    );
    assert_eq!(
        seed("seed = \"18446744073709551616\""),
        Err("expected a whole number 0..18446744073709551615, got \"18446744073709551616\"".into())
    );
    assert_eq!(
        seed("seed = 1.5"),
        Err(
            "invalid type: floating point `1.5`, expected a whole number 0..18446744073709551615"
                .into()
        )
    );
}

#[test]
fn a_node_is_named_among_the_nodes_the_first_of_two_equal_names() {
    let names: Vec<String> = ["a", "b", "a"].iter().map(|s| s.to_string()).collect();
    let lookup = NodeLookup::new(&names);
    #[derive(Deserialize)]
    struct N {
        n: S,
    }
    let at = |text: &str| {
        let n: N = toml::from_str(text).unwrap();
        let cx = Ctx::new("t.toml", text, Path::new(""));
        node_index(&cx, &lookup, &n.n, "links[0].from").map_err(|e| (e.line, e.path, e.msg))
    };
    assert_eq!(at("n = \"b\""), Ok(1));
    assert_eq!(at("n = \"a\""), Ok(0));
    assert_eq!(
        at("\nn = \"A\""),
        Err((
            Some(2),
            "links[0].from".into(),
            "expected one of the nodes (a, b, a), got \"A\"".into()
        ))
    );
}

#[test]
fn a_dumbbell_access_links_keys_are_shared_and_their_delay_is_the_element() {
    assert_eq!(key_of("links[2]", "rate"), "links[2].rate");
    assert_eq!(
        key_of("links[2].reverse", "buffer"),
        "links[2].reverse.buffer"
    );
    assert_eq!(
        key_of("dumbbell.sender_delay[1]", "rate"),
        "dumbbell.access_rate"
    );
    assert_eq!(
        key_of("dumbbell.receiver_delay[0]", "buffer"),
        "dumbbell.access_buffer"
    );
    assert_eq!(
        key_of("dumbbell.receiver_delay[0]", "delay"),
        "dumbbell.receiver_delay[0]"
    );
    assert_eq!(
        key_of("dumbbell.bottleneck", "rate"),
        "dumbbell.bottleneck.rate"
    );
}

#[test]
fn a_parameters_text_is_a_string_without_quotes_or_the_tomls_value() {
    assert_eq!(toml_text(&toml::Value::String("5ms".into())), "5ms");
    assert_eq!(toml_text(&toml::Value::Integer(-3)), "-3");
    assert_eq!(toml_text(&toml::Value::Boolean(true)), "true");
    let list = toml::Value::Array(vec![1.into(), "x".into()]);
    assert_eq!(toml_text(&list), "[1, \"x\"]");
}

#[test]
fn serdes_rust_types_are_said_as_a_user_would() {
    assert_eq!(
        plain_types("invalid type: string \"x\", expected struct RawDumbbell"),
        "invalid type: string \"x\", expected a table"
    );
    assert_eq!(
        plain_types("invalid type: integer `3`, expected a sequence"),
        "invalid type: integer `3`, expected a list"
    );
    assert_eq!(
        plain_types("invalid type: string \"3\", expected u32"),
        "invalid type: string \"3\", expected a whole number \u{2265} 0"
    );
    assert_eq!(
        plain_types("invalid value: integer `-1`, expected i64"),
        "invalid value: integer `-1`, expected a whole number"
    );
    assert_eq!(
        plain_types("invalid type: string \"x\", expected f64"),
        "invalid type: string \"x\", expected a number"
    );
    // Only at the end: a type name inside a sentence is left as it is.
    assert_eq!(plain_types("expected u64 here"), "expected u64 here");
}

#[test]
fn a_toml_message_is_one_line_or_says_what_was_found() {
    assert_eq!(toml_message(" bad\nkey \n", "", None), "bad key");
    assert_eq!(
        toml_message("", "a = 1\rb", Some(5..6)),
        "a carriage return (\\r) not followed by a newline: expected \\n or \\r\\n line endings"
    );
    assert_eq!(toml_message("", "a = ?", Some(4..5)), "invalid TOML at '?'");
    assert_eq!(
        toml_message("", "a =", Some(3..3)),
        "invalid TOML at the end of the file"
    );
    assert_eq!(
        toml_message("  ", "a =", None),
        "invalid TOML at the end of the file"
    );
    let text = "x = 99999999999999999999\n";
    assert_eq!(
        toml_message("number too large to fit in target type", text, Some(4..24)),
        too_large_integer(text, Some(4..24))
    );
}

#[test]
fn a_too_large_integer_names_its_key_and_a_seed_is_told_to_be_a_string() {
    let range = "expected a whole number from -9223372036854775808 to 9223372036854775807 \
                 (TOML's integer range), got a larger one";
    let text = "duration = \"1s\"\nseed = 99999999999999999999\n";
    assert_eq!(
        too_large_integer(text, Some(23..43)),
        format!(
            "seed: {range}; write a larger seed (up to 18446744073709551615) as a string of \
             digits, e.g. seed = \"18446744073709551615\""
        )
    );
    // In an inline table, the last key before the value.
    let text = "params = { a = 1, limit = 99999999999999999999 }\n";
    assert_eq!(
        too_large_integer(text, Some(26..46)),
        format!("limit: {range}")
    );
    // Not after `KEY =`, or no place: "a value".
    assert_eq!(
        too_large_integer("[99999999999999999999]", Some(1..21)),
        format!("a value: {range}")
    );
    assert_eq!(too_large_integer("", None), format!("a value: {range}"));
}

#[test]
fn a_scenario_file_is_read_as_utf8_with_its_folder_and_name() {
    let dir = std::env::temp_dir().join(format!("aqmlab-read-scenario-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = "duration = \"1s\"\nnodes = [\"a\", \"b\"]\n[[links]]\nname = \"l\"\n\
                from = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";
    let path = dir.join("one.toml");
    std::fs::write(&path, text).unwrap();
    let (t, file, d, stem) = read_scenario(&path).unwrap();
    assert_eq!(
        (t.as_str(), file, d, stem.as_str()),
        (text, path.display().to_string(), dir.clone(), "one")
    );
    // Resolved and built with the file's stem as its name.
    let r = resolve_file(&path, &Overrides::default()).unwrap();
    assert_eq!((r.name.as_str(), r.directions.len()), ("one", 2));
    let sc = load(&path, &Overrides::default()).unwrap();
    assert_eq!(sc.name, "one");
    let bin = dir.join("bin.toml");
    std::fs::write(&bin, [0xffu8, 0xfe]).unwrap();
    let e = read_scenario(&bin).unwrap_err();
    assert_eq!(
        (e.file, e.line, e.path.as_str(), e.msg.as_str()),
        (
            bin.display().to_string(),
            None,
            "",
            "not UTF-8 text: expected a TOML scenario file"
        )
    );
    // A missing file: its error without the path the error shows already.
    let none = dir.join("none.toml");
    let e = read_scenario(&none).unwrap_err();
    assert_eq!(e.file, none.display().to_string());
    assert!(!e.msg.starts_with(&e.file), "{}", e.msg);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn seed_value_reads_any_deserializers_whole_number_or_digits() {
    let seed = |v: toml::Value| seed_value(v).map_err(|e| e.message().to_string());
    assert_eq!(seed(toml::Value::Integer(42)), Ok(Some(42)));
    assert_eq!(seed(toml::Value::String("7".into())), Ok(Some(7)));
    assert_eq!(
        seed(toml::Value::String("-7".into())),
        Err("expected a whole number 0..18446744073709551615, got \"-7\"".into())
    );
}
