use super::*;

#[test]
fn every_key_is_declared_once_and_described() {
    for (i, k) in FLOW_KEYS.iter().enumerate() {
        assert!(!k.doc.is_empty(), "{}", k.name);
        assert!(
            FLOW_KEYS[..i].iter().all(|o| o.name != k.name),
            "{} twice",
            k.name
        );
    }
    assert_eq!(N_KEYS, FLOW_KEYS.len());
    assert_eq!(
        apps_list(WEB_PAGE_VIDEO),
        "app = \"web\", \"page\" and \"video\""
    );
    assert_eq!(apps_list(WEB_PAGE), "app = \"web\" and \"page\"");
}

#[test]
fn flow_keys_doc_is_generated_from_the_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/flow-keys.md");
    let want = flow_keys_markdown();
    if std::env::var_os("AQMLAB_BLESS").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "docs/flow-keys.md disagrees with the flow-key table: regenerate it with \
             AQMLAB_BLESS=1 cargo test -p aqmlab-sim --lib flow_keys"
    );
}

/// The keys `keys` of a flow from `a` to `b` given, as the loader reads them.
fn given(keys: &str) -> [Given; N_KEYS] {
    let f: RawFlow = toml::from_str(&format!("from = \"a\"\nto = \"b\"\n{keys}")).unwrap();
    f.given()
}

#[test]
fn where_a_key_applies_is_said_as_the_errors_say_it() {
    assert_eq!(Applies::Any.describe(), "every flow");
    assert_eq!(Applies::Udp.describe(), "udp flows");
    assert_eq!(Applies::Tcp.describe(), "tcp flows");
    assert_eq!(
        Applies::UdpOrApp(ONOFF).describe(),
        "udp flows and app = \"onoff\""
    );
    assert_eq!(
        Applies::App(WEB_PAGE).describe(),
        "app = \"web\" and \"page\""
    );
    assert_eq!(Applies::Cc(CcKind::Cubic).describe(), "cc = \"cubic\"");
    // Only a tcp flow takes the keys of tcp, its applications and its congestion controls.
    assert!(Applies::Tcp.tcp_only() && Applies::App(WEB_PAGE).tcp_only());
    assert!(Applies::Cc(CcKind::Vegas).tcp_only());
    assert!(!Applies::Any.tcp_only() && !Applies::Udp.tcp_only());
    assert!(!Applies::UdpOrApp(ONOFF).tcp_only());
}

#[test]
fn the_first_key_of_another_kind_cc_or_app_is_found_in_table_order() {
    // A udp flow: the first tcp-only key in the table's order, not the file's.
    assert_eq!(wrong_kind(&given("kind = \"udp\"\nrate = \"1Mbps\"")), None);
    assert_eq!(
        wrong_kind(&given("kind = \"udp\"\ncubic_beta = 0.5\nmss = 500")),
        Some("mss")
    );
    // A key of another congestion control.
    let g = given("kind = \"tcp\"\nvegas_alpha = 2\ncubic_beta = 0.5");
    assert_eq!(
        wrong_cc(&g, CcKind::Cubic).map(|k| k.name),
        Some("vegas_alpha")
    );
    assert_eq!(
        wrong_cc(&g, CcKind::Vegas).map(|k| k.name),
        Some("cubic_beta")
    );
    assert!(wrong_cc(&given("kind = \"tcp\"\ncubic_beta = 0.5"), CcKind::Cubic).is_none());
    // A key of another application, with where it was given: a boolean keeps no place
    // (the error is at the app's line).
    let g = given("kind = \"tcp\"\nidle_restart = false");
    let (k, at) = wrong_app(&g, "bulk").unwrap();
    assert_eq!((k.name, at), ("idle_restart", &None));
    assert!(wrong_app(&g, "repeat").is_none() && wrong_app(&g, "onoff").is_none());
    // A udp flow's rate belongs to app = "onoff" among the tcp flows' applications.
    let text = "from = \"a\"\nto = \"b\"\nkind = \"tcp\"\nrate = \"1Mbps\"";
    let g = given("kind = \"tcp\"\nrate = \"1Mbps\"");
    let (k, at) = wrong_app(&g, "web").unwrap();
    assert_eq!(k.name, "rate");
    assert_eq!(at.as_ref().map(|r| &text[r.clone()]), Some("\"1Mbps\""));
    assert!(wrong_app(&g, "onoff").is_none());
}
