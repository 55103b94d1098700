//! A TOML syntax error said as one line: `FILE:LINE: not valid TOML at column C: what the
//! parser expected (found what)`. The scenario reader, the `--set`/`--unset` editor and a
//! sweep file's reader (Python's, through `aqmlab._core.check_toml`) all report it so.

use super::{toml_message, ScenarioError};
use std::ops::Range;

/// `text` (the file `file`) read as TOML (TOML 1.0, as the scenario reader reads it):
/// its syntax error, if any, as `syntax_error` says it.
pub fn check_toml(file: &str, text: &str) -> Result<(), ScenarioError> {
    text.parse::<toml::Table>()
        .map(|_| ())
        .map_err(|e| syntax_error(file, text, e.message(), e.span()))
}

/// The parser's `message` about `span` of `text` as one line naming the line and column: the
/// parser's context and what it expected (its message's lines, "invalid array" and "expected
/// `]`", joined) and what it found there (a newline, the end of the file, a character). An
/// integer beyond TOML's range is said with its key ([`toml_message`]).
pub fn syntax_error(
    file: &str,
    text: &str,
    message: &str,
    span: Option<Range<usize>>,
) -> ScenarioError {
    let start = span.as_ref().map(|s| s.start.min(text.len()));
    let line = start.map(|s| text[..s].matches('\n').count() + 1);
    if message.contains("number too large to fit in target type") {
        // Valid syntax, a value TOML cannot hold: said with its key.
        return ScenarioError {
            file: file.to_string(),
            line,
            path: String::new(),
            msg: toml_message(message, text, span),
        };
    }
    let said: Vec<&str> = message
        .trim()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let found = start.map(|s| match text[s..].chars().next() {
        None => "the end of the file".to_string(),
        Some('\n') => "the end of the line".to_string(),
        Some('\r') => "a carriage return (\\r)".to_string(),
        Some('\t') => "a tab".to_string(),
        Some(c) if c.is_whitespace() => "a space".to_string(),
        Some(c) => format!("`{c}`"),
    });
    let mut msg = match start {
        Some(s) => format!("not valid TOML at column {}: ", column(text, s)),
        None => "not valid TOML: ".to_string(),
    };
    if said.is_empty() {
        // No message (a carriage return not followed by a newline): said by what is found.
        msg.push_str(&toml_message(message, text, span));
    } else {
        msg.push_str(&said.join(", "));
        // What was found, where the parser said what it expected or found it invalid (not
        // after "duplicate key `x`", say, which names what it found).
        let expecting = said.len() > 1 || said[0].starts_with("invalid");
        if let Some(f) = found.filter(|_| expecting) {
            msg.push_str(&format!(" (found {f})"));
        }
    }
    ScenarioError {
        file: file.to_string(),
        line,
        path: String::new(),
        msg,
    }
}

/// The 1-based column (in characters) of byte `at` of `text`.
fn column(text: &str, at: usize) -> usize {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at].chars().count() + 1
}

#[cfg(test)]
mod tests;
