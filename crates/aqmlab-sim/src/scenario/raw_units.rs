//! Values with units as the scenario's raw types read them (issue 20): a time ([`Time`]), a
//! rate ([`Rate`]), a buffer size ([`Size`]), a time or a distribution of times ([`TimeDist`])
//! and a dumbbell's per-host delays ([`Delays`]). Each is parsed once, by
//! [`aqmlab_core::units`], while the file is read, and checked against the scenario's limits
//! ([`MAX_TIME`], [`MAX_RATE`], 64 bits); the resolve steps get the typed value. A value keeps
//! the text the file wrote and its span, so a later check (a rate of 0, a window that ends
//! before it starts) quotes it and names its line.
//!
//! A `[[flows]]` key's value ([`Deferred`]: [`FlowTime`], [`FlowRate`], [`AnyTime`],
//! [`Bytes`]) and a schedule [`Step`]'s are read the same way, but a text that does not parse
//! is refused where the value is checked: a flow's, after the checks that a key applies to the
//! flow it is given on.
//!
//! Any other value that does not parse is a serde error raised where it stands: the loader's error
//! ([`super::resolve`]'s `parse`) names the file, the line (the value's span, which toml gives
//! the error) and the key path, and says what was expected, in the words of [`time_value`],
//! [`rate_value`] and [`size_value`] (the same as before these types parsed the values). A value
//! of another TOML type is refused as a string is ("invalid type: integer `10`, expected a
//! string", which the loader follows with a hint to quote values with units).

use super::{Ctx, ScenarioError, MAX_RATE, MAX_TIME};
use crate::dist::DurationDist;
use aqmlab_core::units;
use aqmlab_core::{Bitrate, SimDuration};
use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use std::ops::Range;
use toml::Spanned;

/// A value with a unit, parsed when the file was read: the value, the text the file wrote, and
/// where.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Unit<T> {
    value: T,
    text: String,
    span: Range<usize>,
}

impl<T> Unit<T> {
    /// `value`, read from `s`.
    fn new(s: Spanned<String>, value: T) -> Self {
        Unit {
            value,
            span: s.span(),
            text: s.into_inner(),
        }
    }
    /// The value.
    pub(super) fn get(&self) -> &T {
        &self.value
    }
    /// The text the file wrote (quoted in later errors, kept as written in the resolved file).
    pub(super) fn text(&self) -> &str {
        &self.text
    }
    /// Where the value stands in the scenario text.
    pub(super) fn span(&self) -> Range<usize> {
        self.span.clone()
    }
}

/// A time (a duration, a delay, a bin): at most [`MAX_TIME`].
pub(super) type Time = Unit<SimDuration>;
/// A rate: at most [`MAX_RATE`].
pub(super) type Rate = Unit<Bitrate>;
/// A buffer size, in packets or bytes.
pub(super) type Size = Unit<units::Size>;
/// A time or a distribution of times (`"uniform(0ms, 1ms)"`), at most [`MAX_TIME`].
pub(super) type TimeDist = Unit<DurationDist>;
/// A flow key's time ([`Deferred`]), at most [`MAX_TIME`].
pub(super) type FlowTime = Deferred<SimDuration>;
/// A flow key's rate ([`Deferred`]), at most [`MAX_RATE`].
pub(super) type FlowRate = Deferred<Bitrate>;
/// A flow key's time within 64 bits of nanoseconds ([`Deferred`]), for a setting whose own
/// bound is checked later with its own message (`min_rto`, `delack_timeout`, `ledbat_target`).
pub(super) type AnyTime = Deferred<AnyDuration>;
/// A flow key's byte count ([`Deferred`]): `"1514"`, `"1514B"`, `"32MB"`.
pub(super) type Bytes = Deferred<ByteCount>;

/// A duration of any length within 64 bits of nanoseconds ([`AnyTime`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct AnyDuration(pub(super) SimDuration);

/// A number of bytes ([`Bytes`]): a bare whole number in the string means bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ByteCount(pub(super) u64);

/// Where a raw value stands: a [`Unit`]'s span, or a [`Spanned`]'s.
pub(super) trait AtSpan {
    /// The value's span in the scenario text.
    fn at(&self) -> Range<usize>;
}

impl<T> AtSpan for Unit<T> {
    fn at(&self) -> Range<usize> {
        self.span()
    }
}

impl<T> AtSpan for Deferred<T> {
    fn at(&self) -> Range<usize> {
        self.span.clone()
    }
}

