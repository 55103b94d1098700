//! Edits of a scenario's text before it is read, as one pass over one `toml_edit` document:
//! `--unset KEY`, then `--set KEY=VALUE`, then `count = N` on flows. The rest of the file stays
//! as written, and one origin map ([`Edited::origins`]) says where each line of the edited
//! document comes from (a line of the file, or the `--set` that wrote it), so that every error
//! about the edited document names the file's line or the `--set`.
//!
//! `count = N` on a flow: a `[[flows]]` table with `count = N` stands for N flows in its place,
//! in order. A key given as a list gives each instance its own value (`from = ["s1", "s2",
//! "s3"]`, one per instance; no flow key takes a list otherwise); a `name` given once names the
//! instances `NAME-1` ... `NAME-N`. The flows after a counted one move by N − 1 places (their
//! positions name their random streams and their keys in errors); `--set` and `--unset` apply to
//! the file as written, before the expansion. An error in an instance names the table as
//! written: `flows[1] (flow 3 of count = 4).from`.
//!
//! A counted table without per-flow lists stays one table in the edited document, read once and
//! stamped N times by the loader ([`super::flows::RawFlows`]): written out as N tables, a group
//! of 50 000 idle flows took 2.3 kB per flow of transient memory to read (issue 24). A table
//! with per-flow lists is written out as its N instances, whose values differ.

use super::{check_toml, syntax_error, Overrides, ScenarioError, MAX_FLOWS};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// One segment of a key path: a key, or an array index (`flows[2]` is `flows`, `2`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// A dotted key path as `--set` and `--unset` take it (`flows[0].rate`,
/// `dumbbell.bottleneck.params.target`), as segments; `bad` makes the error for a malformed one.
fn key_path(
    path: &str,
    bad: &dyn Fn(String) -> ScenarioError,
    strict: bool,
) -> Result<Vec<Seg>, ScenarioError> {
    let mut segs = Vec::new();
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
        if strict
            && (key.is_empty()
                || !key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        {
            return Err(bad(format!(
                "expected a dotted key path like dumbbell.bottleneck.rate (keys of letters, digits, _ and -), got {part:?}"
            )));
        }
        if key.is_empty() {
            return Err(bad(format!(
                "expected a dotted key path like flows[0].stop, got {path:?}"
            )));
        }
        segs.push(Seg::Key(key.to_string()));
        segs.extend(idx.map(Seg::Index));
    }
    Ok(segs)
}

