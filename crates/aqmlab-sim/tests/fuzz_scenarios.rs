//! The `scenario_text` fuzz target's body on random inputs, so stable CI exercises it without
//! cargo-fuzz (`make fuzz` runs the coverage-guided fuzzer on nightly): structured edits of every
//! bundled scenario, raw text, and every discipline swapped onto every link.

use aqmlab_qdisc::Kind;
use aqmlab_sim::fuzzing::{self, BASES};
use aqmlab_sim::scenario::Overrides;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn edited_scenarios_never_panic(data in prop::collection::vec(any::<u8>(), 0..96)) {
        let mut data = data;
        if let Some(b) = data.first_mut() {
            *b %= 0xf0; // the structured mode
        }
        fuzzing::scenario_text(&data);
    }

    #[test]
    fn raw_text_never_panics(text in "[a-z_=\\[\\]{}\"., 0-9\n#-]{0,200}") {
        let mut data = vec![0xff];
        data.extend_from_slice(text.as_bytes());
        fuzzing::scenario_text(&data);
    }
}

#[test]
fn every_discipline_on_every_link() {
    for (file, text) in BASES {
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        for k in Kind::ALL {
            // Every link direction at once: a swap on NAME covers NAME and NAME.rev.
            let mut names: Vec<String> = Vec::new();
            if let Some(d) = doc.get("dumbbell") {
                let n = d["senders"].as_integer().unwrap();
                names.push("bottleneck".into());
                for i in 1..=n {
                    names.push(format!("s{i}.access"));
                    names.push(format!("r{i}.access"));
                }
            }
            if let Some(ls) = doc.get("links").and_then(|l| l.as_array_of_tables()) {
                names.extend(ls.iter().map(|l| l["name"].as_str().unwrap().to_string()));
            }
            let ov = Overrides {
                seed: None,
                qdisc: names
                    .iter()
                    .map(|n| (n.clone(), k.name().to_string()))
                    .collect(),
                packet_log: names.clone(),
                ..Overrides::default()
            };
            fuzzing::check_text(text, file, &ov)
                .unwrap_or_else(|e| panic!("{file} with {}: {e}", k.name()));
        }
    }
}

#[test]
fn inputs_the_fuzzer_found() {
    // `--set "a\nb"=0`: the key with a newline went into the file, and its error was two lines
    // (see `control_characters_in_keys_stay_on_one_line` in tests/scenario.rs).
    let case = fuzzing::decode(&[0, 0, 36, 0, 0, 200, 0, 0, 3, b'a', b'\n', b'b', 0, 0, 0]);
    assert_eq!(case.sets, [("a\nb".to_string(), "0".to_string())]);
    let e = case.check().unwrap_err().to_string();
    assert!(
        e.starts_with("bulk-dumbbell.toml: --set a\\nb: expected a dotted key path"),
        "{e}"
    );
    // Raw text with a lone carriage return: the TOML error came without a message
    // (`fuzz.toml:1: `); see `a_lone_carriage_return_is_explained` in tests/scenario.rs.
    fuzzing::scenario_text(&[0xf1, 0x0d, 0x0d, 0xca, 0x0d]);
    // A discipline parameter whose (echoed) value spells serde_spanned's internal key: the
    // harness's own check was too broad.
    fuzzing::scenario_text(&[
        0x33, 0x9f, 0x1a, 0x63, 0x76, 0xee, 0x71, 0x87, 0x97, 0x37, 0xfd, 0x5f, 0x72, 0xf8, 0xd5,
        0x1c, 0x4a, 0xc9, 0x3b, 0x6d, 0x0c, 0x48, 0xd4, 0x1a, 0x1e, 0x5e, 0xc9, 0xe6, 0xa0, 0x38,
        0x28, 0x54, 0xa8, 0x61, 0x5e, 0xef, 0x10, 0x9f, 0xc1, 0xbf, 0xa9, 0xe2, 0x56, 0x37, 0x01,
        0x28, 0x8f, 0x29, 0xb3, 0xd7, 0x3f, 0x6a, 0xc2, 0xb6, 0x9e, 0x24, 0x5f, 0x5f, 0x73, 0x65,
        0x72, 0x64, 0x65, 0x5f, 0x73, 0x70, 0x61, 0x6e, 0x6e, 0x65, 0x64, 0x5f, 0x70, 0x72, 0x69,
        0x76, 0x61, 0x74, 0x65, 0x5f, 0x76, 0x61, 0x6c, 0x75, 0x65, 0xdd, 0x2c, 0x19, 0xf2, 0x64,
        0xbe, 0xe4, 0x62, 0xa5, 0xba, 0xf2, 0x0f, 0xd2, 0x7e, 0xcf, 0x14, 0xc0,
    ]);
}
