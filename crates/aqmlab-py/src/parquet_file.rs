//! A run's series written as Parquet here, in the native module, rather than through pyarrow:
//! `aqmlab run` then writes its files without importing pyarrow and numpy, which took longer
//! than a short run's whole simulation (issue 24; `python3 -X importtime`).
//!
//! The file is what pyarrow wrote for the same table: every column optional (an Arrow field is
//! nullable), `int64` as INT64, `float64` as DOUBLE (a NaN stays a NaN, not a null), `string` as
//! UTF-8 BYTE_ARRAY, Snappy compression, and rows gathered into groups of exactly
//! `rows_per_group` (the last one shorter), so a file's layout, and its bytes, do not depend on
//! how the run was stepped. Columns arrive chunk by chunk in the forms `columns.rs` hands to
//! Python: a `bytes` of native-endian 64-bit values, a string column as `(validity, offsets,
//! data)`, or a list of Python values (the emulator's series).
//!
//! A sweep's results table (`python/aqmlab/sweeptable.py`) adds `bool` columns, `null` columns
//! (Arrow's null type, which pyarrow writes as INT32 of unknown logical type), nulls in any
//! column (None in a list: pandas' NaN, which pyarrow writes as a null) and the file's key-value
//! metadata (pandas' and the Arrow schema).

use bytes::Bytes;
use parquet::basic::{Compression, LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use std::fs::File;
use std::io::BufWriter;
use std::sync::Arc;

/// One column's present values not yet written (a null has none).
enum Values {
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<ByteArray>),
    /// Arrow's `null` type: every value is a null (pyarrow writes INT32 of unknown logical
    /// type).
    Null,
}

/// One column's rows not yet written: the present values, and each row's definition level
/// (1 present, 0 null).
struct Rows {
    values: Values,
    levels: Vec<i16>,
}

impl Rows {
    fn len(&self) -> usize {
        self.levels.len()
    }

    fn truncate(&mut self, n: usize) {
        let present = self.levels[..n.min(self.levels.len())]
            .iter()
            .filter(|&&l| l == 1)
            .count();
        match &mut self.values {
            Values::I64(v) => v.truncate(present),
            Values::F64(v) => v.truncate(present),
            Values::Bool(v) => v.truncate(present),
            Values::Str(v) => v.truncate(present),
            Values::Null => {}
        }
        self.levels.truncate(n);
    }

    /// Gives back the room beyond `rows` rows (`rows` at least those buffered).
    fn shrink_to(&mut self, rows: usize) {
        match &mut self.values {
            Values::I64(v) => v.shrink_to(rows),
            Values::F64(v) => v.shrink_to(rows),
            Values::Bool(v) => v.shrink_to(rows),
            Values::Str(v) => v.shrink_to(rows),
            Values::Null => {}
        }
        self.levels.shrink_to(rows);
    }
}

/// A Parquet file written chunk by chunk (`python/aqmlab/series.py`'s `SeriesSink`).
// Sendable (its fields are a file writer and buffers): a sweep's Dask worker makes it in a task's
// thread and may drop it in its event loop's; an `unsendable` class printed a RuntimeError there.
#[pyclass]
pub struct ParquetFile {
    writer: Option<SerializedFileWriter<BufWriter<File>>>,
    names: Vec<String>,
    rows: Vec<Rows>,
    rows_per_group: usize,
}

/// A Parquet error as Python sees it: an I/O failure (a full disk) as the `OSError` with its
/// errno, which the caller re-raises naming the file; anything else as a `ValueError`.
fn py_err(e: ParquetError) -> PyErr {
    match e {
        ParquetError::External(inner) => match inner.downcast::<std::io::Error>() {
            Ok(io) => os_error(*io),
            Err(other) => PyValueError::new_err(format!("writing Parquet: {other}")),
        },
        other => PyValueError::new_err(format!("writing Parquet: {other}")),
    }
}

/// An I/O error as the `OSError` (or its subclass) Python raises for the same errno, so
/// `e.errno` and `e.strerror` are set as for a write made from Python (the CSV writer's too).
pub(crate) fn os_error(e: std::io::Error) -> PyErr {
    match e.raw_os_error() {
        Some(code) => {
            let text = e.to_string();
            let strerror = text.split(" (os error").next().unwrap_or(&text).to_owned();
            PyOSError::new_err((code, strerror))
        }
        None => PyErr::from(e),
    }
}