/// `path` as errors write it: `flows[0].rate`.
fn path_text(path: &[Seg]) -> String {
    let mut out = String::new();
    for s in path {
        match s {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Where a line of the edited document comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// This line (1-based) of the file as written.
    File(usize),
    /// The `--set` at this index wrote it.
    Set(usize),
    /// An instance (after the first written) of a flow with `count = N`, or a line that holds no
    /// key (a comment, a blank line).
    None,
}

/// Where each flow comes from: `(index in the file, instance, count)`.
type FlowOrigins = Vec<(usize, usize, usize)>;

/// What the expansion of `count = N` made of the flows.
struct Expansion {
    /// Each flow, in the scenario's order (a stamped table's N flows each).
    flows: FlowOrigins,
    /// Each `[[flows]]` table of the edited document (a stamped table once, as its first flow).
    tables: FlowOrigins,
    /// For each table of the edited document, `Some(N)` when it stands for N flows stamped from
    /// it (`count = N` without per-flow lists), `None` for one flow.
    stamps: Vec<Option<usize>>,
}

/// A scenario's text after `--unset`, `--set` and `count = N` ([`edit`]), with what it takes to
/// say any line of it as the file's line or the `--set` that wrote it.
pub(crate) struct Edited<'a> {
    original: &'a str,
    file: &'a str,
    /// The edited document (the file itself when there was nothing to edit).
    pub text: Cow<'a, str>,
    unsets: Vec<Vec<Seg>>,
    sets: &'a [(String, String)],
    /// The keys of `sets` a sweep varies, with the option that varies each (`--vary`).
    varied: &'a [(String, String)],
    set_paths: Vec<Vec<Seg>>,
    /// `None` when no flow has a `count`.
    expansion: Option<Expansion>,
}

/// Applies `--unset` keys `unsets`, then `--set` edits `sets`, then (when `expand`) every flow's
/// `count = N`, to scenario `text`, in one `toml_edit` document. A `--set` value is read as a
/// TOML value when it is one (`10`, `true`, `"x"`, `["0s", "1Mbps"]`), except a date or time (no
/// scenario key takes one: `name=2024-05-01` means the text), otherwise as a string (`10Mbps`);
/// missing tables are created. A key an `--unset` names that is not there is an error naming the
/// `--unset`. Its steps that do not take a `--set` value are their own functions: [`document`],
/// [`unset_keys`], [`place`] (the walk down a key path) and [`Edited::expand_counts`].
pub(crate) fn edit<'a>(
    text: &'a str,
    file: &'a str,
    unsets: &[String],
    sets: &'a [(String, String)],
    varied: &'a [(String, String)],
    expand: bool,
) -> Result<Edited<'a>, ScenarioError> {
    let mut ed = Edited {
        original: text,
        file,
        text: Cow::Borrowed(text),
        unsets: Vec::new(),
        sets,
        varied,
        set_paths: Vec::new(),
        expansion: None,
    };
    // Cheap test first: most scenarios have no edits and no count at all.
    let counts = expand && text.contains("count");
    if unsets.is_empty() && sets.is_empty() && !counts {
        return Ok(ed);
    }
    let Some(mut doc) = document(text, file, !unsets.is_empty() || !sets.is_empty())? else {
        return Ok(ed);
    };
    ed.unsets = unset_keys(&mut doc, file, unsets)?;
    for (key, value) in sets {
        let bad = |msg: String| ScenarioError {
            file: file.to_string(),
            line: None,
            path: format!("{} {key}", set_flag(key, varied)),
            msg,
        };
        let path = key_path(key, &bad, true)?;
        // The value as typed: read here, once (its spec types it where the scenario is read).
        let value: toml_edit::Value = match value.parse::<toml_edit::Value>() {
            Ok(v) if !v.is_datetime() => v,
            _ => toml_edit::Value::from(value.as_str()),
        };
        match place(&mut doc, &path, &bad)? {
            Place::Key(table, key) => {
                table.insert(key, toml_edit::Item::Value(value));
            }
            Place::Element(arr, i) => {
                arr.replace(i, value);
            }
        }
        ed.set_paths.push(path);
    }
    if counts {
        ed.expansion = ed.expand_counts(&mut doc)?;
    }
    if !unsets.is_empty() || !sets.is_empty() || ed.expansion.is_some() {
        ed.text = Cow::Owned(doc.to_string());
    }
    Ok(ed)
}

/// Scenario `text` as a `toml_edit` document to edit; `None` when it does not parse and there
/// are no `--set`s or `--unset`s (`edits` false), for the reader to report the syntax error as
/// it does for any file.
fn document(
    text: &str,
    file: &str,
    edits: bool,
) -> Result<Option<toml_edit::DocumentMut>, ScenarioError> {
    match text.parse::<toml_edit::DocumentMut>() {
        Ok(d) => Ok(Some(d)),
        Err(_) if !edits => Ok(None),
        // Said as the reader says it without edits (one parser's words for every file).
        Err(e) => Err(check_toml(file, text)
            .err()
            .unwrap_or_else(|| syntax_error(file, text, e.message(), e.span()))),
    }
}

/// The `--unset` pass: removes each key of `unsets` from `doc`, in order, and gives their
/// paths; a key that is not there is an error naming its `--unset`.
fn unset_keys(
    doc: &mut toml_edit::DocumentMut,
    file: &str,
    unsets: &[String],
) -> Result<Vec<Vec<Seg>>, ScenarioError> {
    let mut paths = Vec::with_capacity(unsets.len());
    for key in unsets {
        let bad = |msg: String| ScenarioError {
            file: file.to_string(),
            line: None,
            path: format!("--unset {key}"),
            msg,
        };
        let path = key_path(key, &bad, false)?;
        unset_in(doc.as_table_mut(), &path, &|| {
            bad("no such key in the scenario".into())
        })?;
        paths.push(path);
    }
    Ok(paths)
}

