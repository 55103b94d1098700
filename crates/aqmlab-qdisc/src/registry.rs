//! Every discipline by name: its parameter table, how to build it from `NAME=VALUE` pairs, and
//! [`AnyQdisc`], the enum through which simulators call it without dynamic dispatch.

use crate::cake::{Cake, CakeConfig};
use crate::cobalt::{Cobalt, CobaltConfig};
use crate::codel::{codel_params_from, Codel, CodelConfig};
use crate::contract::{Backlog, QdiscCx, QueueDisc};
use crate::droptail::{DropTail, DropTailConfig};
use crate::dualpi2::{DualPi2, Dualpi2Config};
use crate::facts::Facts;
use crate::fq_cobalt::{FqCobalt, FqCobaltConfig};
use crate::fq_codel::{FqCodel, FqCodelConfig};
use crate::fq_pie::{FqPie, FqPieConfig};
use crate::lstf_codel::{LstfCodel, LstfCodelConfig};
use crate::params::{ConfigError, ParamSpec, Params, Tuning};
use crate::pie::{Pie, PieConfig};
use crate::red::{Red, RedConfig};
use crate::uniform::UniformSource;
use aqmlab_core::units::Size;
use aqmlab_core::{Packet, SimTime};

/// The kinds of discipline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// [`crate::droptail`].
    DropTail,
    /// [`crate::red`].
    Red,
    /// [`crate::codel`].
    Codel,
    /// [`crate::lstf_codel`].
    LstfCodel,
    /// [`crate::fq_codel`].
    FqCodel,
    /// [`crate::pie`].
    Pie,
    /// [`crate::fq_pie`].
    FqPie,
    /// [`crate::cobalt`].
    Cobalt,
    /// [`crate::fq_cobalt`].
    FqCobalt,
    /// [`crate::dualpi2`].
    DualPi2,
    /// [`crate::cake`].
    Cake,
}

