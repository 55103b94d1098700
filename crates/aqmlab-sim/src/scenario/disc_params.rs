//! A link direction's discipline parameters typed once, as the link directions are made from
//! the file's link tables (issue 20): each direction's discipline is known there (the file's,
//! a `reverse`'s own or its forward's, or a `--qdisc` swap's), and every value of its `params`
//! table is read by that discipline's [`ParamSpec`](aqmlab_qdisc::ParamSpec) into its typed
//! value, once ([`aqmlab_qdisc::ParamSpec::read`]). Resolving the direction
//! ([`super::links::direction`]) then gives the typed values to its discipline
//! ([`aqmlab_qdisc::Params::with_values`], which checks their ranges, parses no given text
//! again, and writes each as given in the resolved scenario). Like a flow key's value
//! ([`super::raw_units::Deferred`]), a value that does not read (or an unknown discipline name)
//! is refused only where the direction is resolved, in the order its errors always had.
//!
//! The path of a `--set links[0].params.target=5ms` (or `dumbbell.bottleneck.params.target`)
//! through the code: 12 functions, the value typed at the seventh. Before this step it was
//! typed at the tenth (`Params::with_values`, called by `direction`) over the same 12, so
//! `topology`, `directions` and `direction` carried it as a raw TOML value; now only `parse`
//! and `read_topology` do (5 functions with the raw value before, 3 now):
//! 1. `cli.py` `_pairs` (the `--set` pairs, text) and
//! 2. `run.py` `_native_args`, to
//! 3. `aqmlab-py` `lib.rs` `resolve`, to
//! 4. `edits.rs` `resolve_with_edits` (written into the scenario's TOML document), then
//! 5. `resolve.rs` `parse` (the document read into the raw types: a TOML value in `params`),
//! 6. `links.rs` `read_topology` (each link direction's raw settings, a `reverse` merged),
//! 7. `resolve.rs` `topology` → [`disc_params`]: read once into its typed value, by the
//!    direction's discipline's spec ([`Given::Read`]);
//! 8. `resolve.rs` `directions` → 9. `links.rs` `direction` (with the buffer, and the values
//!    taken from the link and the traffic, typed) →
//! 10. `Params::with_values` (the range checked, no text parsed) →
//! 11. `AnyConfig::from_params` → 12. `CodelConfig::from_params` (the typed `target`).
//!
//! The counts are pinned by `tests/params_once.rs`.

use super::*;
use aqmlab_qdisc::Given;

/// A link direction's discipline and the parameters the file (and `--set`) gave it for it,
/// each read once by the discipline's spec.
#[derive(Clone, Debug)]
pub(super) struct DirParams {
    /// The `--qdisc` swap's discipline name, if one swapped it.
    pub(super) swapped: Option<String>,
    /// The discipline: the file's (drop-tail unless named) or the swap's; an unknown name's
    /// error, reported where the direction is resolved.
    pub(super) kind: Result<Kind, ScenarioError>,
    /// The parameters its discipline takes from the file, in the table's order, each read by
    /// its spec ([`Given::Read`]), kept as text when the discipline has no parameter of that
    /// name (refused as unknown with the others), or the error for a value that is not a
    /// string, number or boolean.
    pub(super) given: Vec<(String, Result<Given, ScenarioError>)>,
    /// The file's parameters a `--qdisc` swap dropped: `(direction, NAME=VALUE)`.
    pub(super) dropped: Vec<(String, String)>,
}

/// The discipline parameters of each link direction of `dir_cfgs` (`(name, settings, key
/// path)`, in link order), typed once ([`DirParams`]), with `ov`'s `--qdisc` swaps applied.
pub(super) fn disc_params(
    cx: &Ctx<'_>,
    dir_cfgs: &[(String, RawDirection, String)],
    ov: &Overrides,
) -> Vec<DirParams> {
    dir_cfgs
        .iter()
        .map(|(name, d, path)| {
            let swapped = ov
                .qdisc
                .iter()
                .rev()
                .find(|(n, _)| n == name || name.strip_suffix(".rev") == Some(n.as_str()))
                .map(|(_, k)| k.as_str());
            direction_params(cx, name, d, path, swapped, &ov.set_params)
        })
        .collect()
}

/// One direction's [`DirParams`]: its discipline (`swapped`, or the one `d` names), and each
/// parameter of `d`'s table it takes, read. A `--qdisc` swap keeps only the parameters a `--set`
/// gave (`set_params`: for this direction, or for the forward direction a `reverse` inherits
/// from) and the buffer (a `limit` where the file gives no `buffer`); the others are dropped,
/// and listed.
fn direction_params(
    cx: &Ctx<'_>,
    name: &str,
    d: &RawDirection,
    path: &str,
    swapped: Option<&str>,
    set_params: &[String],
) -> DirParams {
    let kind_name = swapped.unwrap_or_else(|| {
        d.qdisc
            .as_ref()
            .map(|s| s.get_ref().as_str())
            .unwrap_or("droptail")
    });
    let kind = Kind::from_name(kind_name).map_err(|e| match swapped {
        Some(_) => ScenarioError {
            file: cx.file.clone(),
            line: None,
            path: format!("--qdisc {name}"),
            msg: e.to_string(),
        },
        None => cx.err(
            d.qdisc.as_ref().map(|q| q.span()),
            format!("{path}.qdisc"),
            e.to_string(),
        ),
    });
    let mut out = DirParams {
        swapped: swapped.map(str::to_string),
        kind,
        given: Vec::new(),
        dropped: Vec::new(),
    };
    let (Ok(kind), Some(params)) = (&out.kind, &d.params) else {
        return out;
    };
    let set_here = |k: &str| {
        let fwd = path.strip_suffix(".reverse");
        [Some(path), fwd].into_iter().flatten().any(|p| {
            set_params
                .iter()
                .any(|s| *s == format!("{p}.params") || *s == format!("{p}.params.{k}"))
        })
    };
    for (k, v) in params.get_ref() {
        // A swap keeps the direction's buffer (`--qdisc`'s promise): given as `buffer`, or, in a
        // file that gives none (a resolved scenario writes the buffer as its discipline's
        // `limit`), as the `limit` the swapped-out discipline had, read by the new one's spec.
        let buffer_as_limit = k == "limit" && d.buffer.is_none();
        if swapped.is_some() && !set_here(k) && !buffer_as_limit {
            out.dropped
                .push((name.to_string(), format!("{k}={}", toml_text(v))));
            continue;
        }
        let text = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => {
                let e = cx.err(
                    Some(params.span()),
                    format!("{path}.params.{k}"),
                    format!(
                        "expected a string, number or boolean, got {}",
                        other.type_str()
                    ),
                );
                out.given.push((k.clone(), Err(e)));
                continue;
            }
        };
        // Read by the discipline's spec: the one parse of the text. A name the discipline does
        // not have stays text, refused with the table's names when the parameters are taken.
        let given = match kind.params().iter().find(|s| s.name == k.as_str()) {
            Some(spec) => {
                let value = spec.read(kind.name(), &text);
                Given::Read(text, value)
            }
            None => Given::Text(text),
        };
        out.given.push((k.clone(), Ok(given)));
    }
    out
}