/// Where a `--set` writes its value: a key of a table, or an element of an array of values.
enum Place<'d, 'p> {
    Key(&'d mut dyn toml_edit::TableLike, &'p str),
    Element(&'d mut toml_edit::Array, usize),
}

/// The walk down key `path` of a `--set` to the place its value goes, one key (and its index)
/// at a step, making each missing table on the way (an inline table); `bad` makes the error for
/// a step that is not a table, an index past the end, or a path ending on a table of an array.
fn place<'d, 'p>(
    doc: &'d mut toml_edit::DocumentMut,
    path: &'p [Seg],
    bad: &dyn Fn(String) -> ScenarioError,
) -> Result<Place<'d, 'p>, ScenarioError> {
    let mut table: &mut dyn toml_edit::TableLike = doc.as_table_mut();
    let mut rest = path;
    loop {
        let (key, idx, tail) = match rest {
            [Seg::Key(k), Seg::Index(i), tail @ ..] => (k, Some(*i), tail),
            [Seg::Key(k), tail @ ..] => (k, None, tail),
            _ => unreachable!("a key path starts with a key and has one index after a key at most"),
        };
        match idx {
            None if tail.is_empty() => return Ok(Place::Key(table, key)),
            None => {
                if table.get(key).is_none() {
                    // An inline table (`params = { mode = "packet" }`), not dotted keys
                    // (`params.mode = "packet"`): the toml crate cannot read dotted keys
                    // into the spanned tables the scenario uses (toml-rs/toml#798).
                    let t = toml_edit::InlineTable::new();
                    table.insert(
                        key,
                        toml_edit::Item::Value(toml_edit::Value::InlineTable(t)),
                    );
                }
                table = table
                    .get_mut(key)
                    .and_then(|it| it.as_table_like_mut())
                    .ok_or_else(|| bad(format!("{key} is not a table")))?;
            }
            Some(i) => match table.get_mut(key) {
                Some(toml_edit::Item::ArrayOfTables(a)) => {
                    if tail.is_empty() {
                        return Err(bad(format!(
                            "{key}[{i}] is a table: set one of its keys instead"
                        )));
                    }
                    let len = a.len();
                    table = a
                        .get_mut(i)
                        .ok_or_else(|| bad(format!("{key} has {len} elements, no [{i}]")))?;
                }
                Some(toml_edit::Item::Value(toml_edit::Value::Array(arr))) if tail.is_empty() => {
                    if i >= arr.len() {
                        return Err(bad(format!("{key} has {} elements, no [{i}]", arr.len())));
                    }
                    return Ok(Place::Element(arr, i));
                }
                _ => return Err(bad(format!("{key} is not an array of tables"))),
            },
        }
        rest = tail;
    }
}

impl Edited<'_> {
    /// Whether the edited document differs from the file.
    fn changed(&self) -> bool {
        matches!(self.text, Cow::Owned(_))
    }

    /// For each `[[flows]]` table of the edited text, `Some(N)` when the loader stamps N flows
    /// from it; empty when no flow has a `count` (every table is one flow).
    pub(crate) fn stamps(&self) -> &[Option<usize>] {
        self.expansion.as_ref().map_or(&[], |x| &x.stamps)
    }

    /// The origin of key `path` of the edited document: undoes the expansion, then the `--set`s
    /// (a key at or under one is its), then the `--unset`s' removals of array elements (the
    /// elements after a removed one moved down), and looks the path up in the file's `lines`.
    fn origin_of(&self, path: &[Seg], lines: &BTreeMap<Vec<Seg>, usize>, expanded: bool) -> Origin {
        let mut p = path.to_vec();
        if let (true, Some(x)) = (expanded, &self.expansion) {
            if let [Seg::Key(k), Seg::Index(i), ..] = &p[..] {
                if k == "flows" {
                    match x.tables.get(*i) {
                        Some(&(o, 0, 1)) => p[1] = Seg::Index(o),
                        _ => return Origin::None,
                    }
                }
            }
        }
        if let Some(i) = self.set_paths.iter().rposition(|s| p.starts_with(s)) {
            return Origin::Set(i);
        }
        for u in self.unsets.iter().rev() {
            if let Some((Seg::Index(i), parent)) = u.split_last() {
                if p.len() > parent.len() && p.starts_with(parent) {
                    if let Seg::Index(k) = p[parent.len()] {
                        if k >= *i {
                            p[parent.len()] = Seg::Index(k + 1);
                        }
                    }
                }
            }
        }
        lines.get(&p).map_or(Origin::None, |&l| Origin::File(l))
    }

