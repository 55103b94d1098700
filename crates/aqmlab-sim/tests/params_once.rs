//! A link direction's discipline parameters are parsed once, when the scenario is resolved: one
//! table per direction, each value (given, or its default) parsed from text at most once
//! against its `ParamSpec`, and the rules that derive values (CoDel's `mtu = "auto"` from the
//! traffic, RED's `delay` and `bandwidth` from the link, a buffer as the `limit`) edit or give
//! typed values without going through text again. An error about one parameter names its key
//! path.

use aqmlab_qdisc::{tables_parsed, texts_parsed, Kind, Value};
use aqmlab_sim::scenario::{resolve_with_edits, Overrides, ResolvedScenario};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What resolving parsed: parameter tables, and values from text.
#[derive(Debug, PartialEq)]
struct Parsed {
    tables: u64,
    texts: u64,
}

/// `file` resolved with the `--set` edits `sets` and the `--qdisc` swaps `qdisc`, with what was
/// parsed while it was.
fn resolve_counting(
    file: &Path,
    sets: &[(&str, &str)],
    qdisc: &[(String, String)],
) -> (Result<ResolvedScenario, String>, Parsed) {
    let text = std::fs::read_to_string(file).unwrap();
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let ov = Overrides {
        qdisc: qdisc.to_vec(),
        ..Default::default()
    };
    let before = (tables_parsed(), texts_parsed());
    let r = resolve_with_edits(
        &text,
        "t.toml",
        file.parent().unwrap(),
        "t",
        &[],
        &sets,
        &ov,
    );
    let parsed = Parsed {
        tables: tables_parsed() - before.0,
        texts: texts_parsed() - before.1,
    };
    (r.map_err(|e| e.to_string()), parsed)
}

/// Checks that resolving `r` parsed one table per direction and no value twice: at most the
/// number of parameters in the directions' tables (fewer when values were given typed: a
/// buffer, RED's link rate and delay).
#[track_caller]
fn once(r: &ResolvedScenario, parsed: &Parsed, what: &str) {
    let rows: u64 = r
        .directions
        .iter()
        .map(|d| Kind::from_name(d.params.kind()).unwrap().params().len() as u64)
        .sum();
    let typed = 3 * r.directions.len() as u64; // at most limit, bandwidth, delay
    assert_eq!(parsed.tables, r.directions.len() as u64, "{what}: tables");
    assert!(
        (rows.saturating_sub(typed)..=rows).contains(&parsed.texts),
        "{what}: {} values parsed for {rows} parameters",
        parsed.texts
    );
}

fn scenarios() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    assert!(v.len() >= 8, "the bundled scenarios are found");
    v
}

#[test]
fn every_parameter_of_every_direction_is_parsed_once() {
    let mut checked = 0;
    for file in scenarios() {
        let (r, _) = resolve_counting(&file, &[], &[]);
        let r = r.unwrap();
        let links: Vec<String> = r
            .directions
            .iter()
            .map(|d| d.name.clone())
            .filter(|n| !n.ends_with(".rev"))
            .collect();
        // As written, and with each discipline on every link (the buffer kept).
        let swaps = std::iter::once(None).chain(Kind::ALL.iter().copied().map(Some));
        for kind in swaps {
            let qdisc: Vec<(String, String)> = kind
                .map(|k| {
                    links
                        .iter()
                        .map(|l| (l.clone(), k.name().to_string()))
                        .collect()
                })
                .unwrap_or_default();
            let (r, parsed) = resolve_counting(&file, &[], &qdisc);
            let Ok(r) = r else { continue }; // e.g. a byte buffer FQ-CoDel's limit refuses
            once(&r, &parsed, &format!("{} with {kind:?}", file.display()));
            checked += 1;
        }
    }
    assert!(checked >= 60, "{checked} resolutions checked");
}

#[test]
fn a_set_codel_target_is_parsed_once_and_the_derived_mtu_is_typed() {
    // CoDel on the bottleneck, which the scenario's TCP flow crosses: its `mtu = "auto"` is
    // derived from the traffic (formerly by parsing every CoDel parameter a second time).
    let file = root().join("scenarios/emu-vs-sim.toml");
    let (r, parsed) = resolve_counting(&file, &[("dumbbell.bottleneck.params.target", "7ms")], &[]);
    let r = r.unwrap();
    once(&r, &parsed, "codel");
    let b = r
        .directions
        .iter()
        .find(|d| d.name == "bottleneck")
        .unwrap();
    assert_eq!(b.params.kind(), "codel");
    assert_eq!(
        b.params.value("target"),
        Value::Duration(aqmlab_core::SimDuration::from_millis(7))
    );
    // The largest packet the flow puts on the link: a typed byte count, written as one.
    let Value::Bytes(mtu) = b.params.value("mtu") else {
        panic!("mtu not derived: {:?}", b.params.value("mtu"))
    };
    assert!((500..=1600).contains(&mtu), "{mtu}");
    assert_eq!(b.params.raw_value("mtu"), format!("{mtu}B"));
    assert_eq!(
        b.qdisc,
        aqmlab_qdisc::AnyConfig::from_params(&b.params).unwrap()
    );
    // RED's delay and bandwidth, taken from the link typed: also parsed nowhere.
    let (r, parsed) = resolve_counting(&file, &[], &[("bottleneck".into(), "red".into())]);
    let r = r.unwrap();
    once(&r, &parsed, "red");
    let b = r
        .directions
        .iter()
        .find(|d| d.name == "bottleneck")
        .unwrap();
    assert_eq!(b.params.raw_value("delay"), "20ms");
    assert_eq!(b.params.raw_value("bandwidth"), "12Mbps");
}

