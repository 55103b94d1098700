//! A link direction's discipline, and its parameters typed once (issue 20). As the link
//! directions are made from the file's link tables, each direction's discipline is known
//! ([`disc_of`]: the file's, a `reverse`'s own or its forward's, or a `--qdisc` swap's) and
//! which keys of its `params` table it keeps (a swap drops those no `--set` gave). Where the
//! direction is resolved ([`discipline`], after its rate), every value it keeps is read by that
//! discipline's [`ParamSpec`](aqmlab_qdisc::ParamSpec) into its typed value, once
//! ([`aqmlab_qdisc::ParamSpec::read`]), and given, typed, to its discipline in the same step
//! ([`aqmlab_qdisc::Params::with_values`], which checks their ranges, parses no given text
//! again, and writes each as given in the resolved scenario), then to its configuration
//! ([`aqmlab_qdisc::AnyConfig::from_params`]). Errors come in the order they always had.
//!
//! The path of `aqmlab run --set links[0].params.target=5ms` (or
//! `dumbbell.bottleneck.params.target`) through the code, from the command line to the typed
//! `target` in CoDel's configuration: 10 functions, each handing the value (as text, a TOML
//! value, or typed) to the next; typed at the 7th, once. Every function that has the value in
//! hand on its way is counted, the callers that only pass it on included; not counted are the
//! libraries' readers (`toml_edit`, serde), checks that only look at the `--set` table's type or
//! key (`cli.py` refuses a `--set` without `=` before the flags after it are checked;
//! `with_set_params` notes which keys give a discipline's parameters; [`disc_of`] which keys a
//! direction keeps), the accessor that gives the typed value back (`Params::duration`), and side
//! trips that hand nothing on (`mtu_from_traffic`, which edits another entry of the same table;
//! `parse_error`, which words an error; `Edited::blame`, which says an error about the file as
//! written; `direction`, which takes the checked table into the resolved direction).
//! 1. `cli.py` `_cmd_run`: the `--set KEY=VALUE` strings as typed, straight to
//! 2. `lib.rs` `load_scenario` (aqmlab-py), which splits each (the one place that does), to
//! 3. `resolve.rs` `resolve_with_edits`, which has
//! 4. `edits.rs` `edit` read the value as a TOML value (the one place that does) and write it
//!    into the scenario's TOML document (with the `--unset`s before it and the counts after it,
//!    in one pass with one origin map; its steps that do not take the value, `document`,
//!    `unset_keys`, `place` (the walk down the key path, which makes the missing tables and
//!    says where the value goes) and `expand_counts`, are side trips), and gives the text back;
//!    3 reads it into the raw types (serde: a TOML value in `params`), and its steps are:
//! 5. `links.rs` `read_topology` (each link direction's raw settings, a `reverse` merged),
//! 6. `disc_params.rs` `discipline` (after the direction's rate: the value's text given to its
//!    discipline's spec, read by
//! 7. `params.rs` `read` (`ParamSpec::read`, aqmlab-qdisc): its typed value ([`Given::Read`]);
//!    with the buffer's limit and the values taken from the link, typed, to
//! 8. `params.rs` `with_values` (`Params::with_values`: the range checked, no text parsed),
//!    and the checked table to
//! 9. `registry.rs` `from_params` (`AnyConfig::from_params`, which makes CoDel's
//!    configuration of its `limit` and), to
//! 10. `codel.rs` `codel_params_from` (the typed `target` in `CodelParams`).
//!
//! Counted the same way, the path had 11 functions before `disc_params.rs` `disc_params` was
//! cut (it read each value when the link directions were made, and handed it, typed, on to 3,
//! which gave it to `links.rs` `direction`, which gave it to 8: 6, 7 and 8 are now one step,
//! and `direction` takes only the checked table), 12 before `resolve.rs` `resolve_expanded`
//! was cut (3 reads and resolves the edited text itself, where it only handed the text on from
//! 4 to 5, 6 and 8), 19 before the list was cut to 12 (issue 20), and 23 before the list was
//! first written. The 7 gone then: `cli.py` `_pairs` (the CLI's split;
//! the native loader splits now) and the Python API between the CLI and the native loader,
//! `run.py` `load`, `_native_args` and `_toml_value` (the API's `set=` dict still takes `load`
//! and `_toml_value`, which writes its Python values as TOML literals: `run.py`'s module doc
//! lists that path, 12 functions);
//! `edits.rs` `set_in` (its steps down the key path are a loop in 4); `resolve.rs` `parse`
//! (3 reads the text itself, `parse_error` words a failure); and `codel.rs`
//! `CodelConfig::from_params` (9 makes the configuration). Before the first list: `lib.rs`
//! `resolve` (between 2 and 3); `topology`, which called 5 and a loop over the directions (then
//! `disc_params`) that called the step that read the value (then `direction_params`); and the
//! loop `directions` (between 3 and `direction`). `tests/set_path.rs` pins this list: each function calls the next ones named here
//! directly, this doc lists the same functions, and the functions gone are not back on it.

