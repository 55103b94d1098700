//! Parameters as users write them (`target=5ms`, `limit=1000p`), declared once per discipline in
//! a table of [`ParamSpec`]s (name, type, unit, default, valid range, one line of doc; as ns-3's
//! `GetTypeId` declares attributes). The table is read by the scenario loader, by
//! `aqmlab replay --list`, by `docs/parameters.md` (generated from it) and by the checks here:
//! [`Params::new`] parses every value, given or default, to its type and checks it against its
//! range, once, so a discipline reads typed values and keeps only its cross-parameter rules.
//! Values the caller already holds typed (a scenario's buffer, its link's rate or delay) are
//! given as such ([`Params::with_values`], [`Given::Typed`]) and a value derived after the parse
//! (CoDel's `mtu = "auto"` from the traffic) is set typed ([`Params::set`]): each is checked
//! against its spec without going through text again.
//! Errors are one line naming the discipline, the parameter, the value and what was expected:
//! `codel: parameter target = -1ms: expected a duration > 0`.

use aqmlab_core::units::{self, Size};
use aqmlab_core::{Bitrate, SimDuration};
use std::fmt::Write as _;

/// The type of a parameter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// A duration with a unit (`5ms`); range in nanoseconds.
    Duration,
    /// A bit rate with a unit (`10Mbps`); range in bit/s.
    Rate,
    /// A buffer size in packets (`1000p`) or bytes (`1.5MB`); range on the count.
    Size,
    /// A byte count (`1514`, `32MiB`).
    Bytes,
    /// A real number.
    Number,
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Bool,
    /// One of the words, separated by `|` (`"rfc|linux|ns3"`).
    Enum(&'static str),
    /// A duration, or a packet count like `5p`.
    DurationOrPackets,
}

/// One end of a valid range, in the parameter's base unit (ns, bit/s, bytes, packets, or the
/// number itself).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// Unbounded.
    None,
    /// The value may equal it.
    Incl(f64),
    /// The value must not equal it.
    Excl(f64),
}

/// How a parameter's value comes about besides the operator's setting: RFC 7928 §12 asks of an
/// AQM what the operator must set and what it tunes by itself. The text says from what and cites
/// the spec; `aqmlab replay --list`, `docs/parameters.md` and the characterization report print it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tuning {
    /// The value is the operator's (given, or the default) and does not change.
    Fixed,
    /// Computed when the discipline is configured, from the other parameters or the link (an
    /// `auto` value, or a rule), as the text says.
    Derived(&'static str),
    /// Changed by the discipline itself while it runs, as the text says.
    Adapted(&'static str),
}

impl Tuning {
    /// `fixed`, `derived` or `adapted`.
    pub const fn kind(&self) -> &'static str {
        match self {
            Tuning::Fixed => "fixed",
            Tuning::Derived(_) => "derived",
            Tuning::Adapted(_) => "adapted",
        }
    }
    /// From what, and how (empty when fixed).
    pub const fn how(&self) -> &'static str {
        match self {
            Tuning::Fixed => "",
            Tuning::Derived(s) | Tuning::Adapted(s) => s,
        }
    }
}

/// One documented parameter of a discipline.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// Name as written on the command line and in scenario files.
    pub name: &'static str,
    /// Default, written as a user would write it.
    pub default: &'static str,
    /// The value's type.
    pub ty: Type,
    /// The unit of the value and of its range (`""`: none, or implied by the type).
    pub unit: &'static str,
    /// Lower end of the valid range.
    pub min: Bound,
    /// Upper end of the valid range.
    pub max: Bound,
    /// Words accepted instead of a value, `|`-separated (`"auto"`, `"off|none"`), or `""`.
    pub words: &'static str,
    /// One line of doc.
    pub help: &'static str,
    /// Whether the value is derived at configuration or adapted at run time, from what.
    pub tuning: Tuning,
}