impl Kind {
    /// Every kind, in the order `--list` prints them.
    pub const ALL: &'static [Kind] = &[
        Kind::DropTail,
        Kind::Red,
        Kind::Codel,
        Kind::LstfCodel,
        Kind::FqCodel,
        Kind::Pie,
        Kind::FqPie,
        Kind::Cobalt,
        Kind::FqCobalt,
        Kind::DualPi2,
        Kind::Cake,
    ];

    /// The name users write.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::DropTail => "droptail",
            Kind::Red => "red",
            Kind::Codel => "codel",
            Kind::LstfCodel => "lstf_codel",
            Kind::FqCodel => "fq_codel",
            Kind::Pie => "pie",
            Kind::FqPie => "fq_pie",
            Kind::Cobalt => "cobalt",
            Kind::FqCobalt => "fq_cobalt",
            Kind::DualPi2 => "dualpi2",
            Kind::Cake => "cake",
        }
    }

    /// One line on what it is.
    pub const fn summary(self) -> &'static str {
        match self {
            Kind::DropTail => "FIFO with a packet or byte limit (tail drop, or head drop)",
            Kind::Red => "Random Early Detection (Floyd & Jacobson 1993), gentle and Adaptive RED, ns-2 defaults",
            Kind::Codel => "Controlled Delay (RFC 8289), with rfc, linux or ns3 arithmetic",
            Kind::LstfCodel => "CoDel over a least-slack-first priority queue (Ford 2020)",
            Kind::FqCodel => "Flow-queue CoDel (RFC 8290): DRR over hashed flows, CoDel per flow",
            Kind::Pie => "Proportional Integral controller Enhanced (RFC 8033)",
            Kind::FqPie => "Flow-queue PIE: FQ-CoDel's DRR scheduler, PIE per flow (ns-3 FqPieQueueDisc)",
            Kind::Cobalt => "CoDel + BLUE Alternate (ns-3 CobaltQueueDisc, Linux CAKE's AQM)",
            Kind::FqCobalt => "Flow-queue COBALT: FQ-CoDel's DRR scheduler, COBALT per flow (ns-3 FqCobaltQueueDisc)",
            Kind::DualPi2 => "Dual-Queue Coupled AQM with PI2 (RFC 9332), Linux sch_dualpi2 defaults",
            Kind::Cake => "CAKE (Linux sch_cake): shaper with overhead, diffserv tins, host isolation, DRR++ with COBALT per flow",
        }
    }

    /// Looks a kind up by name.
    pub fn from_name(name: &str) -> Result<Kind, ConfigError> {
        Kind::ALL
            .iter()
            .copied()
            .find(|k| k.name() == name)
            .ok_or_else(|| ConfigError::UnknownKind(name.to_string()))
    }

    /// The documented parameters.
    pub fn params(self) -> &'static [ParamSpec] {
        match self {
            Kind::DropTail => crate::droptail::PARAMS,
            Kind::Red => crate::red::PARAMS,
            Kind::Codel => crate::codel::PARAMS,
            Kind::LstfCodel => crate::lstf_codel::PARAMS,
            Kind::FqCodel => crate::fq_codel::PARAMS,
            Kind::Pie => crate::pie::PARAMS,
            Kind::FqPie => crate::fq_pie::PARAMS,
            Kind::Cobalt => crate::cobalt::PARAMS,
            Kind::FqCobalt => crate::fq_cobalt::PARAMS,
            Kind::DualPi2 => crate::dualpi2::PARAMS,
            Kind::Cake => crate::cake::PARAMS,
        }
    }

    /// What it costs to run (RFC 7928 §11), declared beside its parameter table.
    pub fn facts(self) -> &'static Facts {
        match self {
            Kind::DropTail => &crate::droptail::FACTS,
            Kind::Red => &crate::red::FACTS,
            Kind::Codel => &crate::codel::FACTS,
            Kind::LstfCodel => &crate::lstf_codel::FACTS,
            Kind::FqCodel => &crate::fq_codel::FACTS,
            Kind::Pie => &crate::pie::FACTS,
            Kind::FqPie => &crate::fq_pie::FACTS,
            Kind::Cobalt => &crate::cobalt::FACTS,
            Kind::FqCobalt => &crate::fq_cobalt::FACTS,
            Kind::DualPi2 => &crate::dualpi2::FACTS,
            Kind::Cake => &crate::cake::FACTS,
        }
    }

    /// RFC 7928 §11-12 in lines of `(label, text)`: each parameter the discipline derives
    /// (`derived min_th`) or adapts (`adapted max_p`) with from what, or `tuning` saying none
    /// is, then its [`Facts::rows`]. `--list`, the docs and the report print these.
    pub fn facts_lines(self) -> Vec<(String, &'static str)> {
        let mut out: Vec<(String, &'static str)> = self
            .params()
            .iter()
            .filter(|p| p.tuning != Tuning::Fixed)
            .map(|p| (format!("{} {}", p.tuning.kind(), p.name), p.tuning.how()))
            .collect();
        if out.is_empty() {
            out.push((
                "tuning".into(),
                "none derived or adapted: every value is the operator's",
            ));
        }
        out.extend(self.facts().rows().map(|(l, t)| (l.to_string(), t)));
        out
    }
}

/// Any discipline, dispatched by `match` (smoltcp's `AnyController` pattern).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum AnyQdisc {
    /// DropTail.
    DropTail(DropTail),
    /// RED.
    Red(Red),
    /// CoDel.
    Codel(Codel),
    /// LSTF-CoDel.
    LstfCodel(LstfCodel),
    /// FQ-CoDel.
    FqCodel(FqCodel),
    /// PIE.
    Pie(Pie),
    /// FQ-PIE.
    FqPie(FqPie),
    /// COBALT.
    Cobalt(Cobalt),
    /// FQ-COBALT.
    FqCobalt(FqCobalt),
    /// DualPI2.
    DualPi2(DualPi2),
    /// CAKE.
    Cake(Cake),
}

/// Builds the discipline `kind` from `NAME=VALUE` pairs. `uniforms` feeds its random draws
/// (ignored by deterministic disciplines).
pub fn build(
    kind: &str,
    given: &[(String, String)],
    uniforms: UniformSource,
) -> Result<AnyQdisc, ConfigError> {
    let kind = Kind::from_name(kind)?;
    let p = Params::new(kind.name(), kind.params(), given)?;
    Ok(AnyConfig::from_params(&p)?.build(uniforms))
}

