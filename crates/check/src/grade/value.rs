//! Python values as the harness reports them, and the reference's output comparison (grading.md §3.5).
//!
//! The harness prints every value as tagged JSON (see `native/harness.py`): floats as the hex of
//! their 8 little-endian bytes (`"hex"`: exact, NaN and the infinities included), ints as decimal
//! text (any size), ndarrays with shape, dtype and flat values (float64 ones as the hex of their
//! bytes). The grader's requests give floats as their Python `repr` text (`"v"`), which reads too.

use serde_json::Value as Json;
use std::fmt;

/// Relative and absolute tolerances of the reference (pytest.approx / numpy.allclose).
pub const RTOL: f64 = 1e-6;
pub const ATOL: f64 = 1e-9;

/// One Python value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    /// A Python int; `text` keeps ints beyond i64 exactly.
    Int(IntValue),
    Float(f64),
    Str(String),
    Tuple(Vec<Value>),
    List(Vec<Value>),
    /// An ndarray of a numeric or boolean dtype (values in C order), or of another dtype
    /// (`values` is `None`; `repr` holds its text).
    Array {
        shape: Vec<usize>,
        dtype: String,
        values: Option<Vec<f64>>,
        repr: String,
    },
    /// Anything else (dict, set, objects): its type name and repr; compared by exact text.
    Other {
        type_name: String,
        repr: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct IntValue {
    pub text: String,
}

impl IntValue {
    pub fn as_f64(&self) -> f64 {
        self.text.parse::<f64>().unwrap_or(f64::NAN)
    }
    pub fn as_i128(&self) -> Option<i128> {
        self.text.parse::<i128>().ok()
    }
}

impl Value {
    pub fn int(v: i64) -> Value {
        Value::Int(IntValue { text: v.to_string() })
    }

    /// The Python type name, for messages.
    pub fn type_name(&self) -> &str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Tuple(_) => "tuple",
            Value::List(_) => "list",
            Value::Array { .. } => "ndarray",
            Value::Other { type_name, .. } => type_name,
        }
    }

    /// The value as a Python number (bool, int, float), if it is one.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            Value::Int(i) => Some(i.as_f64()),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Read a tagged JSON value from the harness.
    pub fn from_json(j: &Json) -> Result<Value, String> {
        let tag = j.get("t").and_then(Json::as_str).ok_or("value without a tag")?;
        let v = j.get("v");
        let text = |name: &str| -> Result<String, String> {
            v.and_then(Json::as_str).map(str::to_string).ok_or(format!("{name} value without text"))
        };
        let items = || -> Result<Vec<Value>, String> {
            v.and_then(Json::as_array).ok_or("sequence without items")?.iter().map(Value::from_json).collect()
        };
        Ok(match tag {
            "none" => Value::None,
            "bool" => Value::Bool(v.and_then(Json::as_bool).ok_or("bool without value")?),
            "int" => Value::Int(IntValue { text: text("int")? }),
            "float" => Value::Float(match j.get("hex") {
                Some(hex) => hex.as_str().and_then(f64_of_hex).ok_or("float hex is not 16 lowercase hex digits")?,
                None => parse_float(&text("float")?)?,
            }),
            "str" => Value::Str(text("str")?),
            "tuple" => Value::Tuple(items()?),
            "list" => Value::List(items()?),
            "ndarray" => {
                let shape = j
                    .get("shape")
                    .and_then(Json::as_array)
                    .ok_or("ndarray without shape")?
                    .iter()
                    .map(|d| d.as_u64().map(|d| d as usize).ok_or("bad ndarray shape"))
                    .collect::<Result<Vec<_>, _>>()?;
                let dtype = j.get("dtype").and_then(Json::as_str).unwrap_or("?").to_string();
                let repr = j.get("repr").and_then(Json::as_str).unwrap_or("").to_string();
                let values = match (v.and_then(Json::as_array), j.get("hex").and_then(Json::as_str)) {
                    (Some(xs), _) => Some(
                        xs.iter()
                            .map(|x| x.as_str().ok_or("bad ndarray element".to_string()).and_then(parse_float))
                            .collect::<Result<Vec<_>, _>>()?,
                    ),
                    (None, Some(hex)) => Some(f64_hex(hex).ok_or("bad ndarray hex")?),
                    (None, None) => None,
                };
                if let Some(vals) = &values {
                    if vals.len() != shape.iter().product::<usize>() {
                        return Err("ndarray size does not match its shape".into());
                    }
                }
                Value::Array { shape, dtype, values, repr }
            }
            "other" => Value::Other {
                type_name: j.get("type").and_then(Json::as_str).unwrap_or("object").to_string(),
                repr: j.get("repr").and_then(Json::as_str).unwrap_or("").to_string(),
            },
            t => return Err(format!("unknown value tag '{t}'")),
        })
    }

    /// The tagged JSON form (what the harness reads for inputs).
    pub fn to_json(&self) -> Json {
        use serde_json::json;
        match self {
            Value::None => json!({"t": "none"}),
            Value::Bool(b) => json!({"t": "bool", "v": b}),
            Value::Int(i) => json!({"t": "int", "v": i.text}),
            Value::Float(f) => json!({"t": "float", "v": float_text(*f)}),
            Value::Str(s) => json!({"t": "str", "v": s}),
            Value::Tuple(xs) => json!({"t": "tuple", "v": xs.iter().map(Value::to_json).collect::<Vec<_>>()}),
            Value::List(xs) => json!({"t": "list", "v": xs.iter().map(Value::to_json).collect::<Vec<_>>()}),
            Value::Array { shape, dtype, values, repr } => json!({
                "t": "ndarray", "shape": shape, "dtype": dtype, "repr": repr,
                "v": values.as_ref().map(|vs| vs.iter().map(|x| float_text(*x)).collect::<Vec<_>>()),
            }),
            Value::Other { type_name, repr } => json!({"t": "other", "type": type_name, "repr": repr}),
        }
    }
}