/// `a == b` where a `const fn` needs it (`str`'s `==` is not `const`).
pub(crate) const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl ParamSpec {
    const fn typed(
        name: &'static str,
        default: &'static str,
        ty: Type,
        help: &'static str,
    ) -> Self {
        ParamSpec {
            name,
            default,
            ty,
            unit: "",
            min: Bound::None,
            max: Bound::None,
            words: "",
            help,
            tuning: Tuning::Fixed,
        }
    }

    /// A duration ≥ 0.
    pub const fn duration(name: &'static str, default: &'static str, help: &'static str) -> Self {
        Self::typed(name, default, Type::Duration, help).ge(0.0)
    }
    /// A duration or a packet count (`5p`), ≥ 0.
    pub const fn duration_or_packets(
        name: &'static str,
        default: &'static str,
        help: &'static str,
    ) -> Self {
        Self::typed(name, default, Type::DurationOrPackets, help).ge(0.0)
    }
    /// A bit rate ≥ 0.
    pub const fn rate(name: &'static str, default: &'static str, help: &'static str) -> Self {
        Self::typed(name, default, Type::Rate, help).ge(0.0)
    }
    /// A buffer size, packets or bytes, > 0.
    pub const fn size(name: &'static str, default: &'static str, help: &'static str) -> Self {
        Self::typed(name, default, Type::Size, help).gt(0.0)
    }
    /// A byte count ≥ 0.
    pub const fn bytes(name: &'static str, default: &'static str, help: &'static str) -> Self {
        Self::typed(name, default, Type::Bytes, help).ge(0.0)
    }
    /// A real number (narrow it with a range).
    pub const fn number(name: &'static str, default: &'static str, help: &'static str) -> Self {
        Self::typed(name, default, Type::Number, help)
    }
    /// A whole number ≥ 0.
    pub const fn integer(name: &'static str, default: &'static str, help: &'static str) -> Self {
        Self::typed(name, default, Type::Integer, help).ge(0.0)
    }
    /// `true` or `false`.
    pub const fn boolean(name: &'static str, default: &'static str, help: &'static str) -> Self {
        Self::typed(name, default, Type::Bool, help)
    }
    /// One of `choices`, separated by `|`.
    pub const fn choice(
        name: &'static str,
        default: &'static str,
        choices: &'static str,
        help: &'static str,
    ) -> Self {
        Self::typed(name, default, Type::Enum(choices), help)
    }
    /// Values must be > `lo` (base unit: ns, bit/s, bytes, packets).
    pub const fn gt(mut self, lo: f64) -> Self {
        self.min = Bound::Excl(lo);
        self
    }
    /// Values must be ≥ `lo`.
    pub const fn ge(mut self, lo: f64) -> Self {
        self.min = Bound::Incl(lo);
        self
    }
    /// Values must be < `hi`.
    pub const fn lt(mut self, hi: f64) -> Self {
        self.max = Bound::Excl(hi);
        self
    }
    /// Values must be ≤ `hi`.
    pub const fn le(mut self, hi: f64) -> Self {
        self.max = Bound::Incl(hi);
        self
    }
    /// Values in `[lo, hi]`.
    pub const fn within(self, lo: f64, hi: f64) -> Self {
        self.ge(lo).le(hi)
    }
    /// The unit the value (and its range) is stated in.
    pub const fn unit(mut self, unit: &'static str) -> Self {
        self.unit = unit;
        self
    }
    /// Words accepted instead of a value (`"auto"`, `"off|none"`).
    pub const fn or(mut self, words: &'static str) -> Self {
        self.words = words;
        self
    }
    /// The value is computed at configuration, from what `how` says (with the spec's section).
    pub const fn derived(mut self, how: &'static str) -> Self {
        self.tuning = Tuning::Derived(how);
        self
    }
    /// The discipline changes the value while it runs, as `how` says (with the spec's section).
    pub const fn adapted(mut self, how: &'static str) -> Self {
        self.tuning = Tuning::Adapted(how);
        self
    }
    /// The same spec with another default.
    pub const fn with_default(mut self, default: &'static str) -> Self {
        self.default = default;
        self
    }

    /// The type's name as `--list` and the docs print it.
    pub fn type_name(&self) -> &'static str {
        match self.ty {
            Type::Duration => "duration",
            Type::Rate => "rate",
            Type::Size => "size",
            Type::Bytes => "bytes",
            Type::Number => "number",
            Type::Integer => "integer",
            Type::Bool => "bool",
            Type::Enum(_) => "enum",
            Type::DurationOrPackets => "duration|packets",
        }
    }

    /// The unit as printed: the declared one, or the type's (`-` for none).
    pub fn unit_text(&self) -> &'static str {
        if !self.unit.is_empty() {
            return self.unit;
        }
        match self.ty {
            Type::Duration => "time",
            Type::Rate => "bit/s",
            Type::Size => "packets|bytes",
            Type::Bytes => "bytes",
            Type::DurationOrPackets => "time|packets",
            _ => "-",
        }
    }

    /// The choices of an enum (empty for other types).
    pub fn choices(&self) -> impl Iterator<Item = &'static str> {
        let s = match self.ty {
            Type::Enum(c) => c,
            _ => "",
        };
        s.split('|').filter(|w| !w.is_empty())
    }

    fn words(&self) -> impl Iterator<Item = &'static str> {
        self.words.split('|').filter(|w| !w.is_empty())
    }

    fn bound_text(&self, v: f64) -> String {
        let whole = v.fract() == 0.0 && (0.0..1.8e19).contains(&v);
        match self.ty {
            _ if v == 0.0 => "0".to_string(),
            // A limit of the representation (2^63 ns, ns-3's `Time`) in seconds, not in a
            // 19-digit count of nanoseconds.
            Type::Duration | Type::DurationOrPackets if v >= 1e9 && v % 1e9 != 0.0 => {
                format!("{}s", v / 1e9)
            }
            Type::Duration | Type::DurationOrPackets if whole => {
                SimDuration::from_nanos(v as u64).to_string()
            }
            Type::Rate if whole => Bitrate::from_bps(v as u64).to_string(),
            _ if v.abs() >= 1e6 && (v.abs().log10().fract() == 0.0) => format!("{v:e}"),
            _ => format!("{v}"),
        }
    }

    /// The valid range in the unit, as `(0, 1s]`, `> 0`, `>= 0`, or the choices `a|b|c`; with
    /// the accepted words after `or`. Empty when anything of the type goes.
    pub fn range_text(&self) -> String {
        let mut s = match (self.ty, self.min, self.max) {
            (Type::Enum(c), _, _) => c.to_string(),
            (Type::Bool, _, _) => "true|false".to_string(),
            (_, Bound::None, Bound::None) => String::new(),
            (_, lo, Bound::None) => match lo {
                Bound::Incl(v) => format!(">= {}", self.bound_text(v)),
                Bound::Excl(v) => format!("> {}", self.bound_text(v)),
                Bound::None => unreachable!(),
            },
            (_, Bound::None, hi) => match hi {
                Bound::Incl(v) => format!("<= {}", self.bound_text(v)),
                Bound::Excl(v) => format!("< {}", self.bound_text(v)),
                Bound::None => unreachable!(),
            },
            (_, lo, hi) => {
                let (l, lv) = match lo {
                    Bound::Incl(v) => ('[', v),
                    Bound::Excl(v) => ('(', v),
                    Bound::None => unreachable!(),
                };
                let (h, hv) = match hi {
                    Bound::Incl(v) => (']', v),
                    Bound::Excl(v) => (')', v),
                    Bound::None => unreachable!(),
                };
                format!("{l}{}, {}{h}", self.bound_text(lv), self.bound_text(hv))
            }
        };
        if !self.words.is_empty() {
            if !s.is_empty() {
                s.push_str(" or ");
            }
            s.push_str(self.words);
        }
        s
    }

    /// What a value must be, for errors: `a duration in (0, 1s]`, `one of rfc, linux, ns3`.
    pub fn expected(&self) -> String {
        let what = match self.ty {
            Type::Enum(_) => {
                let all: Vec<&str> = self.choices().chain(self.words()).collect();
                return format!("one of {}", all.join(", "));
            }
            Type::Bool => return "true or false".to_string(),
            Type::Duration => "a duration",
            Type::DurationOrPackets => "a duration or a packet count",
            Type::Rate => "a rate",
            Type::Size => "a size in packets or bytes",
            Type::Bytes => "a byte count",
            Type::Number => "a number",
            Type::Integer => "an integer",
        };
        let mut s = what.to_string();
        match (self.min, self.max) {
            (Bound::None, Bound::None) => {}
            (Bound::None, _) | (_, Bound::None) => {
                // One-sided: `> 0`, `<= 1e9`; without the words, added below.
                let r = ParamSpec { words: "", ..*self }.range_text();
                let _ = write!(s, " {r}");
            }
            _ => {
                let r = ParamSpec { words: "", ..*self }.range_text();
                let _ = write!(s, " in {r}");
            }
        }
        if !self.unit.is_empty() && matches!(self.ty, Type::Number | Type::Integer) {
            let _ = write!(s, " ({})", self.unit);
        }
        let words: Vec<&str> = self.words().collect();
        if !words.is_empty() {
            let _ = write!(s, ", or {}", words.join(" or "));
        }
        s
    }

    fn example(&self) -> &'static str {
        match self.ty {
            Type::Duration => "5ms, 100us, 1.5s or 250ns",
            Type::DurationOrPackets => "1ms or 5p",
            Type::Rate => "10Mbps or 1Gbps",
            Type::Size => "1000p or 1.5MB",
            Type::Bytes => "1514, 1514B or 32MiB",
            Type::Number => "0.002",
            Type::Integer => "1024",
            Type::Bool | Type::Enum(_) => "",
        }
    }

    fn in_range(&self, v: f64) -> bool {
        let lo = match self.min {
            Bound::None => true,
            Bound::Incl(b) => v >= b,
            Bound::Excl(b) => v > b,
        };
        let hi = match self.max {
            Bound::None => true,
            Bound::Incl(b) => v <= b,
            Bound::Excl(b) => v < b,
        };
        lo && hi
    }

    /// Parses `text` to this parameter's type and checks its range (the one check every value
    /// goes through): [`ParamSpec::read`], then the range. `kind` names the discipline in the
    /// error.
    pub fn parse(&self, kind: &'static str, text: &str) -> Result<Value, ConfigError> {
        let value = self.read(kind, text)?;
        self.check_written(kind, value, Some(text))
    }

    /// Reads `text` into a value of this parameter's type (one of its words, or the type
    /// parsed), without its range: the one parse from text a value goes through. A caller that
    /// decides on the typed value before the range is checked (an FQ scheduler's byte `limit`,
    /// which is its memory limit) reads it, then checks it against the spec it ends up under
    /// ([`Given::Read`]). `kind` names the discipline in the error.
    pub fn read(&self, kind: &'static str, text: &str) -> Result<Value, ConfigError> {
        TEXTS_PARSED.with(|n| n.set(n.get() + 1));
        if let Some(w) = self.words().find(|w| *w == text) {
            return Ok(Value::Word(w));
        }
        let bad = || {
            let mut expected = self.expected();
            if !self.example().is_empty() {
                let _ = write!(expected, " (like {})", self.example());
            }
            ConfigError::Value {
                kind,
                name: self.name,
                value: text.to_string(),
                expected,
            }
        };
        // A value that parses but is beyond 64 bits (`1e12s`: 10^21 ns) is no value of the
        // type at all: say so, not only the range, which it would seem to meet.
        let bad_unit = |e: units::UnitError| {
            if e.expected == units::BEYOND_64_BITS {
                let mut err = bad();
                if let ConfigError::Value { expected, .. } = &mut err {
                    let _ = write!(
                        expected,
                        ", within 64 bits (this one is beyond the maximum)"
                    );
                }
                err
            } else {
                bad()
            }
        };
        Ok(match self.ty {
            Type::Enum(_) => {
                return self
                    .choices()
                    .position(|c| c == text)
                    .map(Value::Choice)
                    .ok_or_else(bad);
            }
            Type::Bool => units::parse_bool(text).map(Value::Bool).map_err(bad_unit)?,
            Type::Duration => Value::Duration(units::parse_duration(text).map_err(bad_unit)?),
            Type::DurationOrPackets => match units::parse_duration(text) {
                Ok(d) => Value::Duration(d),
                Err(e) if e.expected == units::BEYOND_64_BITS => return Err(bad_unit(e)),
                Err(_) => match units::parse_size(text) {
                    Ok(Size::Packets(n)) => Value::Size(Size::Packets(n)),
                    Err(e) => return Err(bad_unit(e)),
                    _ => return Err(bad()),
                },
            },
            Type::Rate => Value::Rate(units::parse_bitrate(text).map_err(bad_unit)?),
            Type::Size => Value::Size(units::parse_size(text).map_err(bad_unit)?),
            Type::Bytes => Value::Bytes(units::parse_bytes(text).map_err(bad_unit)?),
            Type::Number => Value::Number(units::parse_f64(text).map_err(bad_unit)?),
            Type::Integer => Value::Integer(units::parse_u64(text).map_err(bad_unit)?),
        })
    }

    /// Checks a value already typed (a buffer, a link's rate or delay, a derived `mtu`) against
    /// this parameter's type and range, as [`ParamSpec::parse`] checks a parsed one, without
    /// going through text. The error shows the value as [`ParamSpec::text`] writes it.
    pub fn check(&self, kind: &'static str, value: Value) -> Result<Value, ConfigError> {
        self.check_written(kind, value, None)
    }

    /// [`ParamSpec::check`], the error quoting `written` (the text the value was read from)
    /// when there is one.
    fn check_written(
        &self,
        kind: &'static str,
        value: Value,
        written: Option<&str>,
    ) -> Result<Value, ConfigError> {
        let magnitude = match (self.ty, value) {
            (_, Value::Word(w)) if self.words().any(|x| x == w) => return Ok(value),
            (Type::Enum(_), Value::Choice(i)) if i < self.choices().count() => return Ok(value),
            (Type::Bool, Value::Bool(_)) => return Ok(value),
            (Type::Duration | Type::DurationOrPackets, Value::Duration(d)) => d.as_nanos() as f64,
            (Type::DurationOrPackets, Value::Size(Size::Packets(n))) => n as f64,
            (Type::Rate, Value::Rate(r)) => r.as_bps() as f64,
            (Type::Size, Value::Size(Size::Packets(n) | Size::Bytes(n))) => n as f64,
            (Type::Bytes, Value::Bytes(n)) => n as f64,
            (Type::Number, Value::Number(v)) => v,
            (Type::Integer, Value::Integer(v)) => v as f64,
            _ => f64::NAN, // of another type: fails the range check below
        };
        if self.in_range(magnitude) && !magnitude.is_nan() {
            Ok(value)
        } else {
            Err(ConfigError::Value {
                kind,
                name: self.name,
                value: written.map_or_else(|| self.text(value), str::to_string),
                expected: self.expected(),
            })
        }
    }

    /// `value` written as a user would write it, in canonical units (`5ms`, `10Mbps`, `1000p`,
    /// `1514B`): the text a typed value stands as in a resolved scenario.
    pub fn text(&self, value: Value) -> String {
        match value {
            Value::Duration(d) => d.to_string(),
            Value::Rate(r) => r.to_string(),
            Value::Size(s) => s.to_string(),
            Value::Bytes(n) => format!("{n}B"),
            Value::Number(v) => v.to_string(),
            Value::Integer(v) => v.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Choice(i) => self.choices().nth(i).unwrap_or("?").to_string(),
            Value::Word(w) => w.to_string(),
        }
    }
}