use super::links::{
    buffer_limit, config_error, fq_byte_limit, mtu_from_traffic, red_bandwidth_from_link,
    red_delay_from_link, warn_red_delay_without_jitter,
};
use super::*;
use aqmlab_qdisc::{AnyConfig, Given, Params};

/// A link direction's discipline and the names of the parameters it keeps from the file (and
/// `--set`); their values are read by [`discipline`].
#[derive(Clone, Debug)]
pub(super) struct DirParams {
    /// The `--qdisc` swap's discipline name, if one swapped it.
    pub(super) swapped: Option<String>,
    /// The discipline: the file's (drop-tail unless named) or the swap's; an unknown name's
    /// error, reported where the direction is resolved.
    pub(super) kind: Result<Kind, ScenarioError>,
    /// The keys of the `params` table its discipline takes, in the table's order: all of them,
    /// or after a `--qdisc` swap those a `--set` gave and the buffer (a `limit` where the file
    /// gives no `buffer`).
    pub(super) kept: Vec<String>,
    /// The file's parameters a `--qdisc` swap dropped: `(direction, NAME=VALUE)`.
    pub(super) dropped: Vec<(String, String)>,
}

/// The `--qdisc` swap of the link direction `name` (given for it, or for its link), if any:
/// the last one given.
pub(super) fn swap_of<'a>(ov: &'a Overrides, name: &str) -> Option<&'a str> {
    ov.qdisc
        .iter()
        .rev()
        .find(|(n, _)| n == name || name.strip_suffix(".rev") == Some(n.as_str()))
        .map(|(_, k)| k.as_str())
}

/// One link direction's [`DirParams`] (`(name, settings, key path)` as the file gives it): its
/// discipline (`ov`'s `--qdisc` swap, or the one the settings name), and which keys of its
/// `params` table it keeps (only the keys are looked at; [`discipline`] reads the values). A
/// swap keeps only the parameters a `--set` gave (`ov.set_params`: for this direction, or for the
/// forward direction a `reverse` inherits from) and the buffer (a `limit` where the file gives
/// no `buffer`); the others are dropped, and listed.
pub(super) fn disc_of(
    cx: &Ctx<'_>,
    (name, d, path): &(String, RawDirection, String),
    ov: &Overrides,
) -> DirParams {
    let (name, path) = (name.as_str(), path.as_str());
    let swapped = swap_of(ov, name);
    let mut out = DirParams {
        swapped: swapped.map(str::to_string),
        kind: disc_kind(cx, name, path, d, swapped),
        kept: Vec::new(),
        dropped: Vec::new(),
    };
    let (Ok(_), Some(params)) = (&out.kind, &d.params) else {
        return out;
    };
    for (k, v) in params.get_ref() {
        // A swap keeps the direction's buffer (`--qdisc`'s promise): given as `buffer`, or, in a
        // file that gives none (a resolved scenario writes the buffer as its discipline's
        // `limit`), as the `limit` the swapped-out discipline had, read by the new one's spec.
        let buffer_as_limit = k == "limit" && d.buffer.is_none();
        if swapped.is_some() && !set_here(&ov.set_params, path, k) && !buffer_as_limit {
            out.dropped
                .push((name.to_string(), format!("{k}={}", toml_text(v))));
        } else {
            out.kept.push(k.clone());
        }
    }
    out
}

