//! JSON text as Python's `json.dumps(value, indent=2)` writes it, from any `Serialize` value:
//! `summary.json` is this text, made in Rust without building the summary as Python objects
//! first (issue 24). Python's form differs from serde_json's pretty one in two ways, both here:
//! a float is written as `repr(float)` writes it (e.g. `1e-05`, `1e+16`, where serde_json
//! writes `1e-5`, `1e16`), and every character outside ASCII's printable range (non-ASCII, and
//! DEL) is escaped as `\uXXXX` (UTF-16, lowercase hex), as `ensure_ascii=True` does.

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter, Serializer};
use std::io::{self, Write};

/// `v` as `json.dumps(v, indent=2)` would write it (no final newline). serde_json turns a
/// non-finite float into `null` where Python would write `NaN`: a summary has none (its
/// `serde_json::Value`s hold `null` there already).
pub fn to_pretty<T: Serialize + ?Sized>(v: &T) -> String {
    let mut out = Vec::new();
    write_pretty(v, &mut out).expect("writing to memory does not fail");
    String::from_utf8(out).expect("the text is ASCII")
}

/// Writes [`to_pretty`]'s text of `v` to `w`.
pub fn write_pretty<T: Serialize + ?Sized, W: Write>(v: &T, w: W) -> io::Result<()> {
    let mut ser = Serializer::with_formatter(w, PyFormatter(PrettyFormatter::with_indent(b"  ")));
    v.serialize(&mut ser).map_err(io::Error::other)
}

/// The length in bytes of [`to_pretty`]'s text of `v`, found without holding the text (to
/// size the buffer it is then written into).
pub fn pretty_len<T: Serialize + ?Sized>(v: &T) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    write_pretty(v, &mut c).expect("counting does not fail");
    c.0
}

/// `x` as Python's `repr(float)` writes it: the shortest digits that read back as `x`, in
/// positional form for 1e-4 <= |x| < 1e16 (with `.0` when it has no fraction) and as
/// `d.ddde±XX` otherwise (CPython's `format_float_short`, mode `'r'`).
pub fn py_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    // Rust's `{:e}` writes the shortest round-trip digits too: `d[.ddd]e[-]X`.
    let sci = format!("{:e}", x.abs());
    let (mant, exp) = sci.split_once('e').expect("`{:e}` writes an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` writes an integer exponent");
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let n = digits.len() as i32;
    // decpt: the value is 0.DIGITS × 10^decpt.
    let decpt = exp + 1;
    if x == 0.0 {
        return format!("{sign}0.0");
    }
    if !(-4 < decpt && decpt <= 16) {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{frac}e{esign}{:02}", exp.abs())
    } else if decpt <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt < n {
        let (int, frac) = digits.split_at(decpt as usize);
        format!("{sign}{int}.{frac}")
    } else {
        format!("{sign}{digits}{}.0", "0".repeat((decpt - n) as usize))
    }
}

/// serde_json's pretty layout (two-space indent, `", "`-free separators as Python's with an
/// indent), with Python's floats and ASCII-only strings.
struct PyFormatter<'a>(PrettyFormatter<'a>);

impl Formatter for PyFormatter<'_> {
    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, x: f64) -> io::Result<()> {
        w.write_all(py_float_repr(x).as_bytes())
    }
    fn write_f32<W: ?Sized + Write>(&mut self, w: &mut W, x: f32) -> io::Result<()> {
        self.write_f64(w, x as f64)
    }
    fn write_string_fragment<W: ?Sized + Write>(&mut self, w: &mut W, s: &str) -> io::Result<()> {
        // serde_json has escaped `"`, `\` and the control characters below U+0020 already.
        let mut start = 0;
        for (i, c) in s.char_indices() {
            if (' '..='~').contains(&c) {
                continue;
            }
            w.write_all(&s.as_bytes()[start..i])?;
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                write!(w, "\\u{:04x}", u)?;
            }
            start = i + c.len_utf8();
        }
        w.write_all(&s.as_bytes()[start..])
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The right-hand sides are what CPython 3.11's `repr` writes.
    #[test]
    fn floats_as_python_writes_them() {
        for (x, py) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123456.789, "123456.789"),
            (1e15, "1000000000000000.0"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e16, "1e+16"),
            (1.2345678901234567e17, "1.2345678901234566e+17"),
            (-2.5e-300, "-2.5e-300"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (0.30000000000000004, "0.30000000000000004"),
            (405471.73333333334, "405471.73333333334"),
            (100.0, "100.0"),
        ] {
            assert_eq!(py_float_repr(x), py, "{x:e}");
        }
    }

    /// `json.dumps({"a": [1, 2.5e-06, "é\x7f😀\n"], "b": {}, "c": []}, indent=2)`.
    #[test]
    fn layout_and_strings_as_python_writes_them() {
        let v = json!({"a": [1, 2.5e-06, "é\u{7f}😀\n"], "b": {}, "c": []});
        assert_eq!(pretty_len(&v), to_pretty(&v).len());
        assert_eq!(
            to_pretty(&v),
            "{\n  \"a\": [\n    1,\n    2.5e-06,\n    \"\\u00e9\\u007f\\ud83d\\ude00\\n\"\n  ],\n  \"b\": {},\n  \"c\": []\n}"
        );
    }
}