impl<T> AtSpan for Spanned<T> {
    fn at(&self) -> Range<usize> {
        self.span()
    }
}

/// A kind of value a [`Unit`] holds: how its text is read, with the message when it cannot be.
pub(super) trait UnitKind: Sized {
    /// The value `text` gives, or what was expected.
    fn read(text: &str) -> Result<Self, String>;
}

impl UnitKind for SimDuration {
    fn read(text: &str) -> Result<Self, String> {
        time_value(text)
    }
}

impl UnitKind for Bitrate {
    fn read(text: &str) -> Result<Self, String> {
        rate_value(text)
    }
}

impl UnitKind for units::Size {
    fn read(text: &str) -> Result<Self, String> {
        size_value(text)
    }
}

impl UnitKind for AnyDuration {
    fn read(text: &str) -> Result<Self, String> {
        units::parse_duration(text)
            .map(AnyDuration)
            .map_err(|e| unit_message(&e, text))
    }
}

impl UnitKind for ByteCount {
    fn read(text: &str) -> Result<Self, String> {
        units::parse_bytes(text)
            .map(ByteCount)
            .map_err(|e| unit_message(&e, text))
    }
}

impl UnitKind for DurationDist {
    fn read(text: &str) -> Result<Self, String> {
        time_dist_value(text)
    }
}

impl<'de, T: UnitKind> Deserialize<'de> for Unit<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A string, with its span; another type is serde's "invalid type: …, expected a string".
        let s = Spanned::<String>::deserialize(d)?;
        let value = T::read(s.get_ref()).map_err(D::Error::custom)?;
        Ok(Unit::new(s, value))
    }
}

/// A value with a unit read once, with the file, like a [`Unit`], but a text that does not
/// parse is refused only where the value is checked ([`Deferred::checked`]), with the key path
/// and the value's own line. For the `[[flows]]` keys: a key given where it does not apply
/// (`rate` on a bulk flow) is refused as such first, whatever its value, by the flow-key
/// table's checks ([`super::flow_keys`]). For a schedule step's time and rate: the error names
/// the step (`schedule[1]`) and the line of the element, as before the values were typed.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Deferred<T> {
    value: Result<T, String>,
    text: String,
    span: Range<usize>,
}

impl<T: UnitKind> Deferred<T> {
    /// The value `s` gives, read.
    fn new(s: Spanned<String>) -> Self {
        let span = s.span();
        let text = s.into_inner();
        Deferred {
            value: T::read(&text),
            text,
            span,
        }
    }
}

impl<T: Copy> Deferred<T> {
    /// The value, or the error naming `path` (the key) and the value's line.
    pub(super) fn checked(&self, cx: &Ctx<'_>, path: &str) -> Result<T, ScenarioError> {
        self.value
            .as_ref()
            .map(|v| *v)
            .map_err(|m| cx.err(Some(self.span.clone()), path, m.clone()))
    }
    /// The text the file wrote.
    pub(super) fn text(&self) -> &str {
        &self.text
    }
    /// Where the value stands in the scenario text.
    pub(super) fn span(&self) -> Range<usize> {
        self.span.clone()
    }
}

impl<'de, T: UnitKind> Deserialize<'de> for Deferred<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Another type than a string is refused at once, as it was before.
        Ok(Deferred::new(Spanned::<String>::deserialize(d)?))
    }
}

/// A repeat flow's `idle` (a `[[flows]]` key): a duration (`"10s"`), or `[low, high]` (a
/// uniform range), read once with the file, each duration as a [`Time`] is; like a
/// [`Deferred`], a value that is not a duration is refused only where the flow's idle period is
/// checked (after the checks that the key applies to the flow), naming the key and its line.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Idle {
    /// The duration, or the list's elements, each read (or what was expected).
    pub(super) value: IdleValue,
    /// The value as TOML writes it (`"5s"`, `["5s", "15s"]`), quoted in errors.
    shown: String,
    span: Range<usize>,
}

/// An [`Idle`]'s value: one duration, or a list of them.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum IdleValue {
    /// `idle = "10s"` (or a value of another type, refused when checked).
    One(Result<SimDuration, String>),
    /// `idle = ["5s", "15s"]`: each element.
    List(Vec<Result<SimDuration, String>>),
}

impl Idle {
    /// The value as TOML writes it.
    pub(super) fn shown(&self) -> &str {
        &self.shown
    }
    /// Where the value stands in the scenario text.
    pub(super) fn span(&self) -> Range<usize> {
        self.span.clone()
    }
}