fn column_type(name: &str, kind: &str) -> PyResult<Type> {
    let (physical, logical) = match kind {
        "int64" => (PhysicalType::INT64, None),
        "float64" => (PhysicalType::DOUBLE, None),
        "bool" => (PhysicalType::BOOLEAN, None),
        "string" => (PhysicalType::BYTE_ARRAY, Some(LogicalType::String)),
        "null" => (PhysicalType::INT32, Some(LogicalType::Unknown)),
        _ => {
            return Err(PyValueError::new_err(format!(
                "column {name:?}: type {kind:?} is not int64, float64, bool, string or null"
            )))
        }
    };
    Type::primitive_type_builder(name, physical)
        .with_repetition(Repetition::OPTIONAL)
        .with_logical_type(logical)
        .build()
        .map_err(py_err)
}

/// A number (or bool) column of a chunk appended to `v` and its rows' levels to `levels`: a
/// `bytes` of native-endian 64-bit values as `columns.rs` packs them (`from` reads one; every
/// value present), or a list of Python values, None a null (a sweep's table).
fn append_values<T: for<'py> FromPyObject<'py>>(
    v: &mut Vec<T>,
    levels: &mut Vec<i16>,
    values: &Bound<'_, PyAny>,
    from: fn([u8; 8]) -> T,
) -> PyResult<()> {
    if let Ok(b) = values.downcast::<PyBytes>() {
        let words = b.as_bytes().chunks_exact(8);
        let before = v.len();
        v.extend(words.map(|w| from(w.try_into().expect("chunks of 8"))));
        levels.resize(levels.len() + (v.len() - before), 1);
    } else {
        for x in values.try_iter()? {
            let x = x?;
            if x.is_none() {
                levels.push(0);
            } else {
                v.push(x.extract()?);
                levels.push(1);
            }
        }
    }
    Ok(())
}

/// Refuses a string column's Arrow buffers whose lengths do not fit its rows (before any row
/// is read): 32-bit offsets, one more than the rows, and a validity bitmap of a bit a row
/// (Arrow columnar format, "Validity bitmaps" and "Variable-size Binary Layout"). A short
/// bitmap once panicked part way through the chunk, after some of its groups were written.
fn check_buffers(name: &str, valid: Option<&[u8]>, offsets: &[u8]) -> PyResult<()> {
    if !offsets.len().is_multiple_of(4) {
        return Err(PyValueError::new_err(format!(
            "column {name:?} has {} bytes of offsets, not a whole number of 32-bit offsets",
            offsets.len()
        )));
    }
    let n = (offsets.len() / 4).saturating_sub(1);
    match valid {
        Some(bits) if bits.len() < n.div_ceil(8) => Err(PyValueError::new_err(format!(
            "column {name:?} has a validity bitmap of {} rows where its offsets have {n}",
            bits.len() * 8
        ))),
        _ => Ok(()),
    }
}

/// One column of a chunk in the packed form `columns.rs` hands to Python, read without
/// copying its rows yet: [`ParquetFile::write_columns`] copies them a group's worth at a time.
enum Packed<'py> {
    /// Native-endian 64-bit values, every one present.
    Words(Bound<'py, PyBytes>),
    /// A string column: validity bitmap (or None), each row's end in `data` (after a leading
    /// 0), UTF-8 data.
    Str {
        valid: Option<Vec<u8>>,
        ends: Vec<usize>,
        data: Bytes,
    },
}