    /// The origin map: for each line of the edited document (index 0 is line 1), the line of
    /// the file it comes from, or the `--set` that wrote it. A line holding keys of several
    /// origins (an inline table a `--set` added to) is the file's.
    pub(crate) fn origins(&self) -> Vec<Origin> {
        let n = self.text.lines().count().max(1);
        if !self.changed() {
            return (1..=n).map(Origin::File).collect();
        }
        let file_lines: BTreeMap<Vec<Seg>, usize> = key_lines(self.original).into_iter().collect();
        let mut out = vec![Origin::None; n];
        for (path, line) in key_lines(&self.text) {
            let Some(slot) = out.get_mut(line - 1) else {
                continue;
            };
            match (self.origin_of(&path, &file_lines, true), *slot) {
                (_, Origin::File(_)) => {}
                (o @ Origin::File(_), _) | (o @ Origin::Set(_), Origin::None) => *slot = o,
                _ => {}
            }
        }
        out
    }

    /// `e`, an error about the edited document, said about the file as written: an error about
    /// a key a `--set` wrote names that `--set`; `flows[k]` becomes the table it comes from (with
    /// its instance); a line becomes the file's line it comes from, or none.
    pub(crate) fn blame(&self, mut e: ScenarioError) -> ScenarioError {
        if !self.changed() {
            return e;
        }
        let line = e.line.take();
        if let (Some(x), Some(rest)) = (&self.expansion, e.path.strip_prefix("flows[")) {
            if let Some((k, tail)) = rest.split_once(']') {
                if let Some(&(i, j, n)) = k.parse::<usize>().ok().and_then(|k| x.flows.get(k)) {
                    e.path = if n > 1 {
                        format!("flows[{i}] (flow {} of count = {n}){tail}", j + 1)
                    } else {
                        format!("flows[{i}]{tail}")
                    };
                }
            }
        }
        let (mut e, by_set) = attribute_to_set(e, self.sets, self.varied);
        if !by_set {
            e.line = line.and_then(|l| match self.origins().get(l - 1) {
                Some(Origin::File(o)) => Some(*o),
                _ => None,
            });
        }
        e
    }

    /// An error about key `key` of `[[flows]]` table `i` of the file as written (before the
    /// expansion): named by its line, or by the `--set` that wrote it.
    fn flow_error(&self, i: usize, (key, msg): (&str, String)) -> ScenarioError {
        let path = vec![
            Seg::Key("flows".into()),
            Seg::Index(i),
            Seg::Key(key.into()),
        ];
        let lines: BTreeMap<Vec<Seg>, usize> = key_lines(self.original).into_iter().collect();
        let line = match self.origin_of(&path, &lines, false) {
            Origin::File(l) => Some(l),
            _ => None,
        };
        let e = ScenarioError {
            file: self.file.to_string(),
            line,
            path: path_text(&path),
            msg,
        };
        attribute_to_set(e, self.sets, self.varied).0
    }