#[test]
fn a_bad_parameter_value_names_its_key() {
    let file = root().join("scenarios/emu-vs-sim.toml");
    let err = |sets: &[(&str, &str)], qdisc: &[(String, String)]| {
        resolve_counting(&file, sets, qdisc).0.unwrap_err()
    };
    // Given with --set: the --set is named (the key it wrote).
    assert_eq!(
        err(&[("dumbbell.bottleneck.params.target", "5")], &[]),
        "t.toml: --set dumbbell.bottleneck.params.target=5: codel: parameter target = 5: \
         expected a duration > 0 (like 5ms, 100us, 1.5s or 250ns)"
    );
    // In the file: the key path and the line of the params table.
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "buffer = \"100p\"",
        "params = { interval = \"100ms\", target = \"-1ms\" }",
    );
    let e = resolve_with_edits(
        &text,
        "t.toml",
        file.parent().unwrap(),
        "t",
        &[],
        &[],
        &Overrides::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.ends_with(
            ": dumbbell.bottleneck.params.target: codel: parameter target = -1ms: expected a duration > 0 (like 5ms, 100us, 1.5s or 250ns)"
        ),
        "{e}"
    );
    // The buffer, given typed as the limit, is named as the buffer.
    let e = err(
        &[("dumbbell.bottleneck.buffer", "\"5000000000p\"")],
        &[("bottleneck".into(), "fq_codel".into())],
    );
    assert!(e.contains("parameter limit = 5000000000p"), "{e}");
}

/// emu-vs-sim's bottleneck with FQ-CoDel and the parameters `params` instead of its buffer,
/// resolved, with what was parsed: the bottleneck's typed parameters, or the error.
fn fq_codel_with(params: &str) -> (Result<aqmlab_qdisc::Params, String>, Parsed) {
    let file = root().join("scenarios/emu-vs-sim.toml");
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "qdisc = \"codel\"\nbuffer = \"100p\"",
        &format!("qdisc = \"fq_codel\"\nparams = {{ {params} }}"),
    );
    assert!(text.contains("fq_codel"));
    let before = (tables_parsed(), texts_parsed());
    let r = resolve_with_edits(
        &text,
        "t.toml",
        file.parent().unwrap(),
        "t",
        &[],
        &[],
        &Overrides::default(),
    );
    let parsed = Parsed {
        tables: tables_parsed() - before.0,
        texts: texts_parsed() - before.1,
    };
    let r = r.map_err(|e| e.to_string()).map(|r| {
        once(&r, &parsed, params);
        let b = r.directions.iter().find(|d| d.name == "bottleneck");
        b.unwrap().params.clone()
    });
    (r, parsed)
}

#[test]
fn an_fq_limit_in_bytes_is_the_memory_limit_by_its_typed_value() {
    use aqmlab_core::units::Size;
    // Bytes, in any byte unit, are the memory limit; the text is kept as written.
    for (limit, bytes) in [
        ("30000B", 30_000),
        ("1.5MB", 1_500_000),
        ("64KiB", 65_536),
        // Read as the size it is, wherever its unit ends: the text's last character decided
        // before, and sent this one to `limit`, which refused bytes.
        ("30000B ", 30_000),
    ] {
        let p = fq_codel_with(&format!("limit = {limit:?}")).0.unwrap();
        assert_eq!(p.value("memory_limit"), Value::Bytes(bytes), "{limit:?}");
        assert_eq!(p.raw_value("memory_limit"), limit);
        assert_eq!(
            p.value("limit"),
            Value::Size(Size::Packets(10240)),
            "{limit:?}"
        );
    }
    // Packets stay the limit.
    let p = fq_codel_with("limit = \"500p\"").0.unwrap();
    assert_eq!(p.value("limit"), Value::Size(Size::Packets(500)));
    assert!(!p.is_given("memory_limit"));
    // A limit that is not a size is refused as the limit it was given as, with its key (the
    // string rule sent `lotsB` to memory_limit, and the error named the params table); a byte
    // count out of the memory limit's range, as that.
    for bad in ["30000b", "lotsB"] {
        let e = fq_codel_with(&format!("limit = {bad:?}")).0.unwrap_err();
        assert!(
            e.ends_with(&format!(": dumbbell.bottleneck.params.limit: fq_codel: parameter limit = {bad}: expected a size in packets or bytes in (0, 4294967295] (like 1000p or 1.5MB)")),
            "{e}"
        );
    }
    let e = fq_codel_with("limit = \"0B\"").0.unwrap_err();
    assert!(
        e.ends_with("fq_codel: parameter memory_limit = 0B: expected a byte count > 0"),
        "{e}"
    );
}