/// A discipline's validated configuration, typed (every parameter parsed, range-checked and
/// checked against the others), not yet built: what a resolved scenario holds for each link
/// direction, and builds the discipline from.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyConfig {
    /// DropTail.
    DropTail(DropTailConfig),
    /// RED.
    Red(RedConfig),
    /// CoDel.
    Codel(CodelConfig),
    /// LSTF-CoDel.
    LstfCodel(LstfCodelConfig),
    /// FQ-CoDel.
    FqCodel(FqCodelConfig),
    /// PIE.
    Pie(PieConfig),
    /// FQ-PIE.
    FqPie(FqPieConfig),
    /// COBALT.
    Cobalt(CobaltConfig),
    /// FQ-COBALT.
    FqCobalt(FqCobaltConfig),
    /// DualPI2.
    DualPi2(Dualpi2Config),
    /// CAKE.
    Cake(CakeConfig),
}

impl AnyConfig {
    /// The configuration of the discipline `p` was checked for (its [`Params::kind`]).
    pub fn from_params(p: &Params) -> Result<AnyConfig, ConfigError> {
        Ok(match Kind::from_name(p.kind())? {
            Kind::DropTail => AnyConfig::DropTail(DropTailConfig::from_params(p)?),
            Kind::Red => AnyConfig::Red(RedConfig::from_params(p)?),
            Kind::Codel => AnyConfig::Codel(CodelConfig {
                limit: p.size("limit"),
                params: codel_params_from(p)?,
            }),
            Kind::LstfCodel => AnyConfig::LstfCodel(LstfCodelConfig::from_params(p)?),
            Kind::FqCodel => AnyConfig::FqCodel(FqCodelConfig::from_params(p)?),
            Kind::Pie => AnyConfig::Pie(PieConfig::from_params(p)?),
            Kind::FqPie => AnyConfig::FqPie(FqPieConfig::from_params(p)?),
            Kind::Cobalt => AnyConfig::Cobalt(CobaltConfig::from_params(p)?),
            Kind::FqCobalt => AnyConfig::FqCobalt(FqCobaltConfig::from_params(p)?),
            Kind::DualPi2 => AnyConfig::DualPi2(Dualpi2Config::from_params(p)?),
            Kind::Cake => AnyConfig::Cake(CakeConfig::from_params(p)?),
        })
    }

    /// The kind.
    pub fn kind(&self) -> Kind {
        match self {
            AnyConfig::DropTail(_) => Kind::DropTail,
            AnyConfig::Red(_) => Kind::Red,
            AnyConfig::Codel(_) => Kind::Codel,
            AnyConfig::LstfCodel(_) => Kind::LstfCodel,
            AnyConfig::FqCodel(_) => Kind::FqCodel,
            AnyConfig::Pie(_) => Kind::Pie,
            AnyConfig::FqPie(_) => Kind::FqPie,
            AnyConfig::Cobalt(_) => Kind::Cobalt,
            AnyConfig::FqCobalt(_) => Kind::FqCobalt,
            AnyConfig::DualPi2(_) => Kind::DualPi2,
            AnyConfig::Cake(_) => Kind::Cake,
        }
    }

    /// The discipline, built; `uniforms` feeds its random draws (ignored by deterministic
    /// disciplines).
    pub fn build(self, uniforms: UniformSource) -> AnyQdisc {
        match self {
            AnyConfig::DropTail(c) => AnyQdisc::DropTail(DropTail::new(c)),
            AnyConfig::Red(c) => AnyQdisc::Red(Red::new(c, uniforms)),
            AnyConfig::Codel(c) => AnyQdisc::Codel(Codel::new(c)),
            AnyConfig::LstfCodel(c) => AnyQdisc::LstfCodel(LstfCodel::new(c)),
            AnyConfig::FqCodel(c) => AnyQdisc::FqCodel(FqCodel::new(c, uniforms)),
            AnyConfig::Pie(c) => AnyQdisc::Pie(Pie::new(c, uniforms)),
            AnyConfig::FqPie(c) => AnyQdisc::FqPie(FqPie::new(c, uniforms)),
            AnyConfig::Cobalt(c) => AnyQdisc::Cobalt(Cobalt::new(c, uniforms)),
            AnyConfig::FqCobalt(c) => AnyQdisc::FqCobalt(FqCobalt::new(c, uniforms)),
            AnyConfig::DualPi2(c) => AnyQdisc::DualPi2(DualPi2::new(c, uniforms)),
            AnyConfig::Cake(c) => AnyQdisc::Cake(Cake::new(c, uniforms)),
        }
    }
}