    /// Expands every flow with a `count` in `doc` (see the module's comment); `None` when no
    /// flow has one. Errors name the file's line of the counted table's key. The total is
    /// checked before anything is expanded ([`flow_total`]), then each table in order: its
    /// `count` ([`count_of`]), its per-flow lists ([`has_lists`]), and either one table the
    /// loader stamps ([`stamped`]) or its instances written out ([`instance`]).
    fn expand_counts(
        &self,
        doc: &mut toml_edit::DocumentMut,
    ) -> Result<Option<Expansion>, ScenarioError> {
        let Some(toml_edit::Item::ArrayOfTables(flows)) = doc.get("flows") else {
            return Ok(None);
        };
        if !flows.iter().any(|t| t.contains_key("count")) {
            return Ok(None);
        }
        // Many large counts fail before their copies are made (a count out of range is
        // reported below, with its line).
        let total = flow_total(flows);
        if total > MAX_FLOWS {
            return Err(ScenarioError {
                file: self.file.to_string(),
                line: None,
                path: "flows".into(),
                msg: format!("expected at most {MAX_FLOWS} flows, got {total} (counts included)"),
            });
        }
        let mut out = toml_edit::ArrayOfTables::new();
        let mut x = Expansion {
            flows: Vec::with_capacity(total),
            tables: Vec::new(),
            stamps: Vec::new(),
        };
        for (i, t) in flows.iter().enumerate() {
            let Some(c) = t.get("count") else {
                out.push(t.clone());
                x.flows.push((i, 0, 1));
                x.tables.push((i, 0, 1));
                x.stamps.push(None);
                continue;
            };
            let n = count_of(c).map_err(|msg| self.flow_error(i, ("count", msg)))?;
            if !has_lists(t, n).map_err(|e| self.flow_error(i, e))? {
                // Every flow of the group is this table but for its name: one table, stamped
                // N times by the loader, which names the instances.
                out.push(stamped(t));
                x.flows.extend((0..n).map(|j| (i, j, n)));
                x.tables.push((i, 0, n));
                x.stamps.push(Some(n));
                continue;
            }
            for j in 0..n {
                out.push(instance(t, j));
                x.flows.push((i, j, n));
                x.tables.push((i, j, n));
                x.stamps.push(None);
            }
        }
        doc.insert("flows", toml_edit::Item::ArrayOfTables(out));
        Ok(Some(x))
    }
}

/// The number of flows the `[[flows]]` tables stand for, each `count` counted (one that is not
/// a number from 1 to [`MAX_FLOWS`] as 1: [`count_of`] refuses it).
fn flow_total(flows: &toml_edit::ArrayOfTables) -> usize {
    flows
        .iter()
        .map(|t| {
            t.get("count")
                .and_then(|c| c.as_integer())
                .filter(|n| (1..=MAX_FLOWS as i64).contains(n))
                .map_or(1, |n| n as usize)
        })
        .sum()
}

/// A flow table's `count`: a number from 1 to [`MAX_FLOWS`], else the error's message.
fn count_of(c: &toml_edit::Item) -> Result<usize, String> {
    match c.as_integer() {
        Some(n) if (1..=MAX_FLOWS as i64).contains(&n) => Ok(n as usize),
        _ => Err(format!(
            "expected a number of flows from 1 to {MAX_FLOWS}, got {}",
            c.to_string().trim()
        )),
    }
}

/// Whether counted table `t` (`count = n`) gives a key one value per flow ([`per_flow`]); a
/// list of another length is an error: `(key, message)`.
fn has_lists(t: &toml_edit::Table, n: usize) -> Result<bool, (&str, String)> {
    let mut lists = false;
    for (key, item) in t.iter() {
        if let Some(a) = per_flow(key, item) {
            lists = true;
            if a.len() != n {
                return Err((
                    key,
                    format!(
                        "expected one value, or a list of {n} (one per flow of count = {n}), got {} values",
                        a.len()
                    ),
                ));
            }
        }
    }
    Ok(lists)
}

/// Counted table `t` without its `count`: the one table the loader stamps N times.
fn stamped(t: &toml_edit::Table) -> toml_edit::Table {
    let mut one = toml_edit::Table::new();
    for (key, item) in t.iter() {
        if key != "count" {
            one.insert(key, item.clone());
        }
    }
    one
}

/// Instance `j` (from 0) of counted table `t` with per-flow lists: each list's `j`-th value,
/// the other keys as written, and a `name` as `NAME-(j+1)`.
fn instance(t: &toml_edit::Table, j: usize) -> toml_edit::Table {
    let mut one = toml_edit::Table::new();
    for (key, item) in t.iter() {
        if key == "count" {
            continue;
        }
        let v = match per_flow(key, item) {
            Some(a) => {
                // An element of a multi-line array carries its line break and indent as decor;
                // written as a key's value it would put the value on the next line, which is
                // not TOML.
                let mut v = a.get(j).expect("checked length").clone();
                v.decor_mut().clear();
                toml_edit::Item::Value(v)
            }
            None => item.clone(),
        };
        one.insert(key, v);
    }
    if let Some(name) = t.get("name").and_then(|v| v.as_str()) {
        one.insert("name", toml_edit::value(format!("{name}-{}", j + 1)));
    }
    one
}

