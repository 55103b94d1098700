use super::*;

/// `v = TEXT` read as a `T` the way the loader reads a scenario: `(value, text, line)` or
/// `(line, key path, message)`.
fn read<T: for<'de> Deserialize<'de>>(value: &str) -> Result<T, (Option<usize>, String, String)> {
    #[derive(Deserialize)]
    struct One<T> {
        #[allow(dead_code)]
        a: Option<i64>,
        v: T,
    }
    let text = format!("a = 1\nv = {value}\n");
    serde_path_to_error::deserialize(toml::Deserializer::new(&text))
        .map(|o: One<T>| o.v)
        .map_err(|e| {
            let path = e
                .path()
                .to_string()
                .replace(".$__serde_spanned_private_value", "");
            let inner = e.into_inner();
            let line = inner
                .span()
                .map(|s| text[..s.start].matches('\n').count() + 1);
            (line, path, inner.message().to_string())
        })
}

fn refused<T: for<'de> Deserialize<'de> + std::fmt::Debug>(value: &str) -> String {
    let (line, path, msg) = read::<T>(value).unwrap_err();
    assert_eq!((line, path.as_str()), (Some(2), "v"), "{value}: {msg}");
    msg
}

#[test]
fn time_reads_durations_with_units_up_to_the_maximum() {
    for (text, want) in [
        ("\"5ms\"", SimDuration::from_millis(5)),
        ("\" 0ms \"", SimDuration::ZERO),
        ("\"1.5s\"", SimDuration::from_millis(1500)),
        ("\"1e3ms\"", SimDuration::from_secs(1)),
        ("\"100usec\"", SimDuration::from_micros(100)),
        ("\"1000000s\"", MAX_TIME),
    ] {
        let t: Time = read(text).unwrap();
        assert_eq!(*t.get(), want, "{text}");
        assert_eq!(t.text(), text.trim_matches('"'));
        // The span is the value's, quotes included: `v = ` is on line 2, from byte 6.
        assert_eq!(t.span(), 10..10 + text.len());
    }
    assert_eq!(
            refused::<Time>("\"5\""),
            "expected a duration with a unit, like \"5ms\", \"100us\", \"1.5s\" or \"250ns\", got \"5\""
        );
    assert_eq!(
            refused::<Time>("\"1000001s\""),
            "expected a duration of at most 1000000s (about 11.6 days), got \"1000001s\", which is beyond the maximum"
        );
    // Beyond 64 bits of nanoseconds is beyond the maximum too, not "a unit" missing.
    assert_eq!(
            refused::<Time>("\"1e12s\""),
            "expected a duration of at most 1000000s (about 11.6 days), got \"1e12s\", which is beyond the maximum"
        );
    assert_eq!(
        refused::<Time>("10"),
        "invalid type: integer `10`, expected a string"
    );
    assert_eq!(
        refused::<Time>("true"),
        "invalid type: boolean `true`, expected a string"
    );
}

#[test]
fn rate_reads_rates_with_units_up_to_the_maximum() {
    let r: Rate = read("\"10Mbps\"").unwrap();
    assert_eq!((*r.get(), r.text()), (Bitrate::from_mbps(10), "10Mbps"));
    let r: Rate = read("\"500kbit\"").unwrap();
    assert_eq!(*r.get(), Bitrate::from_bps(500_000));
    let r: Rate = read("\"1000Gbps\"").unwrap();
    assert_eq!(*r.get(), MAX_RATE);
    assert_eq!(
            refused::<Rate>("\"10 MB\""),
            "expected a rate with a unit, like \"10Mbps\", \"1.5Gbps\", \"500kbps\" or \"64000bps\", got \"10 MB\""
        );
    assert_eq!(
            refused::<Rate>("\"2Tbit\""),
            "expected a rate with a unit, like \"10Mbps\", \"1.5Gbps\", \"500kbps\" or \"64000bps\", got \"2Tbit\""
        );
    for big in ["\"1001Gbps\"", "\"1e20bps\""] {
        assert_eq!(
            refused::<Rate>(big),
            format!("expected a rate of at most 1000Gbps, got {big}, which is beyond the maximum")
        );
    }
    assert_eq!(
        refused::<Rate>("1.5"),
        "invalid type: floating point `1.5`, expected a string"
    );
}