impl Value {
    /// [`Value::to_json`]'s text, written straight to `out`.
    pub fn write_json(&self, out: &mut String) {
        use std::fmt::Write;
        let seq = |out: &mut String, tag: &str, xs: &[Value]| {
            let _ = write!(out, "{{\"t\":\"{tag}\",\"v\":[");
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                x.write_json(out);
            }
            out.push_str("]}");
        };
        match self {
            Value::None => out.push_str("{\"t\":\"none\"}"),
            Value::Bool(b) => {
                let _ = write!(out, "{{\"t\":\"bool\",\"v\":{b}}}");
            }
            Value::Int(i) => {
                out.push_str("{\"t\":\"int\",\"v\":");
                write_json_str(out, &i.text);
                out.push('}');
            }
            Value::Float(f) => {
                out.push_str("{\"t\":\"float\",\"v\":\"");
                write_float_text(out, *f);
                out.push_str("\"}");
            }
            Value::Str(s) => {
                out.push_str("{\"t\":\"str\",\"v\":");
                write_json_str(out, s);
                out.push('}');
            }
            Value::Tuple(xs) => seq(out, "tuple", xs),
            Value::List(xs) => seq(out, "list", xs),
            Value::Array { shape, dtype, values, repr } => {
                out.push_str("{\"t\":\"ndarray\",\"shape\":[");
                for (i, d) in shape.iter().enumerate() {
                    let _ = write!(out, "{}{d}", if i > 0 { "," } else { "" });
                }
                out.push_str("],\"dtype\":");
                write_json_str(out, dtype);
                out.push_str(",\"repr\":");
                write_json_str(out, repr);
                out.push_str(",\"v\":");
                match values {
                    None => out.push_str("null"),
                    Some(vs) => {
                        out.push('[');
                        for (i, x) in vs.iter().enumerate() {
                            out.push_str(if i > 0 { ",\"" } else { "\"" });
                            write_float_text(out, *x);
                            out.push('"');
                        }
                        out.push(']');
                    }
                }
                out.push('}');
            }
            Value::Other { type_name, repr } => {
                out.push_str("{\"t\":\"other\",\"type\":");
                write_json_str(out, type_name);
                out.push_str(",\"repr\":");
                write_json_str(out, repr);
                out.push('}');
            }
        }
    }
}

/// A JSON string literal of `s`, as serde_json writes it.
pub fn write_json_str(out: &mut String, s: &str) {
    // serde_json writes valid UTF-8 into the buffer.
    let mut buf = std::mem::take(out).into_bytes();
    serde_json::to_writer(&mut buf, s).expect("a str serialises");
    *out = String::from_utf8(buf).expect("serde_json writes UTF-8");
}