/// Every key, table header and array element of TOML `text` with the line (1-based) it starts
/// on; empty when `text` is not TOML.
fn key_lines(text: &str) -> Vec<(Vec<Seg>, usize)> {
    let Ok(doc) = toml_edit::ImDocument::parse(text) else {
        return Vec::new();
    };
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line = |span: Option<std::ops::Range<usize>>| {
        span.map(|s| starts.partition_point(|&st| st <= s.start))
    };
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk_table(doc.as_table(), &mut path, &line, &mut out);
    out
}

type LineOf<'a> = dyn Fn(Option<std::ops::Range<usize>>) -> Option<usize> + 'a;

fn walk_table(
    t: &dyn toml_edit::TableLike,
    path: &mut Vec<Seg>,
    line: &LineOf<'_>,
    out: &mut Vec<(Vec<Seg>, usize)>,
) {
    for (k, item) in t.iter() {
        path.push(Seg::Key(k.to_string()));
        if let Some(l) = line(t.key(k).and_then(|k| k.span())) {
            out.push((path.clone(), l));
        }
        walk_item(item, path, line, out);
        path.pop();
    }
}

fn walk_item(
    item: &toml_edit::Item,
    path: &mut Vec<Seg>,
    line: &LineOf<'_>,
    out: &mut Vec<(Vec<Seg>, usize)>,
) {
    match item {
        toml_edit::Item::Table(t) => {
            if let Some(l) = line(t.span()) {
                out.push((path.clone(), l));
            }
            walk_table(t, path, line, out);
        }
        toml_edit::Item::ArrayOfTables(a) => {
            for (i, t) in a.iter().enumerate() {
                path.push(Seg::Index(i));
                if let Some(l) = line(t.span()) {
                    out.push((path.clone(), l));
                }
                walk_table(t, path, line, out);
                path.pop();
            }
        }
        toml_edit::Item::Value(v) => walk_value(v, path, line, out),
        toml_edit::Item::None => {}
    }
}

fn walk_value(
    v: &toml_edit::Value,
    path: &mut Vec<Seg>,
    line: &LineOf<'_>,
    out: &mut Vec<(Vec<Seg>, usize)>,
) {
    if let Some(l) = line(v.span()) {
        out.push((path.clone(), l));
    }
    match v {
        toml_edit::Value::Array(a) => {
            for (i, e) in a.iter().enumerate() {
                path.push(Seg::Index(i));
                walk_value(e, path, line, out);
                path.pop();
            }
        }
        toml_edit::Value::InlineTable(t) => walk_table(t, path, line, out),
        _ => {}
    }
}

/// Applies `--set path.to.key=value` overrides to scenario `text`, keeping the rest of the
/// file (and so its line numbers) as written (`edit` without the flows' expansion).
pub fn apply_sets(
    text: &str,
    file: &str,
    sets: &[(String, String)],
) -> Result<String, ScenarioError> {
    Ok(edit(text, file, &[], sets, &[], false)?.text.into_owned())
}

/// Removes the keys `keys` (dotted paths as [`apply_sets`] takes them: `flows[0].stop`,
/// `dumbbell.bottleneck.params.target`, or a whole table) from scenario `text`, as `aqmlab
/// run --unset KEY` does, keeping the rest as written (`edit` without the expansion).
pub fn apply_unsets(text: &str, file: &str, keys: &[String]) -> Result<String, ScenarioError> {
    Ok(edit(text, file, keys, &[], &[], false)?.text.into_owned())
}

/// Refuses scenario `text` (of `file`) with more than [`MAX_FLOWS`] `[[flows]]` tables before
/// it is read ([`resolve_with_edits`]), which takes about 4 kB per flow table (a 16 MiB file of
/// 280 000 short flow tables took 1.2 GB to be refused after reading).
pub(crate) fn refuse_flow_tables(text: &str, file: &str) -> Result<(), ScenarioError> {
    let tables = text.lines().filter(|l| is_flows_header(l)).count();
    if tables > MAX_FLOWS {
        return Err(ScenarioError {
            file: file.to_string(),
            line: None,
            path: "flows".into(),
            msg: format!("expected at most {MAX_FLOWS} flows, got {tables}"),
        });
    }
    Ok(())
}