/// The columns of a parameter table, in the order `--list` and the docs print them.
pub const TABLE_COLUMNS: [&str; 6] = ["name", "type", "unit", "default", "range", "doc"];

/// One row of a parameter table: the [`TABLE_COLUMNS`] of `p`.
pub fn table_row(p: &ParamSpec) -> [String; 6] {
    [
        p.name.to_string(),
        p.type_name().to_string(),
        p.unit_text().to_string(),
        p.default.to_string(),
        p.range_text(),
        p.help.to_string(),
    ]
}

/// The text `aqmlab replay --list` prints: every discipline with its parameter table (name,
/// type, unit, default, range, doc), columns aligned over the whole listing, then its RFC 7928
/// §11-12 facts ([`Kind::facts_lines`]), one a line as `  - label: text`.
pub fn list_text() -> String {
    let rows = |k: &Kind| k.params().iter().map(table_row).collect::<Vec<_>>();
    let mut w = TABLE_COLUMNS.map(str::len);
    for k in Kind::ALL {
        for r in rows(k) {
            for (w, c) in w.iter_mut().zip(&r) {
                *w = (*w).max(c.chars().count());
            }
        }
    }
    let line = |cells: [&str; 6]| {
        let mut s = String::from(" ");
        for (i, c) in cells.iter().enumerate() {
            s.push(' ');
            if i + 1 < cells.len() {
                s.push_str(&format!("{c:<width$} ", width = w[i]));
            } else {
                s.push_str(c);
            }
        }
        s.push('\n');
        s
    };
    let mut s = String::new();
    for k in Kind::ALL {
        s.push_str(&format!("{}: {}\n", k.name(), k.summary()));
        s.push_str(&line(TABLE_COLUMNS));
        for r in rows(k) {
            s.push_str(&line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]));
        }
        for (label, text) in k.facts_lines() {
            s.push_str(&format!("  - {label}: {text}\n"));
        }
        s.push('\n');
    }
    s
}

/// `docs/parameters.md`: every discipline's parameter table in Markdown, generated from the
/// tables (a test checks that the file is this text).
pub fn reference_markdown() -> String {
    let cell = |c: &str| c.replace('|', "\\|");
    let mut s = String::from(
        "# Queue disciplines: parameters\n\n\
         Generated from the parameter tables in `crates/aqmlab-qdisc/src` (each discipline's \
         `PARAMS`) by `aqmlab_qdisc::registry::reference_markdown`; do not edit by hand. \
         Regenerate with `AQMLAB_BLESS=1 cargo test -p aqmlab-qdisc --lib reference_doc`. \
         `aqmlab replay --list` prints the same tables. Below each table: the parameters the \
         discipline derives from others or adapts as it runs (`derived`, `adapted`), and what it \
         costs to run (each discipline's `FACTS`); the time per packet is measured by `make \
         bench`, not stated here. Ranges are in the unit shown; a value \
         outside its range, or of the wrong type, is refused with a one-line error naming the \
         discipline, the parameter, the value and the range. Rules between parameters \
         (e.g. `min_th <= max_th`) are stated in the doc column or in `docs/models/<name>.md`.\n",
    );
    for k in Kind::ALL {
        s.push_str(&format!("\n## `{}`\n\n{}.\n\n", k.name(), k.summary()));
        s.push_str(&format!("| {} |\n", TABLE_COLUMNS.join(" | ")));
        s.push_str("|---|---|---|---|---|---|\n");
        for p in k.params() {
            let r = table_row(p);
            let code = |c: &str| {
                if c.is_empty() {
                    String::new()
                } else {
                    format!("`{}`", cell(c))
                }
            };
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                code(&r[0]),
                r[1],
                cell(&r[2]),
                code(&r[3]),
                code(&r[4]),
                cell(&r[5])
            ));
        }
        s.push_str(
            "\nOperator control and auto-tuning (RFC 7928 §12), then implementation cost \
             (§11):\n\n",
        );
        for (label, text) in k.facts_lines() {
            s.push_str(&format!("- **{label}**: {text}\n"));
        }
    }
    s
}