/// [`float_text`] written to `out`.
fn write_float_text(out: &mut String, x: f64) {
    use std::fmt::Write;
    if x.is_nan() {
        out.push_str("nan");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
    } else {
        let _ = write!(out, "{x:?}");
    }
}

/// Python's float text: shortest round-trip digits, `nan`, `inf`, `-inf`.
pub fn float_text(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{x:?}")
    }
}

/// Little-endian float64 values written as hex (the harness's `v.tobytes().hex()` of a `<f8`
/// array, which costs it a fraction of one `repr` per element); a NaN reads as the `nan` text does.
pub(crate) fn f64_hex(s: &str) -> Option<Vec<f64>> {
    let s = s.as_bytes();
    if !s.len().is_multiple_of(16) {
        return None;
    }
    s.chunks_exact(16).map(|c| f64_of_hex_bytes(c).map(|x| if x.is_nan() { f64::NAN } else { x })).collect()
}

/// One float64 from the 16 lowercase hex digits of its little-endian bytes (the harness's
/// `struct.pack("<d", x).hex()`), bit for bit: NaN payloads, the sign of zero and subnormals kept.
/// `None` for any other text.
pub(crate) fn f64_of_hex(s: &str) -> Option<f64> {
    f64_of_hex_bytes(s.as_bytes())
}

fn f64_of_hex_bytes(s: &[u8]) -> Option<f64> {
    fn nibble(b: u8) -> Option<u8> {
        match b {
            b'0'..=b'9' => Some(b - b'0'),
            b'a'..=b'f' => Some(b - b'a' + 10),
            _ => None,
        }
    }
    if s.len() != 16 {
        return None;
    }
    let mut bytes = [0u8; 8];
    for (k, pair) in s.chunks_exact(2).enumerate() {
        bytes[k] = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(f64::from_le_bytes(bytes))
}

pub(crate) fn parse_float(s: &str) -> Result<f64, String> {
    match s {
        "nan" | "-nan" => Ok(f64::NAN),
        "inf" => Ok(f64::INFINITY),
        "-inf" => Ok(f64::NEG_INFINITY),
        _ => s.parse::<f64>().map_err(|_| format!("bad float text '{s}'")),
    }
}

impl fmt::Display for Value {
    /// A Python-like rendering for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn seq(f: &mut fmt::Formatter<'_>, xs: &[Value], open: &str, close: &str, tuple: bool) -> fmt::Result {
            f.write_str(open)?;
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{x}")?;
            }
            if tuple && xs.len() == 1 {
                f.write_str(",")?;
            }
            f.write_str(close)
        }
        match self {
            Value::None => f.write_str("None"),
            Value::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            Value::Int(i) => f.write_str(&i.text),
            Value::Float(x) => f.write_str(&float_text(*x)),
            Value::Str(s) => write!(f, "{}", cabrito_gen::python::str_repr(s)),
            Value::Tuple(xs) => seq(f, xs, "(", ")", true),
            Value::List(xs) => seq(f, xs, "[", "]", false),
            Value::Array { shape, dtype, values, repr } => match values {
                Some(vs) if vs.len() <= 20 => {
                    let body: Vec<String> = vs.iter().map(|x| float_text(*x)).collect();
                    write!(f, "array([{}], shape={shape:?}, dtype={dtype})", body.join(", "))
                }
                _ => write!(f, "{repr} (shape={shape:?}, dtype={dtype})"),
            },
            Value::Other { repr, .. } => f.write_str(repr),
        }
    }
}

/// The outcome of comparing an actual output with the expected one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Comparison {
    Equal,
    /// Different, with a short reason.
    Differ(String),
    /// The reference's comparison would raise here (non-numeric arrays): a trial error.
    Error(String),
}

impl Comparison {
    pub fn is_equal(&self) -> bool {
        matches!(self, Comparison::Equal)
    }
}

/// `|a − e| ≤ atol + rtol·|e|` with NaN equal to NaN and infinities equal only to themselves
/// (numpy.isclose with `equal_nan`).
pub fn isclose_array(a: f64, e: f64) -> bool {
    if a.is_nan() || e.is_nan() {
        return a.is_nan() && e.is_nan();
    }
    if a.is_infinite() || e.is_infinite() {
        return a == e;
    }
    (a - e).abs() <= ATOL + RTOL * e.abs()
}

