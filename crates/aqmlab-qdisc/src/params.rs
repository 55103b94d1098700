//! Parameters as users write them (`target=5ms`, `limit=1000p`), checked against each
//! discipline's table of [`ParamSpec`]s. Errors name the parameter and what was expected, so the
//! CLI shows them as one line.

use aqmlab_core::units::{self, Size, UnitError};
use aqmlab_core::{Bitrate, SimDuration};

/// One documented parameter of a discipline.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// Name as written on the command line and in scenario files.
    pub name: &'static str,
    /// Default, written as a user would write it.
    pub default: &'static str,
    /// What kind of value: `duration`, `rate`, `size`, `bytes`, `number`, `integer`, `bool`, or
    /// `one of a|b|c`.
    pub kind: &'static str,
    /// One line of help.
    pub help: &'static str,
}

/// A bad discipline name, parameter name or value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The discipline name is not known.
    #[error("unknown queue discipline {0:?}: expected one of droptail, red, codel, lstf_codel, fq_codel, pie, fq_pie, cobalt, fq_cobalt, dualpi2")]
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
    /// The value does not parse.
    #[error("parameter {name}: {source}")]
    Value {
        /// Parameter.
        name: &'static str,
        /// What was wrong.
        source: UnitError,
    },
    /// The value parses but is out of range or inconsistent with another parameter.
    #[error("parameter {name}: {msg}")]
    Invalid {
        /// Parameter.
        name: &'static str,
        /// What was expected.
        msg: String,
    },
}

/// The values given for one discipline, validated against its spec table. Getters return the
/// given value or the documented default, parsed.
#[derive(Clone, Debug)]
pub struct Params {
    kind: &'static str,
    specs: &'static [ParamSpec],
    given: Vec<(&'static str, String)>,
}

impl Params {
    /// Checks that every `(name, value)` names a parameter in `specs` and none repeats.
    pub fn new(
        kind: &'static str,
        specs: &'static [ParamSpec],
        given: &[(String, String)],
    ) -> Result<Self, ConfigError> {
        let mut out: Vec<(&'static str, String)> = Vec::with_capacity(given.len());
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
            out.push((spec.name, value.clone()));
        }
        Ok(Params {
            kind,
            specs,
            given: out,
        })
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

    /// The text given for `name`, or its default.
    pub fn raw_value(&self, name: &'static str) -> &str {
        self.raw(name).1
    }

    fn raw(&self, name: &'static str) -> (&'static str, &str) {
        if let Some((n, v)) = self.given.iter().find(|(n, _)| *n == name) {
            return (n, v.as_str());
        }
        let spec = self
            .specs
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| {
                panic!(
                    "{}: parameter {name} is read but not in its spec table",
                    self.kind
                )
            });
        (spec.name, spec.default)
    }

    fn parse<T>(
        &self,
        name: &'static str,
        f: impl Fn(&str) -> Result<T, UnitError>,
    ) -> Result<T, ConfigError> {
        let (n, v) = self.raw(name);
        f(v).map_err(|source| ConfigError::Value { name: n, source })
    }

