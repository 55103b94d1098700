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
