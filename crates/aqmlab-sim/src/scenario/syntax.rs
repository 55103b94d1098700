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
mod tests {
    use super::*;

    fn said(text: &str) -> String {
        check_toml("s.toml", text).unwrap_err().to_string()
    }

    #[test]
    fn a_syntax_error_names_line_column_what_was_expected_and_found() {
        assert_eq!(
            said("name = \"x\"\nseeds = [1, 2\n"),
            "s.toml:3: not valid TOML at column 1: invalid array, expected `]` (found the end of the file)"
        );
        assert_eq!(
            said("name = \"x\"\nduration = \"3s\n"),
            "s.toml:2: not valid TOML at column 15: invalid basic string (found the end of the line)"
        );
        assert_eq!(
            said("a = 1\n[vary\n"),
            "s.toml:2: not valid TOML at column 6: invalid table header, expected `.`, `]` (found the end of the line)"
        );
        assert_eq!(
            said("é = 1\nb = [1 2]\n"),
            "s.toml:1: not valid TOML at column 1: invalid key (found `é`)"
        );
        assert_eq!(
            said("name = \"x\"\nname = \"y\"\n"),
            "s.toml:2: not valid TOML at column 1: duplicate key `name` in document root"
        );
    }

    #[test]
    fn valid_toml_passes_and_a_large_integer_names_its_key() {
        assert!(check_toml("s.toml", "a = [1, 2]\n[t]\nb = \"c\"\n").is_ok());
        let e = said("a = 1\nseed = 99999999999999999999\n");
        assert!(
            e.starts_with("s.toml:2: seed: expected a whole number from"),
            "{e}"
        );
    }

    #[test]
    fn syntax_error_says_the_column_and_what_was_found() {
        let at = |text: &str, msg: &str, span: Option<Range<usize>>| {
            syntax_error("s.toml", text, msg, span).to_string()
        };
        // No message: said by what is found.
        assert_eq!(
            at("a = 1\rb", "", Some(5..6)),
            "s.toml:1: not valid TOML at column 6: a carriage return (\\r) not followed by a \
             newline: expected \\n or \\r\\n line endings"
        );
        // Each kind of thing found, where the parser said what it expected.
        let found = |text: &str, at_: usize| at(text, "invalid x\nexpected y", Some(at_..at_));
        assert_eq!(
            found("a =\tb", 3),
            "s.toml:1: not valid TOML at column 4: invalid x, expected y (found a tab)"
        );
        assert_eq!(
            found("a = b", 3),
            "s.toml:1: not valid TOML at column 4: invalid x, expected y (found a space)"
        );
        assert_eq!(
            found("a\r", 1),
            "s.toml:1: not valid TOML at column 2: invalid x, expected y (found a carriage return (\\r))"
        );
        // Not after a message that names what it found; no span: no column, no line.
        assert_eq!(
            at("a = 1", "duplicate key `a`", Some(0..1)),
            "s.toml:1: not valid TOML at column 1: duplicate key `a`"
        );
        assert_eq!(
            at("a = 1", "invalid x", None),
            "s.toml: not valid TOML: invalid x"
        );
        // A span past the end is the end of the file.
        assert_eq!(
            at("a =", "invalid x", Some(9..9)),
            "s.toml:1: not valid TOML at column 4: invalid x (found the end of the file)"
        );
    }

    #[test]
    fn a_column_counts_characters_from_the_lines_start() {
        assert_eq!(column("abc", 0), 1);
        assert_eq!(column("abc", 2), 3);
        assert_eq!(column("x\néé = 1", 6), 3);
        assert_eq!(column("x\n", 2), 1);
    }
}
