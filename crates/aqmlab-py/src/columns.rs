//! Columns handed to Python as Arrow buffers, not lists: a number column is one `bytes` object
//! holding the values in Arrow's layout (native-endian 64-bit integers or doubles), a string
//! column a tuple `(validity, offsets, data)` of `bytes` (Arrow's variable-size binary layout:
//! a validity bitmap or None, 32-bit offsets, the UTF-8 data). Python wraps them in Arrow
//! arrays without touching each value (`python/aqmlab/series.py::_column`), where a list of
//! Python objects cost a conversion per value on both sides.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// A column of 64-bit integers (Arrow `int64`).
#[derive(Default)]
pub struct I64Column(Vec<u8>);

impl I64Column {
    pub fn with_capacity(rows: usize) -> Self {
        I64Column(Vec::with_capacity(rows * 8))
    }
    pub fn push(&mut self, v: u64) {
        // Every count the series hold is far below 2^63: the same bits as an i64.
        self.0.extend_from_slice(&(v as i64).to_ne_bytes());
    }
    pub fn into_py(self, py: Python<'_>) -> PyObject {
        PyBytes::new(py, &self.0).into_any().unbind()
    }
}

/// A column of doubles (Arrow `float64`; NaN stays NaN, not null).
#[derive(Default)]
pub struct F64Column(Vec<u8>);

impl F64Column {
    pub fn with_capacity(rows: usize) -> Self {
        F64Column(Vec::with_capacity(rows * 8))
    }
    pub fn push(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_ne_bytes());
    }
    pub fn into_py(self, py: Python<'_>) -> PyObject {
        PyBytes::new(py, &self.0).into_any().unbind()
    }
}

/// A column of strings, some of them possibly missing (Arrow `string`).
pub struct StrColumn {
    rows: usize,
    /// Bit i set when row i has a value; kept only once a row lacks one.
    validity: Option<Vec<u8>>,
    offsets: Vec<u8>,
    data: Vec<u8>,
}

impl Default for StrColumn {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl StrColumn {
    pub fn with_capacity(rows: usize) -> Self {
        let mut offsets = Vec::with_capacity((rows + 1) * 4);
        offsets.extend_from_slice(&0i32.to_ne_bytes());
        StrColumn {
            rows: 0,
            validity: None,
            offsets,
            data: Vec::new(),
        }
    }

    pub fn push(&mut self, v: &str) {
        self.push_opt(Some(v));
    }

    pub fn push_opt(&mut self, v: Option<&str>) {
        let row = self.rows;
        self.rows += 1;
        match v {
            Some(s) => {
                self.data.extend_from_slice(s.as_bytes());
                if let Some(bits) = &mut self.validity {
                    set_bit(bits, row);
                }
            }
            None => {
                // The first missing value: every row before it had one.
                let bits = self.validity.get_or_insert_with(|| {
                    let mut bits = Vec::new();
                    (0..row).for_each(|i| set_bit(&mut bits, i));
                    bits
                });
                grow_to(bits, row);
            }
        }
        // Arrow's `string` type has 32-bit offsets; a chunk of series is far below 2 GiB.
        let end = i32::try_from(self.data.len()).expect("a series chunk's strings exceed 2 GiB");
        self.offsets.extend_from_slice(&end.to_ne_bytes());
    }

    pub fn into_py(self, py: Python<'_>) -> PyResult<PyObject> {
        let validity: PyObject = match self.validity {
            Some(mut bits) => {
                grow_to(&mut bits, self.rows.saturating_sub(1));
                PyBytes::new(py, &bits).into_any().unbind()
            }
            None => py.None(),
        };
        let parts = [
            validity,
            PyBytes::new(py, &self.offsets).into_any().unbind(),
            PyBytes::new(py, &self.data).into_any().unbind(),
        ];
        Ok(PyTuple::new(py, parts)?.into_any().unbind())
    }
}

/// Makes `bits` long enough to hold bit `i`.
fn grow_to(bits: &mut Vec<u8>, i: usize) {
    if bits.len() <= i / 8 {
        bits.resize(i / 8 + 1, 0);
    }
}

fn set_bit(bits: &mut Vec<u8>, i: usize) {
    grow_to(bits, i);
    bits[i / 8] |= 1 << (i % 8);
}
