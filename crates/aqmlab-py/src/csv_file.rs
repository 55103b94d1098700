//! A run's series written as CSV here, in the native module: formatting every value in Python
//! (the `csv` module over lists of floats) was most of what `aqmlab run --csv` spent beyond its
//! simulation (issue 24 item 2: the whole process against its simulation, 1.76× where Parquet
//! was 1.48×).
//!
//! The file is byte for byte what `python/aqmlab/series.py`'s pure-Python writer (and pandas'
//! `to_csv`) writes for the same table: a header row, `\n` line ends, minimal quoting (a field
//! with a comma, a double quote, `\r` or `\n` is quoted, its quotes doubled), an integer in
//! decimal, a float as Python's `repr` (the shortest text that reads back as the same double,
//! laid out as Python lays it out: `0.0001`, `1e-05`, `1e+16`, `2.0`), a NaN or a missing
//! value empty. Columns arrive chunk by chunk in the forms `columns.rs` hands to Python (a
//! `bytes` of native-endian 64-bit values, a string column as `(validity, offsets, data)`) or
//! as lists of Python values (the emulator's series; None is a missing value).

use crate::parquet_file::os_error;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};

/// One column's type, as `series.py`'s `COLUMNS` names it.
#[derive(Clone, Copy)]
enum Kind {
    I64,
    F64,
    Str,
}

/// A CSV file written chunk by chunk (`python/aqmlab/series.py`'s `SeriesSink`).
// Sendable (its fields are a file writer and buffers): a sweep's Dask worker makes it in a task's
// thread and may drop it in its event loop's; an `unsendable` class printed a RuntimeError there.
#[pyclass]
pub struct CsvFile {
    file: Option<BufWriter<File>>,
    columns: Vec<(String, Kind)>,
}

/// `x` as Python's `repr(float)` writes it (CPython's `float_repr_style = 'short'`, format
/// code `'r'`): the shortest digits that read back as `x` (Rust's `{:e}` gives the same
/// digits: both take the shortest round-trip string, the nearest one on a tie), in exponent
/// form when the decimal point would sit more than 16 places right of the first digit or 4 or
/// more places left of it, else positional with at least one digit after the point.
pub fn py_float_repr(x: f64, out: &mut String) {
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    // `{:e}` written at the end of `out`, copied to the stack, then replaced by the layout
    // below (no allocation per value).
    let at = out.len();
    write!(out, "{x:e}").expect("writing to a String");
    let mut buf = [0u8; 40];
    let len = out.len() - at;
    buf[..len].copy_from_slice(&out.as_bytes()[at..]);
    out.truncate(at);
    let sci = std::str::from_utf8(&buf[..len]).expect("{:e} is ASCII");
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e}'s exponent is an integer");
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let mut dbuf = [0u8; 40];
    let mut nd = 0;
    for &c in mantissa.as_bytes().iter().filter(|&&c| c != b'.') {
        dbuf[nd] = c;
        nd += 1;
    }
    // A tie: `x` lies exactly halfway between two shortest candidates (its exact decimal
    // expansion is these digits and a final 5). Rust's `{:e}` rounds the tie up; Python's
    // dtoa (mode 0) takes the even last digit: 1735861081508451.25 is `...451.2` in Python.
    if let Some(down) = halfway_down(x.abs(), nd) {
        dbuf[..nd].copy_from_slice(&down[..nd]);
    }
    let digits = std::str::from_utf8(&dbuf[..nd]).expect("ASCII digits");
    if negative {
        out.push('-');
    }
    // The decimal point's place: x = 0.DIGITS × 10^decpt.
    let decpt = exp + 1;
    if !(-4 < decpt && decpt <= 16) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        write!(
            out,
            "e{}{:02}",
            if e < 0 { '-' } else { '+' },
            e.unsigned_abs()
        )
        .expect("writing to a String");
    } else if decpt <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', decpt.unsigned_abs() as usize));
        out.push_str(digits);
    } else {
        let d = decpt as usize;
        if d >= digits.len() {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', d - digits.len()));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..d]);
            out.push('.');
            out.push_str(&digits[d..]);
        }
    }
}