/// `ov` with the keys of the `--set` edits `sets` that give a discipline's parameters (or its
/// whole `params` table) added to its `set_params`, which a `--qdisc` swap keeps
/// ([`super::disc_params::disc_of`]); only the keys are looked at.
pub(crate) fn with_set_params<'a>(
    ov: &'a Overrides,
    sets: &[(String, String)],
) -> Cow<'a, Overrides> {
    let mut ov = Cow::Borrowed(ov);
    if !sets.is_empty() {
        ov.to_mut().set_params.extend(
            sets.iter()
                .map(|(k, _)| k.clone())
                .filter(|k| k.ends_with(".params") || k.contains(".params.")),
        );
    }
    ov
}

/// `line` is a `[[flows]]` table header (spaces allowed inside the brackets, a comment after).
fn is_flows_header(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("[[") else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix("flows") else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix("]]") else {
        return false;
    };
    let rest = rest.trim_start();
    rest.is_empty() || rest.starts_with('#')
}

/// `e` rewritten to name the `--set KEY=VALUE` that wrote its key, when one did: the error's
/// key is the set key or lies under it (`flows[0]` set as a whole), or the set key lies under
/// the error's key and the message is about the set key's last part as its subject (an
/// unknown field `` `x` ``, a discipline's `parameter x = ` or `parameter "x"`), not merely
/// listing it among the expected ones. The flag says whether one did.
fn attribute_to_set(
    e: ScenarioError,
    sets: &[(String, String)],
    varied: &[(String, String)],
) -> (ScenarioError, bool) {
    let under = |inner: &str, outer: &str| {
        inner == outer
            || inner
                .strip_prefix(outer)
                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
    };
    // The last set of a key wins, as in edit.
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
            let e = ScenarioError {
                file: e.file,
                line: None,
                path: format!("{} {key}={value}", set_flag(key, varied)),
                msg: if e.path == *key {
                    msg
                } else {
                    format!("{}: {}", e.path, msg)
                },
            };
            (e, true)
        }
        None => (e, false),
    }
}

/// The option that gave the edit of `key`: the one `varied` names for it (a sweep's `--vary`),
/// else `--set`.
fn set_flag<'a>(key: &str, varied: &'a [(String, String)]) -> &'a str {
    varied
        .iter()
        .find(|(k, _)| k == key)
        .map_or("--set", |(_, flag)| flag.as_str())
}

/// Removes the key or array element at `path` under `table`.
fn unset_in(
    table: &mut dyn toml_edit::TableLike,
    path: &[Seg],
    missing: &dyn Fn() -> ScenarioError,
) -> Result<(), ScenarioError> {
    match path {
        [Seg::Key(k)] => {
            table.remove(k).ok_or_else(missing)?;
            Ok(())
        }
        [Seg::Key(k), Seg::Index(i)] => match table.get_mut(k) {
            Some(toml_edit::Item::ArrayOfTables(a)) if *i < a.len() => {
                a.remove(*i);
                Ok(())
            }
            Some(toml_edit::Item::Value(toml_edit::Value::Array(a))) if *i < a.len() => {
                a.remove(*i);
                Ok(())
            }
            _ => Err(missing()),
        },
        [Seg::Key(k), Seg::Index(i), rest @ ..] => match table.get_mut(k) {
            Some(toml_edit::Item::ArrayOfTables(a)) => {
                unset_in(a.get_mut(*i).ok_or_else(missing)?, rest, missing)
            }
            _ => Err(missing()),
        },
        [Seg::Key(k), rest @ ..] => {
            let t = table
                .get_mut(k)
                .and_then(|it| it.as_table_like_mut())
                .ok_or_else(missing)?;
            unset_in(t, rest, missing)
        }
        _ => Err(missing()),
    }
}

/// A counted flow's key given as one value per flow: a list, except for a key whose value is
/// itself a list (a video's `ladder`), which is per flow only as a list of lists.
fn per_flow<'a>(key: &str, item: &'a toml_edit::Item) -> Option<&'a toml_edit::Array> {
    let a = item.as_array()?;
    match key {
        "ladder" => a
            .iter()
            .all(|v| v.is_array())
            .then_some(a)
            .filter(|a| !a.is_empty()),
        _ => Some(a),
    }
}

#[cfg(test)]
mod tests;