/// pytest.approx for one number: exact equality, else `|a − e| ≤ max(rtol·|e|, atol)`, NaN equal to
/// NaN (`nan_ok`), infinities only equal to themselves.
pub fn approx_number(a: f64, e: f64) -> bool {
    if a == e {
        return true;
    }
    if a.is_nan() || e.is_nan() {
        return a.is_nan() && e.is_nan();
    }
    if a.is_infinite() || e.is_infinite() {
        return false;
    }
    (a - e).abs() <= (RTOL * e.abs()).max(ATOL)
}

/// Shape and flat values.
type NumericArray = (Vec<usize>, Vec<f64>);

/// An ndarray view of a value as numpy.asarray would make it: `Ok(Some)` for numeric data,
/// `Ok(None)` for data that converts but is not numeric (comparison raises), `Err` when it does
/// not convert to a regular array at all.
fn as_array(v: &Value) -> Result<Option<NumericArray>, String> {
    match v {
        Value::Array { shape, values, .. } => Ok(values.clone().map(|vs| (shape.clone(), vs))),
        Value::Bool(_) | Value::Int(_) | Value::Float(_) => Ok(Some((vec![], vec![v.as_number().unwrap_or(f64::NAN)]))),
        Value::Str(_) | Value::None | Value::Other { .. } => Ok(None),
        Value::Tuple(xs) | Value::List(xs) => {
            let mut inner_shape: Option<Vec<usize>> = None;
            let mut flat = Vec::new();
            let mut numeric = true;
            for x in xs {
                match as_array(x)? {
                    Some((s, vs)) => {
                        if let Some(prev) = &inner_shape {
                            if *prev != s {
                                return Err("ragged sequence does not convert to an array".into());
                            }
                        }
                        inner_shape = Some(s);
                        flat.extend(vs);
                    }
                    None => numeric = false,
                }
            }
            if !numeric {
                return Ok(None);
            }
            let mut shape = vec![xs.len()];
            shape.extend(inner_shape.unwrap_or_default());
            Ok(Some((shape, flat)))
        }
    }
}

