//! Edits of a scenario's text before it is built: `--set KEY=VALUE` and `--unset KEY`, applied
//! with toml_edit so the rest of the file (and its line numbers) stays as written, and errors
//! about an edited key blamed on the edit that wrote it.

use super::*;

/// Applies `--set path.to.key=value` overrides to scenario `text`, keeping the rest of the
/// file (and so its line numbers) as written. A path is dot-separated keys with `[i]` for array
/// elements (`flows[0].rate`, `dumbbell.bottleneck.params.target`); missing tables are created.
/// `value` is read as a TOML value when it is one (`10`, `true`, `"x"`, `["0s", "1Mbps"]`),
/// otherwise as a string (`10Mbps`).
pub fn apply_sets(
    text: &str,
    file: &str,
    sets: &[(String, String)],
) -> Result<String, ScenarioError> {
    let mut doc: toml_edit::DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| ScenarioError {
                file: file.to_string(),
                line: e
                    .span()
                    .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1),
                path: String::new(),
                msg: toml_message(e.message(), text, e.span()),
            })?;
    for (path, value) in sets {
        let bad = |msg: String| ScenarioError {
            file: file.to_string(),
            line: None,
            path: format!("--set {path}"),
            msg,
        };
        let mut segs: Vec<(String, Option<usize>)> = Vec::new();
        for part in path.split('.') {
            let (key, idx) = match part.split_once('[') {
                Some((k, rest)) => {
                    let i = rest
                        .strip_suffix(']')
                        .and_then(|x| x.parse::<usize>().ok())
                        .ok_or_else(|| bad(format!("expected KEY[INDEX] in {part:?}")))?;
                    (k, Some(i))
                }
                None => (part, None),
            };
            if key.is_empty()
                || !key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(bad(format!(
                    "expected a dotted key path like dumbbell.bottleneck.rate (keys of letters, digits, _ and -), got {part:?}"
                )));
            }
            segs.push((key.to_string(), idx));
        }
        // A TOML value when it is one, except a date or time: no scenario key takes one, and
        // `name=2024-05-01` means the text.
        let new_value: toml_edit::Value = match value.parse::<toml_edit::Value>() {
            Ok(v) if !v.is_datetime() => v,
            _ => toml_edit::Value::from(value.as_str()),
        };
        set_in(doc.as_table_mut(), &segs, &new_value, &bad)?;
    }
    Ok(doc.to_string())
}

/// Removes the keys `keys` (dotted paths as [`apply_sets`] takes them: `flows[0].stop`,
/// `dumbbell.bottleneck.params.target`, or a whole table) from scenario `text`, as `aqmlab
/// run --unset KEY` does, keeping the rest as written. A key that is not there is an error
/// naming the `--unset`.
pub fn apply_unsets(text: &str, file: &str, keys: &[String]) -> Result<String, ScenarioError> {
    let mut doc: toml_edit::DocumentMut =
        text.parse()
            .map_err(|e: toml_edit::TomlError| ScenarioError {
                file: file.to_string(),
                line: e
                    .span()
                    .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1),
                path: String::new(),
                msg: toml_message(e.message(), text, e.span()),
            })?;
    for key in keys {
        let bad = |msg: String| ScenarioError {
            file: file.to_string(),
            line: None,
            path: format!("--unset {key}"),
            msg,
        };
        let mut segs: Vec<(String, Option<usize>)> = Vec::new();
        for part in key.split('.') {
            let (k, idx) = match part.split_once('[') {
                Some((k, rest)) => {
                    let i = rest
                        .strip_suffix(']')
                        .and_then(|x| x.parse::<usize>().ok())
                        .ok_or_else(|| bad(format!("expected KEY[INDEX] in {part:?}")))?;
                    (k, Some(i))
                }
                None => (part, None),
            };
            if k.is_empty() {
                return Err(bad(format!(
                    "expected a dotted key path like flows[0].stop, got {key:?}"
                )));
            }
            segs.push((k.to_string(), idx));
        }
        let missing = || bad("no such key in the scenario".to_string());
        let (last, parents) = segs.split_last().expect("at least one segment");
        let mut table: &mut dyn toml_edit::TableLike = doc.as_table_mut();
        for (k, idx) in parents {
            let item = table.get_mut(k).ok_or_else(missing)?;
            table = match (idx, item) {
                (None, it) => it.as_table_like_mut().ok_or_else(missing)?,
                (Some(i), toml_edit::Item::ArrayOfTables(a)) => {
                    a.get_mut(*i).ok_or_else(missing)?
                }
                _ => return Err(missing()),
            };
        }
        match last {
            (k, None) => {
                table.remove(k).ok_or_else(missing)?;
            }
            (k, Some(i)) => match table.get_mut(k) {
                Some(toml_edit::Item::ArrayOfTables(a)) if *i < a.len() => a.remove(*i),
                Some(toml_edit::Item::Value(toml_edit::Value::Array(a))) if *i < a.len() => {
                    a.remove(*i);
                }
                _ => return Err(missing()),
            },
        }
    }
    Ok(doc.to_string())
}