#[test]
fn size_reads_packets_or_bytes() {
    for (text, want) in [
        ("\"830p\"", units::Size::Packets(830)),
        ("\"1000pkts\"", units::Size::Packets(1000)),
        ("\"3000B\"", units::Size::Bytes(3000)),
        ("\"1.5MB\"", units::Size::Bytes(1_500_000)),
        ("\"64KiB\"", units::Size::Bytes(65_536)),
    ] {
        let s: Size = read(text).unwrap();
        assert_eq!(*s.get(), want, "{text}");
    }
    assert_eq!(
            refused::<Size>("\"1.5p\""),
            "expected a size in packets like \"1000p\" or in bytes like \"1500B\", \"64KB\", \"1.5MB\", got \"1.5p\""
        );
    assert_eq!(
            refused::<Size>("\"1e30B\""),
            "\"1e30B\" is beyond the 64-bit range: expected at most 18446744073709551615 (bytes, packets, bit/s or ns)"
        );
    assert_eq!(
        refused::<Size>("100"),
        "invalid type: integer `100`, expected a string"
    );
}

/// A flow key's value read as the file is, or the error its check gives: `(line, path,
/// message)`.
fn flow_key<T: UnitKind + Copy>(value: &str) -> Result<T, (Option<usize>, String, String)> {
    let u: Deferred<T> = read(value).expect("a string is read");
    let text = format!("a = 1\nv = {value}\n");
    let cx = Ctx {
        file: "t.toml".into(),
        text: &text,
        dir: Default::default(),
    };
    u.checked(&cx, "flows[0].v")
        .map_err(|e| (e.line, e.path, e.msg))
}

#[test]
fn flow_units_are_read_with_the_file_and_refused_where_checked() {
    assert_eq!(
        flow_key::<SimDuration>("\"200ms\"").unwrap(),
        SimDuration::from_millis(200)
    );
    assert_eq!(
        flow_key::<Bitrate>("\"64kbps\"").unwrap(),
        Bitrate::from_bps(64_000)
    );
    // A value that does not parse is read, and refused with its line when checked.
    assert_eq!(
            flow_key::<Bitrate>("\"1s\"").unwrap_err(),
            (
                Some(2),
                "flows[0].v".into(),
                "expected a rate with a unit, like \"10Mbps\", \"1.5Gbps\", \"500kbps\" or \"64000bps\", got \"1s\"".into()
            )
        );
    assert_eq!(
            flow_key::<SimDuration>("\"2000000s\"").unwrap_err().2,
            "expected a duration of at most 1000000s (about 11.6 days), got \"2000000s\", which is beyond the maximum"
        );
    // Another type than a string is refused as the file is read.
    assert_eq!(
        refused::<Bytes>("300"),
        "invalid type: integer `300`, expected a string"
    );
    // Any 64-bit time (its key's own bound is checked after).
    assert_eq!(
        flow_key::<AnyDuration>("\"2000000s\"").unwrap().0,
        SimDuration::from_secs(2_000_000)
    );
    assert_eq!(
            flow_key::<AnyDuration>("\"1e12s\"").unwrap_err().2,
            "\"1e12s\" is beyond the 64-bit range: expected at most 18446744073709551615 (bytes, packets, bit/s or ns)"
        );
    assert_eq!(
            flow_key::<AnyDuration>("\"40\"").unwrap_err().2,
            "expected a duration with a unit, like \"5ms\", \"100us\", \"1.5s\" or \"250ns\", got \"40\""
        );
    // Bytes: a bare number means bytes; packets are refused.
    for (text, want) in [
        ("\"1514\"", 1514),
        ("\"1514B\"", 1514),
        ("\"32MB\"", 32_000_000),
    ] {
        assert_eq!(flow_key::<ByteCount>(text).unwrap().0, want, "{text}");
    }
    assert_eq!(
        flow_key::<ByteCount>("\"10p\"").unwrap_err().2,
        "expected a byte count like \"1514\", \"1514B\" or \"32MB\", got \"10p\""
    );
}

