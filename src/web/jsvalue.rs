//! Structured values between the app and its modules (issue 14 item 6): a [`Value`] written as a
//! JS value by the module that makes it ([`to_js`], `serde-wasm-bindgen`) and read back by the app
//! ([`read`]) without a JSON parser in the first download. JSON's distinctions survive the crossing:
//! maps are JS `Map`s (their order kept, as `serde_json`'s `preserve_order` keeps it), whole numbers
//! are `BigInt`s and fractional ones JS numbers (so `1.0` stays a float and `1` an integer), and
//! null is `null`.
//!
//! [`read`] takes any JS value as hostile: it walks the value with a stack of its own (no recursion),
//! at most [`MAX_DEPTH`] levels deep and [`MAX_VALUES`] values in all (a cycle or a sparse array of
//! four billion holes ends there), and anything JSON cannot hold (`undefined`, a function, a symbol,
//! NaN, a map with a key that is not text) is an error naming its path
//! (`ok.task.roles.f_3: undefined is not a value JSON holds`).

use serde::Serialize;
use serde_json::{Map, Number, Value};
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::{JsCast, JsValue};

pub use crate::playground::handover::{MAX_DEPTH, MAX_VALUES};

/// `v` as a JS value (maps as `Map`s, whole numbers as `BigInt`s, null as `null`).
pub fn to_js(v: &Value) -> JsValue {
    let s = serde_wasm_bindgen::Serializer::new()
        .serialize_missing_as_null(true)
        .serialize_large_number_types_as_bigints(true);
    v.serialize(&s).unwrap_or_else(|e| JsValue::from_str(&format!("the value cannot be written: {e}")))
}

/// A list or map being read: its items (a map's values, with its keys beside them), the next one's
/// index, and what has been read of it.
struct Open {
    items: js_sys::Array,
    next: u32,
    into: Into,
}

enum Into {
    List(Vec<Value>),
    /// The map so far, its keys, and the key of the value being read.
    Map(Map<String, Value>, js_sys::Array, String),
}

/// What the value at hand is: read whole, or a list or map to open.
enum Read {
    Done(Value),
    Open(js_sys::Array, Into),
}

fn one(x: &JsValue) -> Result<Read, String> {
    if let Some(s) = x.as_string() {
        return Ok(Read::Done(Value::String(s)));
    }
    if x.is_bigint() {
        return match (i64::try_from_js_value_ref(x), u64::try_from_js_value_ref(x)) {
            (Some(i), _) => Ok(Read::Done(Value::from(i))),
            (None, Some(u)) => Ok(Read::Done(Value::from(u))),
            _ => Err("a whole number beyond 64 bits".into()),
        };
    }
    if let Some(f) = x.as_f64() {
        return Number::from_f64(f)
            .map(|n| Read::Done(Value::Number(n)))
            .ok_or_else(|| "NaN or an infinity is not a number JSON holds".to_string());
    }
    if let Some(b) = x.as_bool() {
        return Ok(Read::Done(Value::Bool(b)));
    }
    if x.is_null() {
        return Ok(Read::Done(Value::Null));
    }
    if let Some(a) = x.dyn_ref::<js_sys::Array>() {
        return Ok(Read::Open(a.clone(), Into::List(Vec::new())));
    }
    // A map's keys and values, in its order (a plain object's too, as `Object.keys` orders them).
    let (keys, values) = if let Some(m) = x.dyn_ref::<js_sys::Map>() {
        (js_sys::Array::from(&m.keys().into()), js_sys::Array::from(&m.values().into()))
    } else if x.is_object() {
        let o: &js_sys::Object = x.unchecked_ref();
        (js_sys::Object::keys(o), js_sys::Object::values(o))
    } else {
        let what = x.js_typeof().as_string().unwrap_or_default();
        return Err(format!("{what} is not a value JSON holds"));
    };
    Ok(Read::Open(values, Into::Map(Map::new(), keys, String::new())))
}

/// The path of the value being read, from the lists and maps open around it.
fn path(open: &[Open]) -> String {
    let mut p = String::new();
    for o in open {
        match &o.into {
            Into::List(_) => p.push_str(&format!("[{}]", o.next.saturating_sub(1))),
            Into::Map(_, _, key) => {
                if !p.is_empty() {
                    p.push('.');
                }
                p.push_str(key);
            }
        }
    }
    crate::playground::handoff::one_line(&p)
}

fn fail<T>(open: &[Open], what: String) -> Result<T, String> {
    let p = path(open);
    Err(if p.is_empty() { what } else { format!("{p}: {what}") })
}

/// Read a JS value as the [`Value`] it holds; an error names its path.
pub fn read(v: &JsValue) -> Result<Value, String> {
    let mut open: Vec<Open> = Vec::new();
    let mut count = 0usize;
    let mut at = v.clone();
    loop {
        count += 1;
        if count > MAX_VALUES {
            return fail(&open, format!("more than {MAX_VALUES} values"));
        }
        let mut value = match one(&at) {
            Ok(Read::Done(v)) => Some(v),
            Ok(Read::Open(items, into)) => {
                if open.len() >= MAX_DEPTH {
                    return fail(&open, format!("nested deeper than {MAX_DEPTH} levels"));
                }
                open.push(Open { items, next: 0, into });
                None
            }
            Err(e) => return fail(&open, e),
        };
        // Put what was read into the innermost open list or map, close those it completes, and go
        // on to the next item of the innermost one left.
        loop {
            let Some(top) = open.last_mut() else { return Ok(value.unwrap_or(Value::Null)) };
            if let Some(v) = value.take() {
                match &mut top.into {
                    Into::List(l) => l.push(v),
                    Into::Map(m, _, key) => {
                        m.insert(std::mem::take(key), v);
                    }
                }
            }
            if top.next < top.items.length() {
                let item = top.items.get(top.next);
                top.next += 1;
                if let Into::Map(_, keys, key) = &mut top.into {
                    match keys.get(top.next - 1).as_string() {
                        Some(k) => *key = k,
                        None => return fail(&open[..open.len() - 1], "a map with a key that is not text".into()),
                    }
                }
                at = item;
                break;
            }
            value = open.pop().map(|o| match o.into {
                Into::List(l) => Value::Array(l),
                Into::Map(m, _, _) => Value::Object(m),
            });
        }
    }
}