impl AtSpan for Idle {
    fn at(&self) -> Range<usize> {
        self.span()
    }
}

impl<'de> Deserialize<'de> for Idle {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Spanned::<toml::Value>::deserialize(d)?;
        let one = |v: &toml::Value| match v {
            toml::Value::String(s) => time_value(s),
            other => Err(format!(
                "expected a duration with a unit, like \"10s\", got {other}"
            )),
        };
        let value = match v.get_ref() {
            toml::Value::Array(a) => IdleValue::List(a.iter().map(one).collect()),
            other => IdleValue::One(one(other)),
        };
        Ok(Idle {
            value,
            shown: v.get_ref().to_string(),
            span: v.span(),
        })
    }
}

/// A time of at most [`MAX_TIME`], or what was expected.
pub(super) fn time_value(text: &str) -> Result<SimDuration, String> {
    let beyond = || {
        format!(
            "expected a duration of at most {}s (about 11.6 days), got {text:?}, which is beyond the maximum",
            MAX_TIME.as_nanos() / 1_000_000_000,
        )
    };
    match units::parse_duration(text) {
        Err(e) if e.expected == units::BEYOND_64_BITS => Err(beyond()),
        Err(e) => Err(e.to_string()),
        Ok(d) if d > MAX_TIME => Err(beyond()),
        Ok(d) => Ok(d),
    }
}

/// A rate of at most [`MAX_RATE`], or what was expected.
pub(super) fn rate_value(text: &str) -> Result<Bitrate, String> {
    let beyond = || {
        format!("expected a rate of at most {MAX_RATE}, got {text:?}, which is beyond the maximum")
    };
    match units::parse_bitrate(text) {
        Err(e) if e.expected == units::BEYOND_64_BITS => Err(beyond()),
        Err(e) => Err(e.to_string()),
        Ok(r) if r > MAX_RATE => Err(beyond()),
        Ok(r) => Ok(r),
    }
}

/// A buffer size, or what was expected.
pub(super) fn size_value(text: &str) -> Result<units::Size, String> {
    units::parse_size(text).map_err(|e| unit_message(&e, text))
}

/// `e` said as a user would: a value beyond 64 bits names the maximum.
pub(super) fn unit_message(e: &units::UnitError, text: &str) -> String {
    if e.expected == units::BEYOND_64_BITS {
        format!(
            "{text:?} is beyond the 64-bit range: expected at most 18446744073709551615 (bytes, packets, bit/s or ns)"
        )
    } else {
        e.to_string()
    }
}

/// A time (at most [`MAX_TIME`]) or a distribution of times (`"uniform(A, B)"`,
/// `"exponential(MEAN)"`), or what was expected.
pub(super) fn time_dist_value(text: &str) -> Result<DurationDist, String> {
    if !text.contains('(') {
        return time_value(text).map(DurationDist::Fixed);
    }
    let d = DurationDist::parse(text)?;
    if d.max().unwrap_or(d.mean()) > MAX_TIME {
        return Err(format!(
            "expected times of at most {}s (about 11.6 days), got {text:?}",
            MAX_TIME.as_nanos() / 1_000_000_000,
        ));
    }
    Ok(d)
}

/// A step of a link's `schedule`: `["50s", "10Mbps"]`, the rate from that time on. A step
/// that is not a pair is refused as the file is read, naming the step (`links[0].schedule[1]`);
/// an element of another type than a string, its place in the step
/// (`links[0].schedule[1][0]`). A time or rate that does not parse is refused where the
/// schedule is checked, naming the step and the element's line ([`Deferred`]).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Step {
    /// When the rate starts.
    pub(super) at: Deferred<SimDuration>,
    /// The rate.
    pub(super) rate: Deferred<Bitrate>,
}

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Step;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                // As the loader says a list it expected.
                f.write_str("a list")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Step, A::Error> {
                let mut items: Vec<Spanned<String>> = Vec::with_capacity(2);
                while let Some(x) = seq.next_element()? {
                    items.push(x);
                }
                let [at, rate] = <[Spanned<String>; 2]>::try_from(items).map_err(|v| {
                    A::Error::custom(format!(
                        "expected a [time, rate] pair like [\"50s\", \"10Mbps\"], got {} values",
                        v.len()
                    ))
                })?;
                Ok(Step {
                    at: Deferred::new(at),
                    rate: Deferred::new(rate),
                })
            }
        }
        d.deserialize_seq(V)
    }
}