#[test]
fn a_step_is_a_time_and_a_rate() {
    let text = "a = 1\nv = [\n\"50s\",\n\"1MB\"]\n";
    let cx = Ctx {
        file: "t.toml".into(),
        text,
        dir: Default::default(),
    };
    let s: Step = read("[\"50s\", \"10Mbps\"]").unwrap();
    assert_eq!(
        (s.at.checked(&cx, "p"), s.rate.checked(&cx, "p")),
        (Ok(SimDuration::from_secs(50)), Ok(Bitrate::from_mbps(10)))
    );
    assert_eq!((s.at.text(), s.rate.text()), ("50s", "10Mbps"));
    assert_eq!(s.at.span(), 11..16);
    // A time or rate that does not parse: refused when checked, at the element's line.
    let s: Step = read("[\n\"50s\",\n\"1MB\"]").unwrap();
    let e = s.rate.checked(&cx, "links[0].schedule[1]").unwrap_err();
    assert_eq!(
            (e.line, e.path.as_str(), e.msg.as_str()),
            (
                Some(4),
                "links[0].schedule[1]",
                "expected a rate with a unit, like \"10Mbps\", \"1.5Gbps\", \"500kbps\" or \"64000bps\", got \"1MB\""
            )
        );
    let s: Step = read("[\"2000000s\", \"10Mbps\"]").unwrap();
    assert_eq!(
            s.at.checked(&cx, "p").unwrap_err().msg,
            "expected a duration of at most 1000000s (about 11.6 days), got \"2000000s\", which is beyond the maximum"
        );
    for (bad, msg) in [
        (
            "[\"50s\"]",
            "expected a [time, rate] pair like [\"50s\", \"10Mbps\"], got 1 values",
        ),
        (
            "[]",
            "expected a [time, rate] pair like [\"50s\", \"10Mbps\"], got 0 values",
        ),
        ("\"50s\"", "invalid type: string \"50s\", expected a list"),
    ] {
        assert_eq!(refused::<Step>(bad), msg, "{bad}");
    }
    // An element of another type: its place in the step.
    let (_, path, msg) = read::<Step>("[\"50s\", 10]").unwrap_err();
    assert_eq!(
        (path.as_str(), msg.as_str()),
        ("v[1]", "invalid type: integer `10`, expected a string")
    );
}

#[test]
fn time_dist_reads_a_time_or_a_distribution() {
    let d: TimeDist = read("\"uniform(0ms, 1ms)\"").unwrap();
    assert!(d.get().is_random());
    assert_eq!(d.text(), "uniform(0ms, 1ms)");
    let d: TimeDist = read("\"2ms\"").unwrap();
    assert_eq!(*d.get(), DurationDist::Fixed(SimDuration::from_millis(2)));
    assert_eq!(
        refused::<TimeDist>("\"uniform(0s, 2000000s)\""),
        "expected times of at most 1000000s (about 11.6 days), got \"uniform(0s, 2000000s)\""
    );
    assert!(refused::<TimeDist>("\"uniform(0ms)\"").contains("uniform"));
    assert_eq!(
            refused::<TimeDist>("\"2\""),
            "expected a duration with a unit, like \"5ms\", \"100us\", \"1.5s\" or \"250ns\", got \"2\""
        );
}

#[test]
fn delays_read_one_delay_or_a_list_and_name_a_bad_element() {
    let d: Delays = read("\"1ms\"").unwrap();
    let DelayList::One(one) = d.value else {
        panic!("one delay read as a list")
    };
    assert_eq!(
        (*one.get(), one.span()),
        (SimDuration::from_millis(1), 10..15)
    );
    let d: Delays = read("[\"1ms\", \"2ms\"]").unwrap();
    let DelayList::PerHost(list) = d.value else {
        panic!("a list read as one delay")
    };
    assert_eq!(
        list.iter().map(|t| *t.get()).collect::<Vec<_>>(),
        [SimDuration::from_millis(1), SimDuration::from_millis(2)]
    );
    // Every element keeps the list's span.
    assert!(list.iter().all(|t| t.span() == d.span));
    assert_eq!(
        refused::<Delays>("10"),
        "expected a delay like \"20ms\", got integer"
    );
    assert_eq!(
        refused::<Delays>("{ a = 1 }"),
        "expected a delay like \"20ms\", got table"
    );
    assert_eq!(
        refused::<Delays>("1979-05-27"),
        "expected a delay like \"20ms\", got datetime"
    );
    // In a list written over several lines, the element's own line.
    let (line, path, _) = read::<Delays>("[\n  \"1ms\",\n  \"2x\"]").unwrap_err();
    assert_eq!((line, path.as_str()), (Some(4), "v[1]"));
    for (bad, msg) in [
            ("[\"1ms\", 2.5]", "expected a delay like \"20ms\", got float"),
            ("[\"1ms\", [\"2ms\"]]", "expected a delay like \"20ms\", got array"),
            (
                "[\"1ms\", \"2\"]",
                "expected a duration with a unit, like \"5ms\", \"100us\", \"1.5s\" or \"250ns\", got \"2\"",
            ),
        ] {
            let (line, path, m) = read::<Delays>(bad).unwrap_err();
            assert_eq!((line, path.as_str(), m.as_str()), (Some(2), "v[1]", msg));
        }
}