/// The discipline of one link direction (its rate `rate` resolved first), typed and checked
/// once: the buffer's limit ([`buffer_limit`]); each parameter of its `params` table it keeps
/// ([`DirParams::kept`]) read by its discipline's spec ([`aqmlab_qdisc::ParamSpec::read`], the
/// one parse of the text: [`Given::Read`]), or kept as text when the discipline has no parameter
/// of that name (refused with the table's names); the values taken from the link typed
/// ([`red_bandwidth_from_link`], [`red_delay_from_link`], [`fq_byte_limit`]); all checked once
/// (`Params::with_values`), then the value taken from the traffic ([`mtu_from_traffic`], a
/// typed edit) and the discipline's configuration. An error names the key it is about
/// ([`config_error`]). Errors come in this order: the discipline name's, the buffer's, a value
/// that is not a string, number or boolean, the other parameters'.
pub(super) fn discipline(
    x: &DirIn<'_>,
    rate: &LinkRate,
    warnings: &mut Vec<String>,
) -> Result<(Params, AnyConfig), ScenarioError> {
    let kind = x.dp.kind.clone()?;
    let mut pairs: Vec<(String, Given)> = buffer_limit(x)?.into_iter().collect();
    let table = x.d.params.as_ref().map(|p| (p.get_ref(), p.span()));
    for (k, v) in table.iter().flat_map(|(t, _)| t.iter()) {
        let text = match v {
            _ if !x.dp.kept.contains(k) => continue,
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => {
                let (path, span) = (format!("{}.params.{k}", x.path), table.map(|t| t.1));
                let t = other.type_str();
                let msg = format!("expected a string, number or boolean, got {t}");
                return Err(x.cx.err(span, path, msg));
            }
        };
        // Read by the discipline's spec: the one parse of the text.
        let given = match kind.params().iter().find(|s| s.name == k.as_str()) {
            Some(spec) => Given::Read(text.clone(), spec.read(kind.name(), &text)),
            None => Given::Text(text),
        };
        pairs.push((k.clone(), given));
    }
    warnings.extend(red_bandwidth_from_link(x, kind, &mut pairs, rate));
    let delay = *x.d.delay.as_ref().expect("set on links and reverses").get();
    let red_delay_filled = red_delay_from_link(kind, &mut pairs, delay);
    if matches!(kind, Kind::FqCodel | Kind::FqPie | Kind::FqCobalt) {
        fq_byte_limit(&mut pairs);
    }
    // Checked once, each against its table; then the rule that reads the typed values edits
    // them; then all are checked together into the discipline's configuration.
    let config_err = |e| config_error(x, e);
    let mut params = Params::with_values(kind.name(), kind.params(), &pairs).map_err(config_err)?;
    drop(pairs);
    mtu_from_traffic(&mut params, x.largest_packet).map_err(config_err)?;
    if red_delay_filled {
        let jitter = x.d.jitter.as_ref().map(|j| j.text());
        let (name, path) = (x.name, x.path);
        warn_red_delay_without_jitter(&params, delay, jitter, name, path, warnings);
    }
    let qdisc = AnyConfig::from_params(&params).map_err(config_err)?;
    Ok((params, qdisc))
}

/// The discipline of link direction `name` (key path `path`, settings `d`): the `--qdisc` swap
/// `swapped`, or the one the settings name, drop-tail if none. An unknown name is an error
/// naming the swap (`--qdisc NAME`, no line) or the file's `PATH.qdisc` key.
fn disc_kind(
    cx: &Ctx<'_>,
    name: &str,
    path: &str,
    d: &RawDirection,
    swapped: Option<&str>,
) -> Result<Kind, ScenarioError> {
    let kind_name = swapped.unwrap_or_else(|| {
        d.qdisc
            .as_ref()
            .map(|s| s.get_ref().as_str())
            .unwrap_or("droptail")
    });
    Kind::from_name(kind_name).map_err(|e| match swapped {
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
    })
}

/// Whether a `--set` (`set_params`, the key paths it gave) gave parameter `k` of the direction
/// at key path `path`, or its whole `params` table; for a `reverse`, also its forward
/// direction's (which the reverse inherits).
fn set_here(set_params: &[String], path: &str, k: &str) -> bool {
    let fwd = path.strip_suffix(".reverse");
    [Some(path), fwd].into_iter().flatten().any(|p| {
        set_params
            .iter()
            .any(|s| *s == format!("{p}.params") || *s == format!("{p}.params.{k}"))
    })
}

#[cfg(test)]
mod tests;
