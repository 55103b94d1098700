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
mod tests;