/// A dumbbell's `sender_delay` or `receiver_delay`: one delay for every host, or a list with one
/// per host (the count is checked against `senders` when the topology is read). An element
/// that is not a delay is refused with its index (`dumbbell.sender_delay[1]`); every element
/// keeps the list's span, as the errors about it name the line the key stands on.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Delays {
    /// The delay or delays.
    pub(super) value: DelayList,
    /// Where the value stands.
    pub(super) span: Range<usize>,
}

/// One delay for every host, or one per host.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum DelayList {
    /// `sender_delay = "1ms"`.
    One(Time),
    /// `sender_delay = ["1ms", "5ms"]`.
    PerHost(Vec<Time>),
}

/// One delay or a list of them, before the span is known: `(value, text)` each.
enum DelaysAny {
    One(SimDuration, String),
    List(Vec<(SimDuration, String)>),
}

/// One element (or the whole value) of [`Delays`]: a string with a delay.
struct DelayText(SimDuration, String);

/// The type `what` of a value that is not a delay, as TOML names it.
fn not_a_delay<E: serde::de::Error>(what: &str) -> E {
    E::custom(format!("expected a delay like \"20ms\", got {what}"))
}

/// The TOML type of a table or datetime (which toml hands over as a one-key table).
fn table_or_datetime<'de, A: serde::de::MapAccess<'de>>(mut map: A) -> &'static str {
    match map.next_key::<String>() {
        Ok(Some(k)) if k == "$__toml_private_datetime" => "datetime",
        _ => "table",
    }
}

/// Visits a delay's string, refusing other types (`LIST_OK`: a list of delays is taken too).
struct DelayVisitor<const LIST_OK: bool>;

impl<'de, const LIST_OK: bool> serde::de::Visitor<'de> for DelayVisitor<LIST_OK> {
    type Value = DelaysAny;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if LIST_OK {
            f.write_str("a delay like \"20ms\", or a list of them (one per sender)")
        } else {
            f.write_str("a delay like \"20ms\"")
        }
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<DelaysAny, E> {
        Ok(DelaysAny::One(
            time_value(v).map_err(E::custom)?,
            v.to_string(),
        ))
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<DelaysAny, E> {
        Err(not_a_delay("integer"))
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<DelaysAny, E> {
        Err(not_a_delay("integer"))
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<DelaysAny, E> {
        Err(not_a_delay("float"))
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<DelaysAny, E> {
        Err(not_a_delay("boolean"))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<DelaysAny, A::Error> {
        Err(not_a_delay(table_or_datetime(map)))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<DelaysAny, A::Error> {
        if !LIST_OK {
            return Err(not_a_delay("array"));
        }
        let mut list = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        // Each element read by its own deserializer, so an error names its index.
        while let Some(DelayText(d, t)) = seq.next_element()? {
            list.push((d, t));
        }
        Ok(DelaysAny::List(list))
    }
}

impl<'de> Deserialize<'de> for DelayText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match d.deserialize_any(DelayVisitor::<false>)? {
            DelaysAny::One(v, t) => Ok(DelayText(v, t)),
            DelaysAny::List(_) => unreachable!("a list is refused inside a list"),
        }
    }
}

impl<'de> Deserialize<'de> for DelaysAny {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DelayVisitor::<true>)
    }
}

impl<'de> Deserialize<'de> for Delays {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Spanned::<DelaysAny>::deserialize(d)?;
        let span = s.span();
        let time = |(value, text)| Unit {
            value,
            text,
            span: span.clone(),
        };
        let value = match s.into_inner() {
            DelaysAny::One(v, t) => DelayList::One(time((v, t))),
            DelaysAny::List(l) => DelayList::PerHost(l.into_iter().map(time).collect()),
        };
        Ok(Delays { value, span })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `v = TEXT` read as a `T` the way the loader reads a scenario: `(value, text, line)` or
    /// `(line, key path, message)`.
    fn read<T: for<'de> Deserialize<'de>>(
        value: &str,
    ) -> Result<T, (Option<usize>, String, String)> {
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
                format!(
                    "expected a rate of at most 1000Gbps, got {big}, which is beyond the maximum"
                )
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
            Err("expected times of at most 1000000s (about 11.6 days), got \"uniform(0s, 1000001s)\"".into())
        );
        // An exponential has no maximum: its mean is bounded.
        assert!(time_dist_value("exponential(1000000s)").is_ok());
        assert_eq!(
            time_dist_value("exponential(1000001s)"),
            Err("expected times of at most 1000000s (about 11.6 days), got \"exponential(1000001s)\"".into())
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
}