thread_local! {
    /// How many values [`ParamSpec::parse`] has parsed from text on this thread.
    static TEXTS_PARSED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// How many tables of values [`Params::with_values`] has parsed on this thread.
    static TABLES_PARSED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many parameter values (given or default) have been parsed from text on this thread so
/// far: tests use it to check that the scenario loader parses each value once.
pub fn texts_parsed() -> u64 {
    TEXTS_PARSED.with(|n| n.get())
}

/// How many discipline parameter tables ([`Params`]) have been parsed on this thread so far:
/// tests use it to check that the scenario loader parses each direction's parameters once.
pub fn tables_parsed() -> u64 {
    TABLES_PARSED.with(|n| n.get())
}

/// A parameter's value as [`Params::with_values`] takes it: the text a user wrote, parsed
/// against the parameter's spec, or a value the caller already holds typed (a link's buffer,
/// rate or delay), checked against the spec's type and range without going through text.
#[derive(Clone, Debug, PartialEq)]
pub enum Given {
    /// As written (`"5ms"`, `"true"`).
    Text(String),
    /// Typed; written in a resolved scenario as [`ParamSpec::text`] writes it.
    Typed(Value),
    /// Read from its text already, once ([`ParamSpec::read`], by the spec of the parameter it
    /// is given as): the text, written in a resolved scenario as given, and the value (or the
    /// error the read gave). The value's range is checked against the spec here, and an error
    /// (of the read or of the range) is reported in the table's order, quoting the text, as a
    /// [`Given::Text`]'s would be.
    Read(String, Result<Value, ConfigError>),
}

/// A parsed, range-checked value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// [`Type::Duration`] (or [`Type::DurationOrPackets`] given as a time).
    Duration(SimDuration),
    /// [`Type::Rate`].
    Rate(Bitrate),
    /// [`Type::Size`] (or [`Type::DurationOrPackets`] given in packets).
    Size(Size),
    /// [`Type::Bytes`].
    Bytes(u64),
    /// [`Type::Number`].
    Number(f64),
    /// [`Type::Integer`].
    Integer(u64),
    /// [`Type::Bool`].
    Bool(bool),
    /// [`Type::Enum`]: the index of the choice.
    Choice(usize),
    /// One of the spec's words (`auto`, `off`).
    Word(&'static str),
}

/// A parameter's value as a resolved scenario writes it ([`Params::resolved_written`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Written<'a> {
    /// As text: a duration, rate or size in its units (`"5ms"`, `"10Mbps"`, `"100p"`), an
    /// enum's choice, or one of the spec's words (`"auto"`).
    Text(&'a str),
    /// [`Type::Bool`].
    Bool(bool),
    /// [`Type::Number`] (finite: [`ParamSpec::parse`] refuses the others).
    Number(f64),
    /// [`Type::Integer`].
    Integer(u64),
}

/// A bad discipline name, parameter name or value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The discipline name is not known.
    #[error("unknown queue discipline {0:?}: expected one of {known}", known = crate::registry::Kind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>().join(", "))]
    UnknownKind(String),
    /// The parameter is not one of the discipline's.
    #[error("{kind} has no parameter {name:?}: its parameters are {known}")]
    UnknownParam {
        /// Discipline.
        kind: &'static str,
        /// The unknown name.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// A `NAME=VALUE` item without `=`.
    #[error("parameter {0:?}: expected NAME=VALUE")]
    Malformed(String),
    /// Given twice.
    #[error("parameter {0} is given twice")]
    Duplicate(String),
    /// The value does not parse to the parameter's type or is outside its range.
    #[error("{kind}: parameter {name} = {value}: expected {expected}")]
    Value {
        /// Discipline.
        kind: &'static str,
        /// Parameter.
        name: &'static str,
        /// The value as written.
        value: String,
        /// Type, range and choices expected.
        expected: String,
    },
    /// The value is valid alone but breaks a rule with another parameter.
    #[error("{kind}: parameter {name} = {value}: {msg}")]
    Invalid {
        /// Discipline.
        kind: &'static str,
        /// Parameter.
        name: &'static str,
        /// The value as written.
        value: String,
        /// What was expected.
        msg: String,
    },
}

/// The values given for one discipline, every one (given or default) parsed and range-checked
/// against its spec table. Getters return the typed values.
#[derive(Clone, Debug)]
pub struct Params {
    kind: &'static str,
    specs: &'static [ParamSpec],
    given: Vec<(&'static str, String)>,
    values: Vec<Value>,
}

impl Params {
    /// Checks that every `(name, value)` names a parameter in `specs` and none repeats, and
    /// parses and range-checks every parameter's value (given or default).
    pub fn new(
        kind: &'static str,
        specs: &'static [ParamSpec],
        given: &[(String, String)],
    ) -> Result<Self, ConfigError> {
        let given: Vec<(String, Given)> = given
            .iter()
            .map(|(n, v)| (n.clone(), Given::Text(v.clone())))
            .collect();
        Self::with_values(kind, specs, &given)
    }

    /// As [`Params::new`], with values given as text or typed ([`Given`]): each value is parsed
    /// or checked once, every default parsed once.
    pub fn with_values(
        kind: &'static str,
        specs: &'static [ParamSpec],
        given: &[(String, Given)],
    ) -> Result<Self, ConfigError> {
        TABLES_PARSED.with(|n| n.set(n.get() + 1));
        let mut out: Vec<(&'static str, String)> = Vec::with_capacity(given.len());
        // Values given typed or read: `(name, value, whether it was read from the given text)`.
        type Held = Result<Value, ConfigError>;
        let mut typed: Vec<(&'static str, Held, bool)> = Vec::new();
        for (name, value) in given {
            let spec = specs
                .iter()
                .find(|s| s.name == name.as_str())
                .ok_or_else(|| ConfigError::UnknownParam {
                    kind,
                    name: name.clone(),
                    known: specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
                })?;
            if out.iter().any(|(n, _)| *n == spec.name) {
                return Err(ConfigError::Duplicate(spec.name.to_string()));
            }
            match value {
                Given::Text(t) => out.push((spec.name, t.clone())),
                Given::Typed(v) => {
                    out.push((spec.name, spec.text(*v)));
                    typed.push((spec.name, Ok(*v), false));
                }
                Given::Read(t, v) => {
                    out.push((spec.name, t.clone()));
                    typed.push((spec.name, v.clone(), true));
                }
            }
        }
        let mut p = Params {
            kind,
            specs,
            given: out,
            values: Vec::with_capacity(specs.len()),
        };
        for s in specs {
            let v = match typed.iter().find(|(n, _, _)| *n == s.name) {
                Some((_, Err(e), _)) => return Err(e.clone()),
                Some((_, Ok(v), false)) => s.check(kind, *v)?,
                Some((_, Ok(v), true)) => s.check_written(kind, *v, Some(p.raw(s.name).1))?,
                None => s.parse(kind, p.raw(s.name).1)?,
            };
            p.values.push(v);
        }
        Ok(p)
    }

    /// Replaces the value of `name` with `value` (a value derived at set-up, like CoDel's
    /// `mtu = "auto"` from the traffic), checked against its spec's type and range, not parsed;
    /// it counts as given and [`Params::resolved`] writes it as [`ParamSpec::text`] does. The
    /// caller checks the result against the other parameters (`AnyConfig::from_params`).
    pub fn set(&mut self, name: &str, value: Value) -> Result<(), ConfigError> {
        let i = self
            .specs
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| ConfigError::UnknownParam {
                kind: self.kind,
                name: name.to_string(),
                known: self
                    .specs
                    .iter()
                    .map(|s| s.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        let spec = &self.specs[i];
        let value = spec.check(self.kind, value)?;
        let text = spec.text(value);
        match self.given.iter_mut().find(|(n, _)| *n == spec.name) {
            Some(slot) => slot.1 = text,
            None => self.given.push((spec.name, text)),
        }
        self.values[i] = value;
        Ok(())
    }

    /// Splits `["target=5ms", "gentle=true"]` into pairs.
    pub fn split_pairs<S: AsRef<str>>(items: &[S]) -> Result<Vec<(String, String)>, ConfigError> {
        items
            .iter()
            .map(|it| {
                let it = it.as_ref();
                match it.split_once('=') {
                    Some((n, v)) if !n.trim().is_empty() => {
                        Ok((n.trim().to_string(), v.trim().to_string()))
                    }
                    _ => Err(ConfigError::Malformed(it.to_string())),
                }
            })
            .collect()
    }

    /// The discipline these parameters are for.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// True when `name` is in the discipline's parameter table.
    pub fn has_param(&self, name: &str) -> bool {
        self.specs.iter().any(|s| s.name == name)
    }

    /// True when the user gave `name` explicitly.
    pub fn is_given(&self, name: &str) -> bool {
        self.given.iter().any(|(n, _)| *n == name)
    }

    /// Every parameter of the discipline in its table's order, with the text given for it or
    /// its default: the fully resolved parameters, which build the same discipline when given.
    pub fn resolved(&self) -> Vec<(&'static str, &str)> {
        self.specs.iter().map(|s| self.raw(s.name)).collect()
    }

    /// [`Params::resolved`], each value in the form its type takes in a resolved scenario's
    /// TOML (issue 20): a boolean, number or whole number as itself, every other value (a
    /// duration, rate or size in its units, an enum's choice, a word like `auto`) as the text
    /// given or its default. Loaded again, each reads back to the same value, bit for bit: a
    /// number is written in the shortest form that parses to it.
    pub fn resolved_written(&self) -> Vec<(&'static str, Written<'_>)> {
        self.specs
            .iter()
            .zip(&self.values)
            .map(|(s, v)| {
                let w = match *v {
                    Value::Bool(b) => Written::Bool(b),
                    Value::Number(x) => Written::Number(x),
                    Value::Integer(n) => Written::Integer(n),
                    _ => Written::Text(self.raw(s.name).1),
                };
                (s.name, w)
            })
            .collect()
    }

    /// The text given for `name`, or its default.
    pub fn raw_value(&self, name: &str) -> &str {
        self.raw(name).1
    }

    fn index(&self, name: &str) -> usize {
        self.specs
            .iter()
            .position(|s| s.name == name)
            .unwrap_or_else(|| {
                panic!(
                    "{}: parameter {name} is read but not in its spec table",
                    self.kind
                )
            })
    }

    fn raw(&self, name: &str) -> (&'static str, &str) {
        if let Some((n, v)) = self.given.iter().find(|(n, _)| *n == name) {
            return (n, v.as_str());
        }
        let spec = &self.specs[self.index(name)];
        (spec.name, spec.default)
    }

    /// The parsed value of `name`.
    pub fn value(&self, name: &str) -> Value {
        self.values[self.index(name)]
    }

    #[track_caller]
    fn wrong(&self, name: &str, as_: &str) -> ! {
        panic!(
            "{}: parameter {name} read as {as_}, but its value is {:?}: the code disagrees with the table",
            self.kind,
            self.value(name)
        )
    }

    /// The name of an enum's choice (`"linux"`).
    #[track_caller]
    pub fn choice_name(&self, name: &str) -> &'static str {
        let i = self.choice(name);
        self.specs[self.index(name)]
            .choices()
            .nth(i)
            .unwrap_or_else(|| self.wrong(name, "an enum"))
    }

    /// The word given instead of a value (`auto`, `off`), if any.
    pub fn word(&self, name: &str) -> Option<&'static str> {
        match self.value(name) {
            Value::Word(w) => Some(w),
            _ => None,
        }
    }

    /// A duration, or `None` when a word (`off`) was given.
    #[track_caller]
    pub fn opt_duration(&self, name: &str) -> Option<SimDuration> {
        match self.value(name) {
            Value::Duration(d) => Some(d),
            Value::Word(_) => None,
            _ => self.wrong(name, "a duration"),
        }
    }
    /// A duration.
    #[track_caller]
    pub fn duration(&self, name: &str) -> SimDuration {
        self.opt_duration(name)
            .unwrap_or_else(|| self.wrong(name, "a duration"))
    }
    /// A bit rate.
    #[track_caller]
    pub fn bitrate(&self, name: &str) -> Bitrate {
        match self.value(name) {
            Value::Rate(r) => r,
            _ => self.wrong(name, "a rate"),
        }
    }
    /// A buffer size in packets or bytes.
    #[track_caller]
    pub fn size(&self, name: &str) -> Size {
        match self.value(name) {
            Value::Size(s) => s,
            _ => self.wrong(name, "a size"),
        }
    }
    /// A byte count, or `None` when a word (`auto`) was given.
    #[track_caller]
    pub fn opt_bytes(&self, name: &str) -> Option<u64> {
        match self.value(name) {
            Value::Bytes(b) => Some(b),
            Value::Word(_) => None,
            _ => self.wrong(name, "bytes"),
        }
    }
    /// A byte count.
    #[track_caller]
    pub fn bytes(&self, name: &str) -> u64 {
        self.opt_bytes(name)
            .unwrap_or_else(|| self.wrong(name, "bytes"))
    }
    /// A real number, or `None` when a word (`auto`) was given.
    #[track_caller]
    pub fn opt_f64(&self, name: &str) -> Option<f64> {
        match self.value(name) {
            Value::Number(v) => Some(v),
            Value::Word(_) => None,
            _ => self.wrong(name, "a number"),
        }
    }
    /// A real number.
    #[track_caller]
    pub fn f64(&self, name: &str) -> f64 {
        self.opt_f64(name)
            .unwrap_or_else(|| self.wrong(name, "a number"))
    }
    /// A whole number.
    #[track_caller]
    pub fn u64(&self, name: &str) -> u64 {
        match self.value(name) {
            Value::Integer(v) => v,
            _ => self.wrong(name, "an integer"),
        }
    }
    /// A boolean.
    #[track_caller]
    pub fn bool(&self, name: &str) -> bool {
        match self.value(name) {
            Value::Bool(b) => b,
            _ => self.wrong(name, "a bool"),
        }
    }
    /// An enum's choice, as its index in the table's list.
    #[track_caller]
    pub fn choice(&self, name: &str) -> usize {
        match self.value(name) {
            Value::Choice(i) => i,
            _ => self.wrong(name, "an enum"),
        }
    }
    /// An error for `name` that breaks a rule with another parameter (`min_th > max_th`).
    pub fn invalid(&self, name: &'static str, msg: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            kind: self.kind,
            name,
            value: self.raw(name).1.to_string(),
            msg: msg.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[
        ParamSpec::duration("target", "5ms", "").gt(0.0).le(1e9),
        ParamSpec::size("limit", "1000p", ""),
        ParamSpec::rate("bandwidth", "10Mbps", "").gt(0.0),
        ParamSpec::bytes("mtu", "auto", "").gt(0.0).or("auto"),
        ParamSpec::number("p", "0.5", "")
            .within(0.0, 1.0)
            .unit("probability"),
        ParamSpec::integer("flows", "1024", "").within(1.0, 65536.0),
        ParamSpec::boolean("ecn", "false", ""),
        ParamSpec::choice("variant", "rfc", "rfc|linux|ns3", ""),
        ParamSpec::duration_or_packets("step", "1ms", ""),
        ParamSpec::duration("ce", "off", "").or("off|none"),
    ];

    fn p(items: &[&str]) -> Result<Params, ConfigError> {
        Params::new("codel", SPECS, &Params::split_pairs(items)?)
    }
    fn err(items: &[&str]) -> String {
        p(items).unwrap_err().to_string()
    }

    #[test]
    fn defaults_and_given_values_are_typed() {
        let x = p(&[
            "target=10ms",
            "mtu=1514",
            "ce=2ms",
            "step=5p",
            "variant=ns3",
        ])
        .unwrap();
        assert_eq!(x.duration("target"), SimDuration::from_millis(10));
        assert_eq!(x.size("limit"), Size::Packets(1000));
        assert_eq!(x.bitrate("bandwidth"), Bitrate::from_bps(10_000_000));
        assert_eq!(x.opt_bytes("mtu"), Some(1514));
        assert_eq!(x.f64("p"), 0.5);
        assert_eq!(x.u64("flows"), 1024);
        assert!(!x.bool("ecn"));
        assert_eq!(x.choice("variant"), 2);
        assert_eq!(x.value("step"), Value::Size(Size::Packets(5)));
        assert_eq!(x.opt_duration("ce"), Some(SimDuration::from_millis(2)));
        let d = p(&[]).unwrap();
        assert_eq!((d.opt_bytes("mtu"), d.word("mtu")), (None, Some("auto")));
        assert_eq!(d.opt_duration("ce"), None);
        assert_eq!(
            d.value("step"),
            Value::Duration(SimDuration::from_millis(1))
        );
    }

    #[test]
    fn range_errors_for_each_type_name_parameter_value_and_range() {
        // duration: below, at the open end, above, and unparsable.
        assert_eq!(
            err(&["target=-1ms"]),
            "codel: parameter target = -1ms: expected a duration in (0, 1s] (like 5ms, 100us, 1.5s or 250ns)"
        );
        assert_eq!(
            err(&["target=0ms"]),
            "codel: parameter target = 0ms: expected a duration in (0, 1s]"
        );
        assert_eq!(
            err(&["target=1001ms"]),
            "codel: parameter target = 1001ms: expected a duration in (0, 1s]"
        );
        assert!(p(&["target=1s"]).is_ok(), "1s is inside (0, 1s]");
        // Beyond 64 bits (10^21 ns): said so, not only the range it would seem to meet.
        assert_eq!(
            err(&["target=1e12s"]),
            "codel: parameter target = 1e12s: expected a duration in (0, 1s] (like 5ms, 100us, 1.5s or 250ns), within 64 bits (this one is beyond the maximum)"
        );
        assert_eq!(
            err(&["limit=1e30p"]),
            "codel: parameter limit = 1e30p: expected a size in packets or bytes > 0 (like 1000p or 1.5MB), within 64 bits (this one is beyond the maximum)"
        );
        assert_eq!(
            err(&["limit=0p"]),
            "codel: parameter limit = 0p: expected a size in packets or bytes > 0"
        );
        assert_eq!(
            err(&["limit=1000"]),
            "codel: parameter limit = 1000: expected a size in packets or bytes > 0 (like 1000p or 1.5MB)"
        );
        assert_eq!(
            err(&["bandwidth=0bps"]),
            "codel: parameter bandwidth = 0bps: expected a rate > 0"
        );
        assert_eq!(
            err(&["mtu=0"]),
            "codel: parameter mtu = 0: expected a byte count > 0, or auto"
        );
        assert_eq!(
            err(&["p=1.5"]),
            "codel: parameter p = 1.5: expected a number in [0, 1] (probability)"
        );
        assert_eq!(
            err(&["p=x"]),
            "codel: parameter p = x: expected a number in [0, 1] (probability) (like 0.002)"
        );
        assert_eq!(
            err(&["flows=0"]),
            "codel: parameter flows = 0: expected an integer in [1, 65536]"
        );
        assert_eq!(
            err(&["flows=-3"]),
            "codel: parameter flows = -3: expected an integer in [1, 65536] (like 1024)"
        );
        assert_eq!(
            err(&["ecn=maybe"]),
            "codel: parameter ecn = maybe: expected true or false"
        );
        assert_eq!(
            err(&["variant=bsd"]),
            "codel: parameter variant = bsd: expected one of rfc, linux, ns3"
        );
        assert_eq!(
            err(&["step=5MB"]),
            "codel: parameter step = 5MB: expected a duration or a packet count >= 0 (like 1ms or 5p)"
        );
        assert_eq!(
            err(&["ce=soon"]),
            "codel: parameter ce = soon: expected a duration >= 0, or off or none (like 5ms, 100us, 1.5s or 250ns)"
        );
    }

    #[test]
    fn name_errors() {
        assert_eq!(
            err(&["tagret=5ms"]),
            "codel has no parameter \"tagret\": its parameters are target, limit, bandwidth, mtu, p, flows, ecn, variant, step, ce"
        );
        assert_eq!(
            err(&["target"]),
            "parameter \"target\": expected NAME=VALUE"
        );
        assert!(matches!(
            p(&["target=1ms", "target=2ms"]),
            Err(ConfigError::Duplicate(_))
        ));
    }

    #[test]
    fn a_bad_default_is_caught_like_a_bad_value() {
        const BAD: &[ParamSpec] = &[ParamSpec::number("p", "2", "").within(0.0, 1.0)];
        assert_eq!(
            Params::new("x", BAD, &[]).unwrap_err().to_string(),
            "x: parameter p = 2: expected a number in [0, 1]"
        );
    }
}
