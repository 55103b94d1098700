use super::*;
use aqmlab_qdisc::Value;

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
    let dp = disc_of(&c, &cfg, &ov);
    assert_eq!(dp.swapped.as_deref(), Some("fq_codel"));
    assert_eq!(dp.kind, Ok(Kind::FqCodel));
    assert_eq!(
        dp.dropped,
        vec![
            ("l".to_string(), "interval=90ms".to_string()),
            ("l".to_string(), "x=[1]".to_string())
        ]
    );
    assert_eq!(dp.kept, ["target"]);
    // Without a `buffer`, a swap keeps the `limit` (the buffer a resolved file writes).
    let text2 = "qdisc = \"codel\"\nparams = { limit = \"20p\", target = \"5ms\" }\n";
    let cfg2 = ("l".to_string(), dir(text2), "links[0]".to_string());
    let ov2 = Overrides {
        qdisc: vec![("l".into(), "pie".into())],
        ..Default::default()
    };
    let dp2 = disc_of(&cx(text2), &cfg2, &ov2);
    assert_eq!(dp2.kept, ["limit"]);
    assert_eq!(
        dp2.dropped,
        vec![("l".to_string(), "target=5ms".to_string())]
    );
    // Without the swap: every parameter kept, in the table's key order.
    let dp = disc_of(&c, &cfg, &Overrides::default());
    assert_eq!(dp.kind, Ok(Kind::Codel));
    assert!(dp.dropped.is_empty());
    assert_eq!(dp.kept, ["interval", "target", "x"]);
}

/// [`discipline`] of the direction `l` at `links[0]` given by `text` (the `--qdisc` swaps and
/// `--set` keys of `ov`), on a 10 Mb/s link whose largest packet is 540 bytes.
fn disc_of_text(text: &str, ov: &Overrides) -> Result<(Params, AnyConfig), ScenarioError> {
    let (c, d) = (cx(text), dir(text));
    let cfg = ("l".to_string(), d, "links[0]".to_string());
    let dp = disc_of(&c, &cfg, ov);
    let x = DirIn {
        cx: &c,
        name: "l",
        d: &cfg.1,
        path: "links[0]",
        ends: (0, 1),
        dp: &dp,
        largest_packet: 540,
    };
    let rate = LinkRate::Constant(aqmlab_core::Bitrate::from_mbps(10));
    discipline(&x, &rate, &mut Vec::new())
}

#[test]
fn discipline_reads_each_kept_value_once_and_checks_them_together() {
    let text = "delay = \"5ms\"\nqdisc = \"codel\"\nbuffer = \"3000B\"\n\
                params = { target = \"7ms\", ecn = true, interval = \"90ms\" }\n";
    let parsed = aqmlab_qdisc::texts_parsed();
    let (p, q) = disc_of_text(text, &Overrides::default()).unwrap();
    // The three given values, each read once by its spec, and the defaults of every row but
    // those and the buffer's limit (typed): nothing parsed twice.
    let rows = Kind::Codel.params().len() as u64;
    assert_eq!(aqmlab_qdisc::texts_parsed() - parsed, 3 + rows - 4);
    assert_eq!(
        p.value("target"),
        Value::Duration(SimDuration::from_millis(7))
    );
    assert!(p.bool("ecn"));
    // The buffer's limit, and the mtu taken from the traffic.
    assert_eq!(p.value("limit"), Value::Size(units::Size::Bytes(3000)));
    assert_eq!(p.value("mtu"), Value::Bytes(540));
    let AnyConfig::Codel(c) = q else {
        panic!("{q:?}")
    };
    assert_eq!(
        (c.limit, c.params.mtu_bytes, c.params.ecn),
        (units::Size::Bytes(3000), 540, true)
    );
    // A swap drops the values no --set gave: FQ-CoDel's defaults, the buffer kept.
    let ov = Overrides {
        qdisc: vec![("l".into(), "fq_codel".into())],
        ..Default::default()
    };
    let (p, _) = disc_of_text(text, &ov).unwrap();
    assert_eq!(
        p.value("target"),
        Value::Duration(SimDuration::from_millis(5))
    );
    // A value that is not a string, number or boolean: its key, the table's line.
    let list = "delay = \"5ms\"\nqdisc = \"codel\"\nparams = { target = [1] }\n";
    let e = disc_of_text(list, &Overrides::default()).unwrap_err();
    assert_eq!(
        (e.line, e.path.as_str(), e.msg.as_str()),
        (
            Some(3),
            "links[0].params.target",
            "expected a string, number or boolean, got array"
        )
    );
    // A range error names the key the file gave it at.
    let bad = "delay = \"5ms\"\nqdisc = \"codel\"\nparams = { target = \"1s\" }\n";
    let e = disc_of_text(bad, &Overrides::default()).unwrap_err();
    assert_eq!(
        (e.line, e.path.as_str()),
        (Some(3), "links[0].params.target")
    );
    assert!(e.msg.contains("target < interval"), "{}", e.msg);
}