    /// A duration (`5ms`).
    pub fn duration(&self, name: &'static str) -> Result<SimDuration, ConfigError> {
        self.parse(name, units::parse_duration)
    }
    /// A duration that must be strictly positive.
    pub fn positive_duration(&self, name: &'static str) -> Result<SimDuration, ConfigError> {
        let d = self.duration(name)?;
        if d == SimDuration::ZERO {
            return Err(ConfigError::Invalid {
                name,
                msg: format!("expected a duration > 0, got {:?}", self.raw(name).1),
            });
        }
        Ok(d)
    }
    /// A bit rate (`10Mbps`).
    pub fn bitrate(&self, name: &'static str) -> Result<Bitrate, ConfigError> {
        self.parse(name, units::parse_bitrate)
    }
    /// A buffer size in packets or bytes (`1000p`, `1.5MB`); must be > 0.
    pub fn size(&self, name: &'static str) -> Result<Size, ConfigError> {
        let s = self.parse(name, units::parse_size)?;
        if matches!(s, Size::Packets(0) | Size::Bytes(0)) {
            return Err(ConfigError::Invalid {
                name,
                msg: format!("expected a size > 0, got {:?}", self.raw(name).1),
            });
        }
        Ok(s)
    }
    /// A byte count (`1514`, `32MB`).
    pub fn bytes(&self, name: &'static str) -> Result<u64, ConfigError> {
        self.parse(name, units::parse_bytes)
    }
    /// A packet size in bytes, 1 to `u32::MAX` (e.g. `mean_pkt_size`).
    pub fn packet_size(&self, name: &'static str) -> Result<u32, ConfigError> {
        let b = self.bytes(name)?;
        if b == 0 || b > u32::MAX as u64 {
            return Err(self.invalid(
                name,
                format!(
                    "expected a packet size in bytes, 1 to {}, got {b}",
                    u32::MAX
                ),
            ));
        }
        Ok(b as u32)
    }
    /// A real number.
    pub fn f64(&self, name: &'static str) -> Result<f64, ConfigError> {
        self.parse(name, units::parse_f64)
    }
    /// A real number in `[lo, hi]`.
    pub fn f64_in(&self, name: &'static str, lo: f64, hi: f64) -> Result<f64, ConfigError> {
        let v = self.f64(name)?;
        if !(lo..=hi).contains(&v) {
            return Err(ConfigError::Invalid {
                name,
                msg: format!("expected a number in [{lo}, {hi}], got {v}"),
            });
        }
        Ok(v)
    }
    /// A whole number.
    pub fn u64(&self, name: &'static str) -> Result<u64, ConfigError> {
        self.parse(name, units::parse_u64)
    }
    /// A boolean.
    pub fn bool(&self, name: &'static str) -> Result<bool, ConfigError> {
        self.parse(name, units::parse_bool)
    }
    /// One of `choices`; returns its index.
    pub fn choice(&self, name: &'static str, choices: &[&str]) -> Result<usize, ConfigError> {
        let (_, v) = self.raw(name);
        choices
            .iter()
            .position(|c| *c == v)
            .ok_or_else(|| ConfigError::Invalid {
                name,
                msg: format!("expected one of {}, got {v:?}", choices.join(", ")),
            })
    }
    /// An error for `name` (for cross-parameter checks such as `min_th > max_th`).
    pub fn invalid(&self, name: &'static str, msg: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            name,
            msg: msg.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[
        ParamSpec {
            name: "target",
            default: "5ms",
            kind: "duration",
            help: "",
        },
        ParamSpec {
            name: "limit",
            default: "1000p",
            kind: "size",
            help: "",
        },
    ];

    fn p(items: &[&str]) -> Result<Params, ConfigError> {
        Params::new("codel", SPECS, &Params::split_pairs(items)?)
    }

    #[test]
    fn defaults_and_given_values() {
        let x = p(&["target=10ms"]).unwrap();
        assert_eq!(x.duration("target").unwrap(), SimDuration::from_millis(10));
        assert_eq!(x.size("limit").unwrap(), Size::Packets(1000));
    }

    #[test]
    fn errors_name_the_parameter() {
        assert_eq!(
            p(&["tagret=5ms"]).unwrap_err().to_string(),
            "codel has no parameter \"tagret\": its parameters are target, limit"
        );
        assert_eq!(
            p(&["target=5"]).unwrap().duration("target").unwrap_err().to_string(),
            "parameter target: expected a duration with a unit, like \"5ms\", \"100us\", \"1.5s\" or \"250ns\", got \"5\""
        );
        assert_eq!(
            p(&["target"]).unwrap_err().to_string(),
            "parameter \"target\": expected NAME=VALUE"
        );
        assert!(matches!(
            p(&["target=1ms", "target=2ms"]),
            Err(ConfigError::Duplicate(_))
        ));
        assert!(p(&["target=0ms"])
            .unwrap()
            .positive_duration("target")
            .is_err());
        assert!(p(&["limit=0p"]).unwrap().size("limit").is_err());
    }
}