/// When `x`'s exact decimal expansion is `nd` digits and a final 5 (a tie between two
/// `nd`-digit candidates) and the lower candidate ends in an even digit: its digits.
///
/// `x = m · 2^k` with `m` odd. For `k < 0` the expansion's digits are those of `m · 5^-k`
/// (ending in 5), computed exactly in a `u128` when `-k ≤ 27` (beyond that they are more
/// than 19 digits, never a tie of at most 17). For `k ≥ 0` and `x < 2^53`, `x` is an integer
/// printed whole (no tie); larger values take Rust's correctly rounded `{:.N e}`, which with 30
/// more digits than needed shows the expansion itself.
fn halfway_down(x: f64, nd: usize) -> Option<[u8; 40]> {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mut m, mut k) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, exp - 1075)
    };
    if m == 0 {
        return None;
    }
    let tz = m.trailing_zeros();
    m >>= tz;
    k += tz as i32;
    let mut out = [0u8; 40];
    if k < 0 {
        if -k > 27 {
            return None;
        }
        let p = u128::from(m) * 5u128.pow(k.unsigned_abs());
        let mut lower = p / 10;
        let count = if lower == 0 {
            0
        } else {
            lower.ilog10() as usize + 1
        };
        if count != nd || lower % 2 != 0 {
            return None;
        }
        for i in (0..nd).rev() {
            out[i] = b'0' + (lower % 10) as u8;
            lower /= 10;
        }
        return Some(out);
    }
    if x < 9_007_199_254_740_992.0 {
        return None;
    }
    let text = format!("{:.*e}", nd + 30, x);
    let mantissa = text.split('e').next()?;
    let mut digits = mantissa.bytes().filter(|&c| c != b'.');
    for slot in out.iter_mut().take(nd) {
        *slot = digits.next()?;
    }
    let rest: Vec<u8> = digits.collect();
    if rest.first() != Some(&b'5') || rest[1..].iter().any(|&c| c != b'0') {
        return None;
    }
    (out[nd - 1] - b'0').is_multiple_of(2).then_some(out)
}

/// A text field as Python's `csv` module writes it under `QUOTE_MINIMAL` with a comma, a
/// double quote and `\n` as the dialect's characters.
fn push_text(s: &str, out: &mut String) {
    if s.contains([',', '"', '\r', '\n']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// One column of a chunk, decoded: each row's value, `None` (or a NaN) written empty.
enum Column {
    I64(Vec<Option<i64>>),
    F64(Vec<f64>),
    /// UTF-8 text and each row's end offset (a row spans `ends[i]..ends[i + 1]`).
    Str(String, Vec<usize>),
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Str(_, ends) => ends.len().saturating_sub(1),
        }
    }

    /// Row `i`'s field appended to `out`.
    fn push(&self, i: usize, out: &mut String) {
        match self {
            Column::I64(v) => {
                if let Some(x) = v[i] {
                    write!(out, "{x}").expect("writing to a String");
                }
            }
            Column::F64(v) => {
                if !v[i].is_nan() {
                    py_float_repr(v[i], out);
                }
            }
            Column::Str(data, ends) => push_text(&data[ends[i]..ends[i + 1]], out),
        }
    }
}