impl Packed<'_> {
    fn len(&self) -> usize {
        match self {
            Packed::Words(b) => b.as_bytes().len() / 8,
            Packed::Str { ends, .. } => ends.len().saturating_sub(1),
        }
    }

    /// Appends rows `from..to` to `rows` (a column of the matching type; offsets checked).
    fn append(&self, rows: &mut Rows, from: usize, to: usize) {
        let levels = &mut rows.levels;
        match (self, &mut rows.values) {
            (Packed::Words(b), values) => {
                let words = b.as_bytes()[from * 8..to * 8].chunks_exact(8);
                let word = |w: &[u8]| -> [u8; 8] { w.try_into().expect("chunks of 8") };
                match values {
                    Values::I64(v) => v.extend(words.map(|w| i64::from_ne_bytes(word(w)))),
                    Values::F64(v) => v.extend(words.map(|w| f64::from_ne_bytes(word(w)))),
                    Values::Bool(v) => v.extend(words.map(|w| u64::from_ne_bytes(word(w)) != 0)),
                    Values::Str(_) | Values::Null => unreachable!("packed only as numbers"),
                }
                levels.resize(levels.len() + (to - from), 1);
            }
            (Packed::Str { valid, ends, data }, Values::Str(v)) => {
                for i in from..to {
                    let present = valid
                        .as_ref()
                        .is_none_or(|bits| bits[i >> 3] >> (i & 7) & 1 == 1);
                    if present {
                        v.push(ByteArray::from(data.slice(ends[i]..ends[i + 1])));
                    }
                    levels.push(i16::from(present));
                }
            }
            (Packed::Str { .. }, _) => unreachable!("packed strings only in a string column"),
        }
    }
}

