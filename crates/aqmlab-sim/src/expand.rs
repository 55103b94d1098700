//! `count = N` on a flow: N identical flows, written once.
//!
//! A `[[flows]]` table with `count = N` stands for N flows in its place, in order. A key given
//! as a list gives each instance its own value (`from = ["s1", "s2", "s3"]`, one per
//! instance; no flow key takes a list otherwise); a `name` given once names the instances
//! `NAME-1` ... `NAME-N`. The expansion is made on the text before it is read, so everything
//! after it sees N ordinary flows: the flows after a counted one move by N − 1 places (their
//! positions name their random streams and their keys in errors and `--set`, which applies
//! to the file as written, before the expansion). An error in an instance names the table as
//! written: `flows[1] (instance 3 of 4).from`.

use crate::scenario::{ScenarioError, MAX_FLOWS};

/// Where each flow of the expanded text comes from: `(index in the file, instance, count)`.
pub type Origins = Vec<(usize, usize, usize)>;

/// The text with every counted flow expanded, and where each flow comes from; `None` when no
/// flow has a `count` (the text is used as it is).
pub fn expand_counts(text: &str, file: &str) -> Result<Option<(String, Origins)>, ScenarioError> {
    // Cheap test first: most scenarios have no count at all.
    if !text.contains("count") {
        return Ok(None);
    }
    let Ok(mut doc) = text.parse::<toml_edit::DocumentMut>() else {
        return Ok(None); // the reader reports the syntax error, with its line
    };
    let Some(toml_edit::Item::ArrayOfTables(flows)) = doc.get("flows") else {
        return Ok(None);
    };
    if !flows.iter().any(|t| t.contains_key("count")) {
        return Ok(None);
    }
    // The editable document keeps no positions: the lines come from a second, read-only parse.
    let spans = toml_edit::ImDocument::parse(text).ok();
    let line = |i: usize, key: &str| {
        spans
            .as_ref()?
            .get("flows")?
            .as_array_of_tables()?
            .get(i)?
            .get(key)?
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
    };
    let bad = |_t: &toml_edit::Table, i: usize, key: &str, msg: String| ScenarioError {
        file: file.to_string(),
        line: line(i, key),
        path: format!("flows[{i}].{key}"),
        msg,
    };
    // The total is checked before anything is expanded, so many large counts fail before their
    // copies are made (a count out of range is reported below, with its line).
    let total: usize = flows
        .iter()
        .map(|t| {
            t.get("count")
                .and_then(|c| c.as_integer())
                .filter(|n| (1..=MAX_FLOWS as i64).contains(n))
                .map_or(1, |n| n as usize)
        })
        .sum();
    if total > MAX_FLOWS {
        return Err(ScenarioError {
            file: file.to_string(),
            line: None,
            path: "flows".into(),
            msg: format!("expected at most {MAX_FLOWS} flows, got {total} (counts included)"),
        });
    }
    let mut out = toml_edit::ArrayOfTables::new();
    let mut origins = Vec::new();
    for (i, t) in flows.iter().enumerate() {
        let Some(c) = t.get("count") else {
            out.push(t.clone());
            origins.push((i, 0, 1));
            continue;
        };
        let n = match c.as_integer() {
            Some(n) if (1..=MAX_FLOWS as i64).contains(&n) => n as usize,
            _ => {
                return Err(bad(
                    t,
                    i,
                    "count",
                    format!(
                        "expected a number of flows from 1 to {MAX_FLOWS}, got {}",
                        c.to_string().trim()
                    ),
                ))
            }
        };
        for (key, item) in t.iter() {
            if let Some(a) = item.as_array() {
                if a.len() != n {
                    return Err(bad(
                        t,
                        i,
                        key,
                        format!(
                            "expected one value, or a list of {n} (one per flow of count = {n}), got {} values",
                            a.len()
                        ),
                    ));
                }
            }
        }
        for j in 0..n {
            let mut one = toml_edit::Table::new();
            for (key, item) in t.iter() {
                if key == "count" {
                    continue;
                }
                let v = match item.as_array() {
                    Some(a) => toml_edit::Item::Value(a.get(j).expect("checked length").clone()),
                    None => item.clone(),
                };
                one.insert(key, v);
            }
            if let Some(name) = t.get("name").and_then(|v| v.as_str()) {
                one.insert("name", toml_edit::value(format!("{name}-{}", j + 1)));
            }
            out.push(one);
            origins.push((i, j, n));
        }
    }
    doc.insert("flows", toml_edit::Item::ArrayOfTables(out));
    Ok(Some((doc.to_string(), origins)))
}

/// `e`, an error about the expanded text `edited`, said about the file as written
/// (`original`): `flows[k]` becomes the table it comes from (with its instance), and a line is
/// kept only where the two texts still agree (the expansion moved the flows' lines).
pub fn unexpand_error(
    mut e: ScenarioError,
    origins: &Origins,
    original: &str,
    edited: &str,
) -> ScenarioError {
    if let Some(l) = e.line {
        let same = original
            .lines()
            .nth(l - 1)
            .is_some_and(|a| edited.lines().nth(l - 1) == Some(a));
        if !same || e.path.starts_with("flows") {
            e.line = None;
        }
    }
    if let Some(rest) = e.path.strip_prefix("flows[") {
        if let Some((k, tail)) = rest.split_once(']') {
            if let Some(&(i, j, n)) = k.parse::<usize>().ok().and_then(|k| origins.get(k)) {
                e.path = if n > 1 {
                    format!("flows[{i}] (flow {} of count = {n}){tail}", j + 1)
                } else {
                    format!("flows[{i}]{tail}")
                };
            }
        }
    }
    e
}