impl AnyQdisc {
    /// Whether the discipline reads the packets' [`aqmlab_core::TcpHint`] (CAKE with its ACK
    /// filter on): a driver fills the hint in only when some discipline reads it.
    pub fn reads_tcp_hint(&self) -> bool {
        matches!(self, AnyQdisc::Cake(c) if c.reads_tcp_hint())
    }
    /// The kind.
    pub fn kind(&self) -> Kind {
        match self {
            AnyQdisc::DropTail(_) => Kind::DropTail,
            AnyQdisc::Red(_) => Kind::Red,
            AnyQdisc::Codel(_) => Kind::Codel,
            AnyQdisc::LstfCodel(_) => Kind::LstfCodel,
            AnyQdisc::FqCodel(_) => Kind::FqCodel,
            AnyQdisc::Pie(_) => Kind::Pie,
            AnyQdisc::FqPie(_) => Kind::FqPie,
            AnyQdisc::Cobalt(_) => Kind::Cobalt,
            AnyQdisc::FqCobalt(_) => Kind::FqCobalt,
            AnyQdisc::DualPi2(_) => Kind::DualPi2,
            AnyQdisc::Cake(_) => Kind::Cake,
        }
    }

    /// The random source, for disciplines that draw.
    pub fn uniforms(&self) -> Option<&UniformSource> {
        match self {
            AnyQdisc::Red(q) => Some(q.uniforms()),
            AnyQdisc::Pie(q) => Some(q.uniforms()),
            AnyQdisc::FqCodel(q) => Some(q.uniforms()),
            AnyQdisc::FqPie(q) => Some(q.uniforms()),
            AnyQdisc::Cobalt(q) => Some(q.uniforms()),
            AnyQdisc::FqCobalt(q) => Some(q.uniforms()),
            AnyQdisc::DualPi2(q) => Some(q.uniforms()),
            AnyQdisc::Cake(q) => Some(q.uniforms()),
            _ => None,
        }
    }

    /// True when a random source built from a list (`--uniforms`) was asked for more draws than
    /// it holds: the discipline's own, or any of its flows' (FQ-PIE, FQ-COBALT).
    pub fn uniforms_exhausted(&self) -> bool {
        let flows = match self {
            AnyQdisc::FqCodel(q) => q.uniforms_exhausted(),
            AnyQdisc::FqPie(q) => q.uniforms_exhausted(),
            AnyQdisc::FqCobalt(q) => q.uniforms_exhausted(),
            AnyQdisc::Cake(q) => q.uniforms_exhausted(),
            _ => false,
        };
        flows || self.uniforms().is_some_and(|u| u.exhausted())
    }
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQdisc::DropTail($q) => $e,
            AnyQdisc::Red($q) => $e,
            AnyQdisc::Codel($q) => $e,
            AnyQdisc::LstfCodel($q) => $e,
            AnyQdisc::FqCodel($q) => $e,
            AnyQdisc::Pie($q) => $e,
            AnyQdisc::FqPie($q) => $e,
            AnyQdisc::Cobalt($q) => $e,
            AnyQdisc::FqCobalt($q) => $e,
            AnyQdisc::DualPi2($q) => $e,
            AnyQdisc::Cake($q) => $e,
        }
    };
}