impl ParquetFile {
    /// Appends one column of a chunk to `rows`.
    fn append(name: &str, rows: &mut Rows, values: &Bound<'_, PyAny>) -> PyResult<()> {
        let levels = &mut rows.levels;
        match &mut rows.values {
            Values::I64(v) => append_values(v, levels, values, i64::from_ne_bytes)?,
            Values::F64(v) => append_values(v, levels, values, f64::from_ne_bytes)?,
            Values::Bool(v) => {
                append_values(v, levels, values, |w| u64::from_ne_bytes(w) != 0)?;
            }
            Values::Null => {
                for x in values.try_iter()? {
                    if !x?.is_none() {
                        return Err(PyValueError::new_err(format!(
                            "column {name:?}: a null column holds only None"
                        )));
                    }
                    levels.push(0);
                }
            }
            Values::Str(v) => {
                if let Ok(t) = values.downcast::<PyTuple>() {
                    // Arrow's layout: validity bitmap (or None), 32-bit offsets, UTF-8 data.
                    let (valid, offsets, data): (Option<Vec<u8>>, Vec<u8>, Vec<u8>) =
                        t.extract()?;
                    let data = Bytes::from(data);
                    check_buffers(name, valid.as_deref(), &offsets)?;
                    let ends: Vec<usize> = offsets
                        .chunks_exact(4)
                        .map(|w| i32::from_ne_bytes(w.try_into().expect("chunks of 4")) as usize)
                        .collect();
                    for (i, pair) in ends.windows(2).enumerate() {
                        let present = valid
                            .as_ref()
                            .is_none_or(|bits| bits[i >> 3] >> (i & 7) & 1 == 1);
                        if pair[0] > pair[1] || pair[1] > data.len() {
                            return Err(PyValueError::new_err(format!(
                                "column {name:?}: offsets out of order or past the data"
                            )));
                        }
                        if present {
                            v.push(ByteArray::from(data.slice(pair[0]..pair[1])));
                        }
                        levels.push(i16::from(present));
                    }
                } else {
                    for x in values.try_iter()? {
                        let s: Option<String> = x?.extract()?;
                        levels.push(i16::from(s.is_some()));
                        if let Some(s) = s {
                            v.push(ByteArray::from(s.into_bytes()));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The chunk's columns, when every one is in its packed form (a run's series), checked
    /// whole (offsets in order, equal lengths) before any row is appended; `None` when a
    /// column is in another form (a list of values: a sweep's table, the emulator's series).
    fn packed<'py>(&self, chunk: &Bound<'py, PyDict>) -> PyResult<Option<Vec<Packed<'py>>>> {
        let mut cols = Vec::with_capacity(self.names.len());
        for (name, rows) in self.names.iter().zip(&self.rows) {
            let Some(values) = chunk.get_item(name)? else {
                return Ok(None);
            };
            let col = match (&rows.values, values.downcast_into::<PyBytes>()) {
                (Values::I64(_) | Values::F64(_) | Values::Bool(_), Ok(b)) => {
                    let len = b.as_bytes().len();
                    if !len.is_multiple_of(8) {
                        return Err(PyValueError::new_err(format!(
                            "column {name:?} has {len} bytes, not a whole number of 8-byte values"
                        )));
                    }
                    Packed::Words(b)
                }
                (Values::Str(_), Err(e)) => {
                    let Ok(t) = e.into_inner().downcast_into::<PyTuple>() else {
                        return Ok(None);
                    };
                    let (valid, offsets, data): (Option<Vec<u8>>, Vec<u8>, Vec<u8>) =
                        t.extract()?;
                    let ends: Vec<usize> = offsets
                        .chunks_exact(4)
                        .map(|w| i32::from_ne_bytes(w.try_into().expect("chunks of 4")) as usize)
                        .collect();
                    if ends.windows(2).any(|p| p[0] > p[1] || p[1] > data.len()) {
                        return Err(PyValueError::new_err(format!(
                            "column {name:?}: offsets out of order or past the data"
                        )));
                    }
                    check_buffers(name, valid.as_deref(), &offsets)?;
                    Packed::Str {
                        valid,
                        ends,
                        data: Bytes::from(data),
                    }
                }
                _ => return Ok(None),
            };
            cols.push(col);
        }
        let n = cols.first().map_or(0, Packed::len);
        if let Some((name, c)) = self.names.iter().zip(&cols).find(|(_, c)| c.len() != n) {
            return Err(PyValueError::new_err(format!(
                "column {name:?} has {} rows where the first column has {n}",
                c.len()
            )));
        }
        Ok(Some(cols))
    }

    /// Appends packed columns a group's worth at a time, writing each group as it fills, so
    /// the buffers never hold more than one group: a bin of 100,000 flows is not copied whole
    /// beside its Python columns (issue 24). The groups, and so the file, are the same.
    fn write_packed(&mut self, cols: &[Packed<'_>]) -> PyResult<()> {
        let n = cols.first().map_or(0, Packed::len);
        let mut at = 0;
        while at < n {
            let have = self.rows.first().map_or(0, Rows::len);
            let to = n.min(at + self.rows_per_group.saturating_sub(have).max(1));
            for (rows, col) in self.rows.iter_mut().zip(cols) {
                col.append(rows, at, to);
            }
            at = to;
            while self.rows.first().map_or(0, Rows::len) >= self.rows_per_group {
                self.write_group(self.rows_per_group)?;
            }
        }
        Ok(())
    }

    fn append_chunk(&mut self, chunk: &Bound<'_, PyDict>, before: usize) -> PyResult<()> {
        for (name, rows) in self.names.iter().zip(&mut self.rows) {
            let values = chunk.get_item(name)?.ok_or_else(|| {
                PyValueError::new_err(format!("the chunk has no column {name:?}"))
            })?;
            Self::append(name, rows, &values)?;
        }
        let n = self.rows.first().map_or(0, Rows::len);
        match self
            .names
            .iter()
            .zip(&self.rows)
            .find(|(_, r)| r.len() != n)
        {
            Some((name, r)) => Err(PyValueError::new_err(format!(
                "column {name:?} has {} rows where the first column has {}",
                r.len() - before,
                n - before
            ))),
            None => Ok(()),
        }
    }

    /// Writes the first `n` buffered rows of every column as one row group.
    fn write_group(&mut self, n: usize) -> PyResult<()> {
        let writer = self
            .writer
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("this Parquet file is closed"))?;
        let mut group = writer.next_row_group().map_err(py_err)?;
        for rows in &mut self.rows {
            let mut col = group
                .next_column()
                .map_err(py_err)?
                .expect("one column writer per column of the schema");
            let levels: Vec<i16> = rows.levels.drain(..n).collect();
            let present = levels.iter().filter(|&&l| l == 1).count();
            let levels = Some(&levels[..]);
            match &mut rows.values {
                Values::I64(v) => {
                    col.typed::<Int64Type>()
                        .write_batch(&v[..present], levels, None)
                        .map_err(py_err)?;
                    v.drain(..present);
                }
                Values::F64(v) => {
                    col.typed::<DoubleType>()
                        .write_batch(&v[..present], levels, None)
                        .map_err(py_err)?;
                    v.drain(..present);
                }
                Values::Bool(v) => {
                    col.typed::<BoolType>()
                        .write_batch(&v[..present], levels, None)
                        .map_err(py_err)?;
                    v.drain(..present);
                }
                Values::Str(v) => {
                    col.typed::<ByteArrayType>()
                        .write_batch(&v[..present], levels, None)
                        .map_err(py_err)?;
                    v.drain(..present);
                }
                Values::Null => {
                    col.typed::<Int32Type>()
                        .write_batch(&[], levels, None)
                        .map_err(py_err)?;
                }
            }
            col.close().map_err(py_err)?;
        }
        group.close().map_err(py_err)?;
        Ok(())
    }
}

#[pymethods]
impl ParquetFile {
    /// Creates `path` for a table of `columns` (pairs of name and type: `int64`, `float64`,
    /// `bool`, `string` or `null`), written in row groups of `rows_per_group` rows; `metadata`
    /// is the file's key-value metadata (a sweep's table carries pandas' description of its
    /// columns under `pandas`, as pyarrow writes it).
    #[new]
    #[pyo3(signature = (path, columns, rows_per_group, metadata=None))]
    fn new(
        path: &str,
        columns: Vec<(String, String)>,
        rows_per_group: usize,
        metadata: Option<Vec<(String, String)>>,
    ) -> PyResult<Self> {
        if rows_per_group == 0 {
            return Err(PyValueError::new_err("rows_per_group must be at least 1"));
        }
        let mut fields = Vec::with_capacity(columns.len());
        let mut rows = Vec::with_capacity(columns.len());
        for (name, kind) in &columns {
            fields.push(Arc::new(column_type(name, kind)?));
            rows.push(Rows {
                values: match kind.as_str() {
                    "int64" => Values::I64(Vec::new()),
                    "float64" => Values::F64(Vec::new()),
                    "bool" => Values::Bool(Vec::new()),
                    "null" => Values::Null,
                    _ => Values::Str(Vec::new()),
                },
                levels: Vec::new(),
            });
        }
        let schema = Type::group_type_builder("schema")
            .with_fields(fields)
            .build()
            .map_err(py_err)?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_key_value_metadata(
                metadata.map(|kv| kv.into_iter().map(|(k, v)| KeyValue::new(k, v)).collect()),
            )
            .build();
        let file = File::create(path).map_err(os_error)?;
        let writer =
            SerializedFileWriter::new(BufWriter::new(file), Arc::new(schema), Arc::new(props))
                .map_err(py_err)?;
        Ok(ParquetFile {
            writer: Some(writer),
            names: columns.into_iter().map(|(n, _)| n).collect(),
            rows,
            rows_per_group,
        })
    }

    /// Appends one chunk: a dict holding every column of the table. A chunk that cannot be
    /// appended (a missing column, a bad value, columns of different lengths) is refused whole.
    fn write_columns(&mut self, chunk: &Bound<'_, PyDict>) -> PyResult<()> {
        if let Some(cols) = self.packed(chunk)? {
            self.write_packed(&cols)?;
        } else {
            let before = self.rows.first().map_or(0, Rows::len);
            if let Err(e) = self.append_chunk(chunk, before) {
                self.rows.iter_mut().for_each(|r| r.truncate(before));
                return Err(e);
            }
            while self.rows.first().map_or(0, Rows::len) >= self.rows_per_group {
                self.write_group(self.rows_per_group)?;
            }
        }
        // A chunk of a bin of many flows is many groups' worth: between chunks the buffers
        // keep room for one group, not the largest chunk's (it was 280 bytes a flow at 50,000
        // flows, held through the run: issue 24). Once per chunk, not per row.
        let per_group = self.rows_per_group;
        self.rows.iter_mut().for_each(|r| r.shrink_to(per_group));
        Ok(())
    }

    /// Writes the rows left (a last, shorter group) and the file's footer.
    fn close(&mut self) -> PyResult<()> {
        let n = self.rows.first().map_or(0, Rows::len);
        if n > 0 {
            self.write_group(n)?;
        }
        if let Some(w) = self.writer.take() {
            let mut buf = w.into_inner().map_err(py_err)?;
            std::io::Write::flush(&mut buf).map_err(os_error)?;
        }
        Ok(())
    }
}