/// [`build_with_sets`] after removing the keys `unsets` ([`apply_unsets`]) first. Errors of the
/// edited text name no line (the removals shift them).
pub fn build_with_edits(
    text: &str,
    file: &str,
    dir: &Path,
    default_name: &str,
    unsets: &[String],
    sets: &[(String, String)],
    ov: &Overrides,
) -> Result<Scenario, ScenarioError> {
    if unsets.is_empty() {
        return build_with_sets(text, file, dir, default_name, sets, ov);
    }
    let edited = apply_unsets(text, file, unsets)?;
    build_with_sets(&edited, file, dir, default_name, sets, ov).map_err(|mut e| {
        e.line = e.line.and_then(|l| removed_line(text, &edited, l));
        e
    })
}

/// The line of `original` that line `l` (1-based) of `edited` is, where `edited` is `original`
/// with some lines removed (what [`apply_unsets`] does); `None` when it cannot tell.
fn removed_line(original: &str, edited: &str, l: usize) -> Option<usize> {
    let orig: Vec<&str> = original.lines().collect();
    let ed: Vec<&str> = edited.lines().collect();
    let mut j = 0;
    for (i, line) in ed.iter().enumerate() {
        let k = j + orig[j..].iter().position(|o| o == line)?;
        j = k + 1;
        if i + 1 == l {
            return Some(k + 1);
        }
    }
    None
}

/// Builds a scenario from TOML `text` after the `--set` edits `sets` (see [`apply_sets`]). An
/// error about a key that a `--set` wrote names that `--set` instead of a line: the line would
/// be that of the edited text, not of the file the user reads.
pub fn build_with_sets(
    text: &str,
    file: &str,
    dir: &Path,
    default_name: &str,
    sets: &[(String, String)],
    ov: &Overrides,
) -> Result<Scenario, ScenarioError> {
    if sets.is_empty() {
        return build(text, file, dir, default_name, ov);
    }
    let edited = apply_sets(text, file, sets)?;
    let mut ov = ov.clone();
    ov.set_params.extend(
        sets.iter()
            .map(|(k, _)| k.clone())
            .filter(|k| k.ends_with(".params") || k.contains(".params.")),
    );
    build(&edited, file, dir, default_name, &ov).map_err(|e| {
        let mut e = attribute_to_set(e, sets);
        // An error elsewhere names a line of the edited text, where a --set may have inserted
        // lines: name the file's line instead.
        e.line = e.line.and_then(|l| original_line(text, &edited, l));
        e
    })
}

/// The line of `original` that line `l` (1-based) of `edited` comes from, where `edited` is
/// `original` with some lines replaced in place and some inserted (what [`apply_sets`] does);
/// `None` for an inserted line.
fn original_line(original: &str, edited: &str, l: usize) -> Option<usize> {
    let orig: Vec<&str> = original.lines().collect();
    let ed: Vec<&str> = edited.lines().collect();
    if orig.len() == ed.len() {
        return Some(l);
    }
    let mut j = 0; // next line of `orig` not yet matched
    for (i, line) in ed.iter().enumerate() {
        let from = if j < orig.len() && orig[j] == *line {
            j += 1;
            Some(j)
        } else if j < orig.len()
            && (ed.get(i + 1) == orig.get(j + 1) || ed.len() - i == orig.len() - j)
        {
            // Replaced in place: the lines after it line up again.
            j += 1;
            Some(j)
        } else {
            None // inserted
        };
        if i + 1 == l {
            return from;
        }
    }
    None
}