/// One column of a chunk, read in any of the forms the module docs name.
fn read_column(name: &str, kind: Kind, values: &Bound<'_, PyAny>) -> PyResult<Column> {
    if let Ok(b) = values.downcast::<PyBytes>() {
        let words = b.as_bytes().chunks_exact(8).map(|w| {
            let w: [u8; 8] = w.try_into().expect("chunks of 8");
            w
        });
        return match kind {
            Kind::I64 => Ok(Column::I64(
                words.map(|w| Some(i64::from_ne_bytes(w))).collect(),
            )),
            Kind::F64 => Ok(Column::F64(words.map(f64::from_ne_bytes).collect())),
            Kind::Str => Err(PyValueError::new_err(format!(
                "column {name:?}: a string column cannot be packed numbers"
            ))),
        };
    }
    if let (Kind::Str, Ok(t)) = (kind, values.downcast::<PyTuple>()) {
        // Arrow's layout: validity bitmap (or None), 32-bit offsets, UTF-8 data; a null spans
        // no bytes and is written empty.
        let (_valid, offsets, data): (Option<Vec<u8>>, Vec<u8>, Vec<u8>) = t.extract()?;
        let ends: Vec<usize> = offsets
            .chunks_exact(4)
            .map(|w| i32::from_ne_bytes(w.try_into().expect("chunks of 4")) as usize)
            .collect();
        if ends.windows(2).any(|p| p[0] > p[1]) || ends.last().is_some_and(|&e| e > data.len()) {
            return Err(PyValueError::new_err(format!(
                "column {name:?}: offsets out of order or past the data"
            )));
        }
        let data = String::from_utf8(data)
            .map_err(|e| PyValueError::new_err(format!("column {name:?}: not UTF-8: {e}")))?;
        if let Some(&e) = ends.iter().find(|&&e| !data.is_char_boundary(e)) {
            return Err(PyValueError::new_err(format!(
                "column {name:?}: offset {e} splits a character"
            )));
        }
        return Ok(Column::Str(data, ends));
    }
    match kind {
        Kind::I64 => {
            let mut v = Vec::new();
            for x in values.try_iter()? {
                v.push(x?.extract::<Option<i64>>()?);
            }
            Ok(Column::I64(v))
        }
        Kind::F64 => {
            let mut v = Vec::new();
            for x in values.try_iter()? {
                v.push(x?.extract::<Option<f64>>()?.unwrap_or(f64::NAN));
            }
            Ok(Column::F64(v))
        }
        Kind::Str => {
            let (mut data, mut ends) = (String::new(), vec![0]);
            for x in values.try_iter()? {
                if let Some(s) = x?.extract::<Option<String>>()? {
                    data.push_str(&s);
                }
                ends.push(data.len());
            }
            Ok(Column::Str(data, ends))
        }
    }
}

#[pymethods]
impl CsvFile {
    /// Creates `path` for a table of `columns` (pairs of name and type: `int64`, `float64` or
    /// `string`) and writes the header row.
    #[new]
    fn new(path: &str, columns: Vec<(String, String)>) -> PyResult<Self> {
        let mut cols = Vec::with_capacity(columns.len());
        for (name, kind) in columns {
            let k = match kind.as_str() {
                "int64" => Kind::I64,
                "float64" => Kind::F64,
                "string" => Kind::Str,
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "column {name:?}: type {kind:?} is not int64, float64 or string"
                    )))
                }
            };
            cols.push((name, k));
        }
        let mut file = BufWriter::new(File::create(path).map_err(os_error)?);
        let mut header = String::new();
        for (i, (name, _)) in cols.iter().enumerate() {
            if i > 0 {
                header.push(',');
            }
            push_text(name, &mut header);
        }
        header.push('\n');
        file.write_all(header.as_bytes()).map_err(os_error)?;
        Ok(CsvFile {
            file: Some(file),
            columns: cols,
        })
    }

    /// Appends one chunk: a dict holding every column of the table. A chunk that cannot be
    /// read (a missing column, a bad value, columns of different lengths) is refused whole:
    /// nothing of it is written.
    fn write_columns(&mut self, chunk: &Bound<'_, PyDict>) -> PyResult<()> {
        let mut cols = Vec::with_capacity(self.columns.len());
        for (name, kind) in &self.columns {
            let values = chunk.get_item(name)?.ok_or_else(|| {
                PyValueError::new_err(format!("the chunk has no column {name:?}"))
            })?;
            cols.push(read_column(name, *kind, &values)?);
        }
        let n = cols.first().map_or(0, Column::len);
        if let Some(((name, _), c)) = self.columns.iter().zip(&cols).find(|(_, c)| c.len() != n) {
            return Err(PyValueError::new_err(format!(
                "column {name:?} has {} rows where the first column has {n}",
                c.len()
            )));
        }
        let file = self
            .file
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("this CSV file is closed"))?;
        let mut text = String::with_capacity(64 * 1024);
        for row in 0..n {
            for (i, c) in cols.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                c.push(row, &mut text);
            }
            text.push('\n');
            if text.len() >= 60 * 1024 {
                file.write_all(text.as_bytes()).map_err(os_error)?;
                text.clear();
            }
        }
        file.write_all(text.as_bytes()).map_err(os_error)?;
        Ok(())
    }

    /// Writes what is buffered and closes the file.
    fn close(&mut self) -> PyResult<()> {
        if let Some(mut f) = self.file.take() {
            f.flush().map_err(os_error)?;
        }
        Ok(())
    }
}

/// `repr(x)` for a float, as this module writes it (for the tests' comparison with Python's).
#[pyfunction]
pub fn float_repr(x: f64) -> String {
    let mut s = String::new();
    py_float_repr(x, &mut s);
    s
}