#[test]
fn the_value_readers_take_up_to_their_maximum_and_name_it_beyond() {
    assert_eq!(time_value("1000000s"), Ok(MAX_TIME));
    assert_eq!(
        time_value("1000000001ms"),
        Err(
            "expected a duration of at most 1000000s (about 11.6 days), got \"1000000001ms\", \
                 which is beyond the maximum"
                .into()
        )
    );
    assert_eq!(
        time_value("99999999999999999999s"),
        Err(
            "expected a duration of at most 1000000s (about 11.6 days), got \
                 \"99999999999999999999s\", which is beyond the maximum"
                .into()
        )
    );
    assert_eq!(rate_value("1000Gbps"), Ok(MAX_RATE));
    assert_eq!(
        rate_value("1000000000001bps"),
        Err(format!(
            "expected a rate of at most {MAX_RATE}, got \"1000000000001bps\", which is \
                 beyond the maximum"
        ))
    );
    assert_eq!(size_value("10p"), Ok(units::Size::Packets(10)));
    assert_eq!(size_value("1.5kB"), Ok(units::Size::Bytes(1500)));
    assert_eq!(
        size_value("18446744073709551616B"),
        Err(
            "\"18446744073709551616B\" is beyond the 64-bit range: expected at most \
                 18446744073709551615 (bytes, packets, bit/s or ns)"
                .into()
        )
    );
    // Another unit error is the parser's own words.
    let e = units::parse_size("10").unwrap_err();
    assert_eq!(unit_message(&e, "10"), e.to_string());
}

#[test]
fn a_time_distribution_is_a_time_or_a_distribution_within_the_maximum() {
    let ms = SimDuration::from_millis;
    assert_eq!(time_dist_value("5ms"), Ok(DurationDist::Fixed(ms(5))));
    assert_eq!(
        time_dist_value("uniform(1ms, 2ms)").map(|d| (d.max(), d.mean())),
        Ok((Some(ms(2)), SimDuration::from_micros(1500)))
    );
    assert_eq!(
        time_dist_value("uniform(0s, 1000001s)"),
        Err(
            "expected times of at most 1000000s (about 11.6 days), got \"uniform(0s, 1000001s)\""
                .into()
        )
    );
    // An exponential has no maximum: its mean is bounded.
    assert!(time_dist_value("exponential(1000000s)").is_ok());
    assert_eq!(
        time_dist_value("exponential(1000001s)"),
        Err(
            "expected times of at most 1000000s (about 11.6 days), got \"exponential(1000001s)\""
                .into()
        )
    );
    assert_eq!(
        time_dist_value("2000000s"),
        Err(
            "expected a duration of at most 1000000s (about 11.6 days), got \"2000000s\", \
                 which is beyond the maximum"
                .into()
        )
    );
}

#[test]
fn an_idle_value_is_shown_as_toml_writes_it() {
    let i: Idle = read("[\"1ms\", \"2s\"]").unwrap();
    assert_eq!(i.shown(), "[\"1ms\", \"2s\"]");
    assert_eq!(i.span(), 10..23);
    let i: Idle = read("\"5ms\"").unwrap();
    assert_eq!(i.shown(), "\"5ms\"");
    // The delay readers' words for a value that is not one.
    let e: toml::de::Error = not_a_delay("boolean");
    assert_eq!(e.message(), "expected a delay like \"20ms\", got boolean");
}