/// Compare `actual` (the candidate's output) with `expected` (the reference's), grading.md §3.5.
pub fn compare(actual: &Value, expected: &Value) -> Comparison {
    let is_array = |v: &Value| matches!(v, Value::Array { .. });
    if is_array(actual) || is_array(expected) {
        let (a, e) = match (as_array(actual), as_array(expected)) {
            (Ok(a), Ok(e)) => (a, e),
            (Err(m), _) | (_, Err(m)) => return Comparison::Differ(m),
        };
        let (Some((sa, va)), Some((se, ve))) = (a, e) else {
            return Comparison::Error("non-numeric array in comparison (numpy.allclose raises)".into());
        };
        if sa != se {
            return Comparison::Differ(format!("shape {sa:?} instead of {se:?}"));
        }
        for (i, (x, y)) in va.iter().zip(&ve).enumerate() {
            if !isclose_array(*x, *y) {
                return Comparison::Differ(format!("element {i}: {} instead of {}", float_text(*x), float_text(*y)));
            }
        }
        return Comparison::Equal;
    }
    match (actual, expected) {
        (Value::Tuple(a), Value::Tuple(e)) | (Value::List(a), Value::List(e)) => {
            if a.len() != e.len() {
                return Comparison::Differ(format!("length {} instead of {}", a.len(), e.len()));
            }
            for (i, (x, y)) in a.iter().zip(e).enumerate() {
                match compare(x, y) {
                    Comparison::Equal => {}
                    Comparison::Differ(m) => return Comparison::Differ(format!("item {i}: {m}")),
                    Comparison::Error(m) => return Comparison::Error(format!("item {i}: {m}")),
                }
            }
            Comparison::Equal
        }
        (Value::Tuple(_) | Value::List(_), Value::Tuple(_) | Value::List(_)) => {
            Comparison::Differ(format!("a {} instead of a {}", actual.type_name(), expected.type_name()))
        }
        _ => {
            if let (Some(a), Some(e)) = (actual.as_number(), expected.as_number()) {
                // Exact ints first (beyond f64 precision), then the approx rule.
                if let (Value::Int(x), Value::Int(y)) = (actual, expected) {
                    if let (Some(x), Some(y)) = (x.as_i128(), y.as_i128()) {
                        if x == y {
                            return Comparison::Equal;
                        }
                    }
                }
                // pytest.approx compares bools exactly (no tolerance).
                let exact_only = matches!(expected, Value::Bool(_)) || matches!(actual, Value::Bool(_));
                let ok = if exact_only { a == e } else { approx_number(a, e) };
                return if ok {
                    Comparison::Equal
                } else {
                    Comparison::Differ(format!("{actual} instead of {expected}"))
                };
            }
            if actual == expected {
                Comparison::Equal
            } else if actual.type_name() != expected.type_name() {
                Comparison::Differ(format!(
                    "a {} ({actual}) instead of a {} ({expected})",
                    actual.type_name(),
                    expected.type_name()
                ))
            } else {
                Comparison::Differ(format!("{actual} instead of {expected}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(shape: &[usize], vs: &[f64]) -> Value {
        Value::Array { shape: shape.to_vec(), dtype: "float64".into(), values: Some(vs.to_vec()), repr: String::new() }
    }

    #[test]
    fn numbers_follow_approx() {
        assert!(compare(&Value::Float(1.0 + 1e-7), &Value::Float(1.0)).is_equal());
        assert!(!compare(&Value::Float(1.0 + 1e-5), &Value::Float(1.0)).is_equal());
        assert!(compare(&Value::Float(5e-10), &Value::Float(0.0)).is_equal());
        assert!(!compare(&Value::Float(5e-9), &Value::Float(0.0)).is_equal());
        assert!(compare(&Value::Float(f64::NAN), &Value::Float(f64::NAN)).is_equal());
        assert!(!compare(&Value::Float(1.0), &Value::Float(f64::NAN)).is_equal());
        assert!(compare(&Value::Float(f64::INFINITY), &Value::Float(f64::INFINITY)).is_equal());
        assert!(!compare(&Value::Float(f64::NEG_INFINITY), &Value::Float(f64::INFINITY)).is_equal());
        assert!(!compare(&Value::Float(1e300), &Value::Float(f64::INFINITY)).is_equal());
        assert!(compare(&Value::int(1), &Value::Float(1.0)).is_equal());
        assert!(!compare(&Value::Str("1".into()), &Value::Float(1.0)).is_equal());
        assert!(!compare(&Value::Str("ab".into()), &Value::Str("ab ".into())).is_equal());
        assert!(compare(&Value::None, &Value::None).is_equal());
    }

    #[test]
    fn sequences_keep_their_type() {
        let t = Value::Tuple(vec![Value::Float(1.0), Value::Str("goat".into())]);
        let l = Value::List(vec![Value::Float(1.0), Value::Str("goat".into())]);
        assert!(compare(&t, &t.clone()).is_equal());
        assert!(!compare(&l, &t).is_equal());
        assert!(!compare(&Value::Tuple(vec![Value::Float(1.0)]), &t).is_equal());
    }

    #[test]
    fn arrays_need_the_same_shape_and_close_values() {
        let e = arr(&[3], &[1.0, f64::NAN, f64::INFINITY]);
        assert!(compare(&arr(&[3], &[1.0 + 1e-7, f64::NAN, f64::INFINITY]), &e).is_equal());
        assert!(!compare(&arr(&[1, 3], &[1.0, f64::NAN, f64::INFINITY]), &e).is_equal());
        assert!(!compare(&arr(&[3], &[1.1, f64::NAN, f64::INFINITY]), &e).is_equal());
        // A list converts to an array on the other side.
        let l = Value::List(vec![Value::Float(1.0), Value::Float(2.0)]);
        assert!(compare(&l, &arr(&[2], &[1.0, 2.0])).is_equal());
        // A scalar against a 1-element array: shapes differ.
        assert!(!compare(&Value::Float(1.0), &arr(&[1], &[1.0])).is_equal());
        // Strings make allclose raise.
        assert!(matches!(compare(&Value::Str("a".into()), &arr(&[1], &[1.0])), Comparison::Error(_)));
    }

    #[test]
    fn json_round_trip() {
        let v = Value::Tuple(vec![arr(&[2], &[0.1, f64::NEG_INFINITY]), Value::Str("x'y".into()), Value::int(7)]);
        let back = Value::from_json(&v.to_json()).unwrap();
        assert!(compare(&back, &v).is_equal());
        assert!(Value::from_json(&serde_json::json!({"t": "martian"})).is_err());
    }
}
