use super::*;

#[test]
fn a_swap_is_of_a_direction_or_its_link_and_the_last_one_counts() {
    let ov = Overrides {
        qdisc: vec![
            ("l".into(), "pie".into()),
            ("l.rev".into(), "red".into()),
            ("m.rev".into(), "cake".into()),
        ],
        ..Default::default()
    };
    assert_eq!(swap_of(&ov, "l"), Some("pie"));
    assert_eq!(swap_of(&ov, "l.rev"), Some("red"));
    assert_eq!(swap_of(&ov, "m.rev"), Some("cake"));
    assert_eq!(swap_of(&ov, "m"), None);
    assert_eq!(swap_of(&ov, "n"), None);
}

/// A direction's raw settings read from the TOML `text`, with a context over it.
fn dir(text: &str) -> RawDirection {
    toml::from_str(text).unwrap()
}

fn cx(text: &str) -> Ctx<'_> {
    Ctx {
        file: "t.toml".into(),
        text,
        dir: PathBuf::new(),
    }
}

#[test]
fn the_kind_is_the_swap_the_file_or_drop_tail_and_an_unknown_name_names_its_key() {
    let text = "rate = \"1Mbps\"\nqdisc = \"codle\"\n";
    let (c, d) = (cx(text), dir(text));
    let none = dir("rate = \"1Mbps\"\n");
    assert_eq!(
        disc_kind(&c, "l", "links[0]", &none, None),
        Ok(Kind::DropTail)
    );
    let pie = dir("qdisc = \"pie\"\n");
    assert_eq!(disc_kind(&c, "l", "links[0]", &pie, None), Ok(Kind::Pie));
    // The swap wins over the file's name, even a wrong one.
    assert_eq!(
        disc_kind(&c, "l", "links[0]", &d, Some("red")),
        Ok(Kind::Red)
    );
    let e = disc_kind(&c, "l", "links[0]", &d, None).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.path.as_str()),
        ("t.toml", Some(2), "links[0].qdisc")
    );
    let known = "expected one of droptail, red, codel, lstf_codel, fq_codel, pie, fq_pie, cobalt, fq_cobalt, dualpi2, cake";
    assert_eq!(
        e.msg,
        format!("unknown queue discipline \"codle\": {known}")
    );
    let e = disc_kind(&c, "l.rev", "links[0].reverse", &none, Some("bogus")).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.path.as_str()),
        ("t.toml", None, "--qdisc l.rev")
    );
    assert_eq!(
        e.msg,
        format!("unknown queue discipline \"bogus\": {known}")
    );
}

#[test]
fn a_set_names_the_parameter_or_the_table_of_the_direction_or_its_forward_one() {
    let set = vec![
        "links[0].params.target".to_string(),
        "links[1].params".into(),
    ];
    assert!(set_here(&set, "links[0]", "target"));
    assert!(!set_here(&set, "links[0]", "interval"));
    // A reverse inherits its forward direction's.
    assert!(set_here(&set, "links[0].reverse", "target"));
    assert!(!set_here(&set, "links[0].reverse", "interval"));
    // The whole table names every parameter.
    assert!(set_here(&set, "links[1]", "interval"));
    assert!(set_here(&set, "links[1].reverse", "limit"));
    assert!(!set_here(&set, "links[2]", "target"));
    // A prefix of another key path is not that path.
    assert!(!set_here(
        &["links[0].params.target2".into()],
        "links[0]",
        "target"
    ));
    assert!(!set_here(&set, "links[0].reverse.reverse", "target"));
}

#[test]
fn a_swap_keeps_the_set_parameters_and_the_buffer_and_lists_the_others_as_dropped() {
    let text = "qdisc = \"codel\"\nbuffer = \"3000B\"\n\
                    params = { target = \"7ms\", interval = \"90ms\", x = [1] }\n";
    let (c, d) = (cx(text), dir(text));
    let cfg = ("l".to_string(), d, "links[0]".to_string());
    let ov = Overrides {
        qdisc: vec![("l".into(), "fq_codel".into())],
        set_params: vec!["links[0].params.target".into()],
        ..Default::default()
    };
    let dp = disc_params(&c, &cfg, &ov);
    assert_eq!(dp.swapped.as_deref(), Some("fq_codel"));
    assert_eq!(dp.kind, Ok(Kind::FqCodel));
    assert_eq!(
        dp.dropped,
        vec![
            ("l".to_string(), "interval=90ms".to_string()),
            ("l".to_string(), "x=[1]".to_string())
        ]
    );
    assert_eq!(dp.given.len(), 1);
    assert_eq!(dp.given[0].0, "target");
    // Without a `buffer`, a swap keeps the `limit` (the buffer a resolved file writes).
    let text2 = "qdisc = \"codel\"\nparams = { limit = \"20p\", target = \"5ms\" }\n";
    let cfg2 = ("l".to_string(), dir(text2), "links[0]".to_string());
    let ov2 = Overrides {
        qdisc: vec![("l".into(), "pie".into())],
        ..Default::default()
    };
    let dp2 = disc_params(&cx(text2), &cfg2, &ov2);
    let keys: Vec<&str> = dp2.given.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["limit"]);
    assert_eq!(
        dp2.dropped,
        vec![("l".to_string(), "target=5ms".to_string())]
    );
    // Without the swap: every parameter read (in the table's key order), the list refused.
    let dp = disc_params(&c, &cfg, &Overrides::default());
    assert_eq!(dp.kind, Ok(Kind::Codel));
    assert!(dp.dropped.is_empty());
    let keys: Vec<&str> = dp.given.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["interval", "target", "x"]);
    let e = dp.given[2].1.as_ref().unwrap_err();
    assert_eq!(
        (e.line, e.path.as_str(), e.msg.as_str()),
        (
            Some(3),
            "links[0].params.x",
            "expected a string, number or boolean, got array"
        )
    );
}