impl QueueDisc for AnyQdisc {
    #[inline]
    fn enqueue(&mut self, now: SimTime, pkt: Packet, cx: &mut QdiscCx) {
        dispatch!(self, q => q.enqueue(now, pkt, cx))
    }
    #[inline]
    fn dequeue(&mut self, now: SimTime, cx: &mut QdiscCx) -> Option<Packet> {
        dispatch!(self, q => q.dequeue(now, cx))
    }
    #[inline]
    fn backlog(&self) -> Backlog {
        dispatch!(self, q => q.backlog())
    }
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        dispatch!(self, q => q.visit_state(visit))
    }
    #[inline]
    fn stateless_fifo_limit(&self) -> Option<Size> {
        match self {
            AnyQdisc::DropTail(q) => q.stateless_fifo_limit(),
            _ => None,
        }
    }
    #[inline]
    fn next_send_time(&self) -> Option<SimTime> {
        match self {
            AnyQdisc::Cake(q) => q.next_send_time(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_configuration_builds() {
        for k in Kind::ALL {
            build(k.name(), &[], UniformSource::seeded(1))
                .unwrap_or_else(|e| panic!("{}: {e}", k.name()));
        }
    }

    #[test]
    fn every_default_parses_and_names_are_unique() {
        for k in Kind::ALL {
            for (i, p) in k.params().iter().enumerate() {
                assert!(
                    !k.params()[..i].iter().any(|q| q.name == p.name),
                    "{}: {} twice",
                    k.name(),
                    p.name
                );
                let given = vec![(p.name.to_string(), p.default.to_string())];
                build(k.name(), &given, UniformSource::seeded(1))
                    .unwrap_or_else(|e| panic!("{} {}={}: {e}", k.name(), p.name, p.default));
            }
        }
    }

    /// A default of a type with a unit is written with it (`1514B`, not `1514`): the resolved
    /// scenario writes a default as the table declares it, and a bare number there reads as a
    /// count of nothing in particular (fq_codel's `quantum = "1514"` was).
    #[test]
    fn every_default_of_a_unit_type_is_written_with_its_unit() {
        use crate::params::Type;
        let mut bare = Vec::new();
        for k in Kind::ALL {
            for p in k.params() {
                let has_unit = matches!(
                    p.ty,
                    Type::Duration
                        | Type::Rate
                        | Type::Size
                        | Type::Bytes
                        | Type::DurationOrPackets
                );
                let word = p.words.split('|').any(|w| w == p.default);
                if has_unit && !word && p.default.parse::<f64>().is_ok() {
                    bare.push(format!("{} {} = {:?}", k.name(), p.name, p.default));
                }
            }
        }
        assert!(bare.is_empty(), "defaults without their unit: {bare:?}");
    }

    #[test]
    fn every_default_lies_in_its_range() {
        for k in Kind::ALL {
            for p in k.params() {
                // The table's own check, and the range restated independently.
                let v = p
                    .parse(k.name(), p.default)
                    .unwrap_or_else(|e| panic!("{}: {e}", k.name()));
                let x = match v {
                    crate::params::Value::Duration(d) => d.as_nanos() as f64,
                    crate::params::Value::Rate(r) => r.as_bps() as f64,
                    crate::params::Value::Size(Size::Packets(n) | Size::Bytes(n)) => n as f64,
                    crate::params::Value::Bytes(n) | crate::params::Value::Integer(n) => n as f64,
                    crate::params::Value::Number(x) => x,
                    crate::params::Value::Word(w) => {
                        assert!(
                            p.words.split('|').any(|x| x == w),
                            "{} {}",
                            k.name(),
                            p.name
                        );
                        continue;
                    }
                    crate::params::Value::Bool(_) | crate::params::Value::Choice(_) => continue,
                };
                use crate::params::Bound;
                let lo = match p.min {
                    Bound::None => true,
                    Bound::Incl(b) => x >= b,
                    Bound::Excl(b) => x > b,
                };
                let hi = match p.max {
                    Bound::None => true,
                    Bound::Incl(b) => x <= b,
                    Bound::Excl(b) => x < b,
                };
                assert!(lo && hi, "{} {} = {}", k.name(), p.name, p.default);
            }
        }
    }

    /// Splits one `--list` line at the header's column starts.
    fn cells(header: &str, line: &str) -> Vec<String> {
        let starts: Vec<usize> = TABLE_COLUMNS
            .iter()
            .map(|c| {
                header
                    .find(&format!(" {c} "))
                    .or_else(|| header.find(&format!(" {c}")))
                    .unwrap()
                    + 1
            })
            .collect();
        let chars: Vec<char> = line.chars().collect();
        (0..starts.len())
            .map(|i| {
                let end = starts.get(i + 1).copied().unwrap_or(chars.len());
                chars[starts[i]..end.min(chars.len())]
                    .iter()
                    .collect::<String>()
                    .trim()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn every_table_round_trips_through_the_list() {
        let text = list_text();
        let blocks: Vec<&str> = text.trim_end().split("\n\n").collect();
        assert_eq!(blocks.len(), Kind::ALL.len());
        for (k, block) in Kind::ALL.iter().zip(blocks) {
            let mut lines = block.lines();
            assert_eq!(
                lines.next().unwrap(),
                format!("{}: {}", k.name(), k.summary())
            );
            let header = lines.next().unwrap();
            let (facts, rows): (Vec<&str>, Vec<&str>) = lines.partition(|l| l.starts_with("  - "));
            let rows: Vec<Vec<String>> = rows.iter().map(|l| cells(header, l)).collect();
            let want: Vec<Vec<String>> = k.params().iter().map(|p| table_row(p).to_vec()).collect();
            assert_eq!(rows, want, "{}", k.name());
            let want: Vec<String> = k
                .facts_lines()
                .iter()
                .map(|(l, t)| format!("  - {l}: {t}"))
                .collect();
            assert_eq!(facts, want, "{}", k.name());
        }
    }

    #[test]
    fn reference_doc_is_generated_from_the_tables() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/parameters.md");
        let want = reference_markdown();
        if std::env::var_os("AQMLAB_BLESS").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "docs/parameters.md disagrees with the parameter tables: regenerate it with \
             AQMLAB_BLESS=1 cargo test -p aqmlab-qdisc --lib reference_doc"
        );
        // Every parameter of every table is in the doc, with its default and range.
        for k in Kind::ALL {
            let sec = have.split(&format!("## `{}`", k.name())).nth(1).unwrap();
            let sec = sec.split("\n## ").next().unwrap();
            for p in k.params() {
                assert!(sec.contains(&format!("| `{}` | {} |", p.name, p.type_name())));
            }
        }
    }

    #[test]
    fn every_discipline_states_its_cost_citing_its_spec() {
        for k in Kind::ALL {
            for (label, text) in k.facts().rows() {
                assert!(text.len() > 3, "{}: {label} is empty", k.name());
            }
            let spec = k.facts().spec;
            assert!(
                ["RFC", "§", "Linux", "ns-3"]
                    .iter()
                    .any(|w| spec.contains(w)),
                "{}: spec {spec:?} cites nothing",
                k.name()
            );
        }
    }

    #[test]
    fn every_auto_value_and_tuned_parameter_says_from_what() {
        for k in Kind::ALL {
            for p in k.params() {
                let auto = p.default == "auto" || p.words.split('|').any(|w| w == "auto");
                if auto {
                    assert!(
                        matches!(p.tuning, Tuning::Derived(_)),
                        "{} {}: `auto` must say what it is derived from",
                        k.name(),
                        p.name
                    );
                }
                let how = p.tuning.how();
                if p.tuning != Tuning::Fixed {
                    assert!(
                        how.ends_with(')') && how.contains('('),
                        "{} {}: {how:?} must end with its source in parentheses",
                        k.name(),
                        p.name
                    );
                }
            }
        }
        // The tuning the specs describe, in the tables (RFC 7928 §12).
        for (kind, name, kind_of) in [
            (Kind::Red, "min_th", "derived"),
            (Kind::Red, "max_th", "derived"),
            (Kind::Red, "w_q", "derived"),
            (Kind::Red, "max_p", "adapted"),
            (Kind::Pie, "alpha", "adapted"),
            (Kind::Pie, "beta", "adapted"),
            (Kind::FqPie, "alpha", "adapted"),
            (Kind::Cobalt, "pdrop", "adapted"),
            (Kind::FqCobalt, "pdrop", "adapted"),
            (Kind::DualPi2, "target", "derived"),
            (Kind::DualPi2, "alpha", "derived"),
            (Kind::Cake, "target", "derived"),
            (Kind::Cake, "memlimit", "derived"),
        ] {
            let p = kind.params().iter().find(|p| p.name == name).unwrap();
            assert_eq!(p.tuning.kind(), kind_of, "{} {name}", kind.name());
        }
        let lines = Kind::DropTail.facts_lines();
        assert_eq!(lines[0].0, "tuning", "droptail derives and adapts nothing");
    }

    #[test]
    fn unknown_kind_is_an_error() {
        let e = build("blue", &[], UniformSource::seeded(1)).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("unknown queue discipline \"blue\""));
    }
}