/// `e` rewritten to name the `--set KEY=VALUE` that wrote its key, when one did: the error's
/// key is the set key or lies under it (`flows[0]` set as a whole), or the set key lies under
/// the error's key and the message is about the set key's last part as its subject (an
/// unknown field `` `x` ``, a discipline's `parameter x = ` or `parameter "x"`), not merely
/// listing it among the expected ones.
fn attribute_to_set(e: ScenarioError, sets: &[(String, String)]) -> ScenarioError {
    let under = |inner: &str, outer: &str| {
        inner == outer
            || inner
                .strip_prefix(outer)
                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
    };
    // The last set of a key wins, as in apply_sets.
    let hit = sets.iter().rev().find(|(key, _)| {
        if e.path.is_empty() {
            return false;
        }
        let last = key.rsplit('.').next().unwrap_or(key);
        let last = last.split('[').next().unwrap_or(last);
        let about_last = [
            format!("field `{last}`"),
            format!("parameter {last} = "),
            format!("parameter \"{last}\""),
        ]
        .iter()
        .any(|subject| e.msg.contains(subject.as_str()));
        under(&e.path, key) || (under(key, &e.path) && about_last)
    });
    match hit {
        Some((key, value)) => {
            // The file hint (quote values with units) does not fit a --set: there a value that
            // reads as a TOML number or boolean is one, and quoting makes it a string.
            let msg = match e.msg.split_once(" (write values with units in quotes") {
                Some((head, _)) => format!(
                    "{head} (give a unit where one belongs, like 20ms or 10Mbps; after --set a bare number or boolean is read as one, so quote text: {key}='\"{value}\"')"
                ),
                None => e.msg,
            };
            ScenarioError {
                file: e.file,
                line: None,
                path: format!("--set {key}={value}"),
                msg: if e.path == *key {
                    msg
                } else {
                    format!("{}: {}", e.path, msg)
                },
            }
        }
        None => e,
    }
}

type Seg = (String, Option<usize>);

/// Sets `value` at `segs` under `table` (recursive, one path segment per call).
fn set_in(
    table: &mut dyn toml_edit::TableLike,
    segs: &[Seg],
    value: &toml_edit::Value,
    bad: &dyn Fn(String) -> ScenarioError,
) -> Result<(), ScenarioError> {
    let ((key, idx), rest) = segs.split_first().expect("a path has at least one segment");
    match idx {
        None if rest.is_empty() => {
            table.insert(key, toml_edit::Item::Value(value.clone()));
            Ok(())
        }
        None => {
            if table.get(key).is_none() {
                // An inline table (`params = { mode = "packet" }`), not dotted keys
                // (`params.mode = "packet"`): the toml crate cannot read dotted keys into the
                // spanned tables the scenario uses (toml-rs/toml#798).
                let t = toml_edit::InlineTable::new();
                table.insert(
                    key,
                    toml_edit::Item::Value(toml_edit::Value::InlineTable(t)),
                );
            }
            let t = table
                .get_mut(key)
                .and_then(|it| it.as_table_like_mut())
                .ok_or_else(|| bad(format!("{key} is not a table")))?;
            set_in(t, rest, value, bad)
        }
        Some(i) => match table.get_mut(key) {
            Some(toml_edit::Item::ArrayOfTables(a)) => {
                if rest.is_empty() {
                    return Err(bad(format!(
                        "{key}[{i}] is a table: set one of its keys instead"
                    )));
                }
                let len = a.len();
                let t = a
                    .get_mut(*i)
                    .ok_or_else(|| bad(format!("{key} has {len} elements, no [{i}]")))?;
                set_in(t, rest, value, bad)
            }
            Some(toml_edit::Item::Value(toml_edit::Value::Array(arr))) if rest.is_empty() => {
                if *i >= arr.len() {
                    return Err(bad(format!("{key} has {} elements, no [{i}]", arr.len())));
                }
                arr.replace(*i, value.clone());
                Ok(())
            }
            _ => Err(bad(format!("{key} is not an array of tables"))),
        },
    }
}
