//! A [`Value`] as one byte buffer, the "tape" the `gen` module hands its answer over in
//! (`playground::handover`, `web::gen`): the module [`encode`]s the answer and the app [`decode`]s it,
//! with no JSON parser in the first download and one copy each way across the JS boundary (a
//! `Uint8Array`). What JSON text distinguishes survives: `1` against `1.0` (the record's hash needs
//! it), a float's exact bits, and a map's order (`serde_json`'s `preserve_order`).
//!
//! The form is self-describing: each value is a tag byte, then its content; every count and length is
//! an unsigned LEB128 number (7 bits a byte, low first).
//!
//! | tag | value | then |
//! |---|---|---|
//! | 0, 1, 2 | null, false, true | nothing |
//! | 3 | a whole number from 0 (`u64`) | the number |
//! | 4 | a negative whole number `-1 - k` (`i64`) | `k` |
//! | 5 | a float | its `f64` bits, 8 bytes little-endian |
//! | 6 | a text | its length in bytes, then its UTF-8 |
//! | 7 | a list | its count, then its items |
//! | 8 | a map, in order | its count, then per field the key (length, UTF-8) and the value |
//!
//! [`decode`] takes any bytes as hostile: it reads with a stack of its own (no recursion), at most
//! [`MAX_DEPTH`] lists and maps deep and [`MAX_VALUES`] values in all, takes no count or length
//! larger than the bytes left could hold and reserves nothing on a count's word, and answers anything
//! else (a truncation, an unknown tag, bad UTF-8, a length or count past the end, a number beyond 64
//! bits, NaN or an infinity, a repeated key, bytes after the value) with a one-line reason and the byte
//! offset where it is.

use serde_json::{Map, Number, Value};

pub use super::handover::{MAX_DEPTH, MAX_VALUES};

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const UINT: u8 = 3;
const NEG: u8 = 4;
const FLOAT: u8 = 5;
const TEXT: u8 = 6;
const LIST: u8 = 7;
const MAP: u8 = 8;

/// `v` on a tape.
pub fn encode(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write(v, &mut out);
    out
}

fn uint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn text(s: &str, out: &mut Vec<u8>) {
    uint(s.len() as u64, out);
    out.extend_from_slice(s.as_bytes());
}

// (Recursive: the module writes values it built itself, at most 11 levels deep.)
fn write(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(NULL),
        Value::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.push(UINT);
                uint(u, out);
            } else if let Some(i) = n.as_i64() {
                // Negative here (a whole number from 0 is a `u64`): `!i` is `-1 - i`, from 0.
                out.push(NEG);
                uint(!i as u64, out);
            } else {
                out.push(FLOAT);
                out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_le_bytes());
            }
        }
        Value::String(s) => {
            out.push(TEXT);
            text(s, out);
        }
        Value::Array(items) => {
            out.push(LIST);
            uint(items.len() as u64, out);
            for x in items {
                write(x, out);
            }
        }
        Value::Object(m) => {
            out.push(MAP);
            uint(m.len() as u64, out);
            for (k, x) in m {
                text(k, out);
                write(x, out);
            }
        }
    }
}

// ---- straight from serde (the module's side) ----------------------------------------------------

/// Why [`to_tape`] cannot write a value: it takes what `serde_json::to_value` takes but a few forms no
/// task has (a map key that is not text, a whole number, a character, true/false or a unit variant;
/// a 128-bit number beyond 64 bits).
#[derive(Debug)]
pub struct Unsupported(String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

impl serde::ser::Error for Unsupported {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Unsupported(msg.to_string())
    }
}

/// `x` on a tape, straight from its `Serialize`: the same bytes as [`encode`] of
/// `serde_json::to_value(x)` (maps and structs in their order, whole numbers as such, non-finite floats
/// as null, map keys as text), without building the `Value` first.
pub fn to_tape<T: serde::Serialize + ?Sized>(x: &T) -> Result<Vec<u8>, Unsupported> {
    let mut w = Writer { out: Vec::new() };
    x.serialize(&mut w)?;
    Ok(w.out)
}

struct Writer {
    out: Vec<u8>,
}

/// A list or map being written: where its count goes (written at its end, when it is known).
struct Compound<'a> {
    w: &'a mut Writer,
    at: usize,
    n: u64,
}

impl Writer {
    fn open(&mut self, tag: u8) -> Compound<'_> {
        self.out.push(tag);
        let at = self.out.len();
        Compound { w: self, at, n: 0 }
    }

    /// `{variant: …}`, as `serde_json` writes an enum's data-carrying variant.
    fn variant(&mut self, variant: &str) {
        self.out.extend_from_slice(&[MAP, 1]);
        text(variant, &mut self.out);
    }

    fn int(&mut self, i: i64) {
        if i >= 0 {
            self.out.push(UINT);
            uint(i as u64, &mut self.out);
        } else {
            self.out.push(NEG);
            uint(!i as u64, &mut self.out);
        }
    }

    fn float(&mut self, f: f64) {
        if f.is_finite() {
            self.out.push(FLOAT);
            self.out.extend_from_slice(&f.to_le_bytes());
        } else {
            self.out.push(NULL);
        }
    }
}

impl Compound<'_> {
    fn end(self) -> Result<(), Unsupported> {
        let mut count = Vec::new();
        uint(self.n, &mut count);
        self.w.out.splice(self.at..self.at, count);
        Ok(())
    }

    fn item<T: serde::Serialize + ?Sized>(&mut self, x: &T) -> Result<(), Unsupported> {
        self.n += 1;
        x.serialize(&mut *self.w)
    }

    fn field<T: serde::Serialize + ?Sized>(&mut self, key: &str, x: &T) -> Result<(), Unsupported> {
        self.n += 1;
        text(key, &mut self.w.out);
        x.serialize(&mut *self.w)
    }
}

macro_rules! compound {
    ($($trait:ident, $method:ident;)*) => {$(
        impl serde::ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Unsupported;
            fn $method<T: serde::Serialize + ?Sized>(&mut self, x: &T) -> Result<(), Unsupported> {
                self.item(x)
            }
            fn end(self) -> Result<(), Unsupported> {
                Compound::end(self)
            }
        }
    )*};
}

compound! {
    SerializeSeq, serialize_element;
    SerializeTuple, serialize_element;
    SerializeTupleStruct, serialize_field;
    SerializeTupleVariant, serialize_field;
}

impl serde::ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_key<T: serde::Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Unsupported> {
        self.n += 1;
        key.serialize(Key(&mut self.w.out))
    }
    fn serialize_value<T: serde::Serialize + ?Sized>(&mut self, x: &T) -> Result<(), Unsupported> {
        x.serialize(&mut *self.w)
    }
    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self)
    }
}

impl serde::ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: serde::Serialize + ?Sized>(&mut self, key: &'static str, x: &T) -> Result<(), Unsupported> {
        self.field(key, x)
    }
    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self)
    }
}

impl serde::ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: serde::Serialize + ?Sized>(&mut self, key: &'static str, x: &T) -> Result<(), Unsupported> {
        self.field(key, x)
    }
    fn end(self) -> Result<(), Unsupported> {
        Compound::end(self)
    }
}

impl<'a> serde::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Unsupported> {
        self.out.push(if v { TRUE } else { FALSE });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Unsupported> {
        self.int(v.into());
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Unsupported> {
        self.int(v.into());
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Unsupported> {
        self.int(v.into());
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Unsupported> {
        self.int(v);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), Unsupported> {
        if let Ok(u) = u64::try_from(v) {
            self.serialize_u64(u)
        } else if let Ok(i) = i64::try_from(v) {
            self.serialize_i64(i)
        } else {
            Err(Unsupported(format!("{v} is beyond 64 bits")))
        }
    }
    fn serialize_u8(self, v: u8) -> Result<(), Unsupported> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Unsupported> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Unsupported> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Unsupported> {
        self.out.push(UINT);
        uint(v, &mut self.out);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<(), Unsupported> {
        match u64::try_from(v) {
            Ok(u) => self.serialize_u64(u),
            Err(_) => Err(Unsupported(format!("{v} is beyond 64 bits"))),
        }
    }
    fn serialize_f32(self, v: f32) -> Result<(), Unsupported> {
        self.float(v.into());
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Unsupported> {
        self.float(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Unsupported> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        self.out.push(TEXT);
        text(v, &mut self.out);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Unsupported> {
        use serde::ser::SerializeSeq;
        let mut c = self.open(LIST);
        for b in v {
            c.serialize_element(b)?;
        }
        Compound::end(c)
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        self.serialize_unit()
    }
    fn serialize_some<T: serde::Serialize + ?Sized>(self, x: &T) -> Result<(), Unsupported> {
        x.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        self.out.push(NULL);
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Unsupported> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Unsupported> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: serde::Serialize + ?Sized>(self, _: &'static str, x: &T) -> Result<(), Unsupported> {
        x.serialize(self)
    }
    fn serialize_newtype_variant<T: serde::Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        x: &T,
    ) -> Result<(), Unsupported> {
        self.variant(variant);
        x.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, Unsupported> {
        Ok(self.open(LIST))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a>, Unsupported> {
        Ok(self.open(LIST))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Unsupported> {
        Ok(self.open(LIST))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Unsupported> {
        self.variant(variant);
        Ok(self.open(LIST))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, Unsupported> {
        Ok(self.open(MAP))
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Compound<'a>, Unsupported> {
        if name.starts_with("$serde_json::private::") {
            return Err(Unsupported(format!("{name} is not written on a tape")));
        }
        Ok(self.open(MAP))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Unsupported> {
        self.variant(variant);
        Ok(self.open(MAP))
    }
}

/// A map key: text, as `serde_json` makes it (only the forms a task has; anything else is
/// [`Unsupported`], and the caller writes the `Value` instead).
struct Key<'a>(&'a mut Vec<u8>);

fn no_key<T>() -> Result<T, Unsupported> {
    Err(Unsupported("a map key that is not text".into()))
}

impl serde::Serializer for Key<'_> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = serde::ser::Impossible<(), Unsupported>;
    type SerializeTuple = serde::ser::Impossible<(), Unsupported>;
    type SerializeTupleStruct = serde::ser::Impossible<(), Unsupported>;
    type SerializeTupleVariant = serde::ser::Impossible<(), Unsupported>;
    type SerializeMap = serde::ser::Impossible<(), Unsupported>;
    type SerializeStruct = serde::ser::Impossible<(), Unsupported>;
    type SerializeStructVariant = serde::ser::Impossible<(), Unsupported>;

    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        text(v, self.0);
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Unsupported> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: serde::Serialize + ?Sized>(self, _: &'static str, x: &T) -> Result<(), Unsupported> {
        x.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_i8(self, _: i8) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_i16(self, _: i16) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_i32(self, _: i32) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_i64(self, _: i64) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_u8(self, _: u8) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_u16(self, _: u16) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_u32(self, _: u32) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_u64(self, _: u64) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_f32(self, _: f32) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_f64(self, _: f64) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_char(self, _: char) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_some<T: serde::Serialize + ?Sized>(self, _: &T) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_newtype_variant<T: serde::Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Unsupported> {
        no_key()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        no_key()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Unsupported> {
        no_key()
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Unsupported> {
        no_key()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        no_key()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        no_key()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Unsupported> {
        no_key()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        no_key()
    }
}

/// What is wrong with a tape, and at which byte (formatted only once, in [`said`], so the first
/// download carries one `format!` for them all).
type Fault = (usize, &'static str);

const TOO_DEEP: &str = "nested deeper than 128 levels";
const TOO_MANY: &str = "more than 2097152 values";
const PAST_END: &str = "a length or count runs past the end";
const BEYOND_64: &str = "a whole number beyond 64 bits";

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, Fault> {
        let b = *self.bytes.get(self.at).ok_or((self.at, "truncated"))?;
        self.at += 1;
        Ok(b)
    }

    fn uint(&mut self) -> Result<u64, Fault> {
        let start = self.at;
        let (mut n, mut shift) = (0u64, 0);
        loop {
            let b = self.byte()?;
            // The tenth byte holds the 64th bit alone.
            if shift == 63 && b > 1 {
                return Err((start, BEYOND_64));
            }
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(n);
            }
            shift += 7;
        }
    }

    /// A count of items that take at least `each` bytes apiece, all of them in the bytes left.
    fn count(&mut self, each: usize) -> Result<usize, Fault> {
        let start = self.at;
        let n = self.uint()?;
        match usize::try_from(n) {
            Ok(k) if k <= (self.bytes.len() - self.at) / each => Ok(k),
            _ => Err((start, PAST_END)),
        }
    }

    fn text(&mut self) -> Result<String, Fault> {
        let n = self.count(1)?;
        let at = self.at;
        self.at += n;
        let bytes = self.bytes.get(at..self.at).ok_or((at, PAST_END))?;
        std::str::from_utf8(bytes).map(str::to_owned).map_err(|e| (at + e.valid_up_to(), "bad UTF-8"))
    }
}

/// A list or map being read: what has been read of it, how many items are still to come, and where
/// the key of the value being read starts.
struct Open {
    into: Into,
    left: usize,
    key_at: usize,
}

enum Into {
    List(Vec<Value>),
    /// The map so far and the key of the value being read.
    Map(Map<String, Value>, String),
}

/// Read a tape as the [`Value`] it holds; an error says what is wrong and at which byte
/// (`at byte 812: bad UTF-8`).
pub fn decode(bytes: &[u8]) -> Result<Value, String> {
    match decode_first(bytes)? {
        (v, end) if end == bytes.len() => Ok(v),
        (_, end) => Err(said((end, "bytes after the value"))),
    }
}

/// The value a tape starts with, and the byte where it ends (what follows is left unread).
pub fn decode_first(bytes: &[u8]) -> Result<(Value, usize), String> {
    read(bytes).map_err(said)
}

fn said((at, what): Fault) -> String {
    format!("at byte {at}: {what}")
}

fn read(bytes: &[u8]) -> Result<(Value, usize), Fault> {
    let mut r = Reader { bytes, at: 0 };
    let mut open: Vec<Open> = Vec::new();
    let mut count = 0usize;
    loop {
        let at = r.at;
        count += 1;
        if count > MAX_VALUES {
            return Err((at, TOO_MANY));
        }
        let mut value = match r.byte()? {
            NULL => Some(Value::Null),
            FALSE => Some(Value::Bool(false)),
            TRUE => Some(Value::Bool(true)),
            UINT => Some(Value::from(r.uint()?)),
            NEG => match r.uint()? {
                k if k <= i64::MAX as u64 => Some(Value::from(!(k as i64))),
                _ => return Err((at + 1, BEYOND_64)),
            },
            FLOAT => {
                let bits =
                    bytes.get(at + 1..at + 9).and_then(|b| <[u8; 8]>::try_from(b).ok()).ok_or((at + 1, PAST_END))?;
                r.at += 8;
                let n = Number::from_f64(f64::from_le_bytes(bits)).ok_or((at + 1, "NaN or an infinity"))?;
                Some(Value::Number(n))
            }
            TEXT => Some(Value::String(r.text()?)),
            tag @ (LIST | MAP) => {
                if open.len() >= MAX_DEPTH {
                    return Err((at, TOO_DEEP));
                }
                // A map's field is a key's length and a value's tag at least.
                let n = r.count(if tag == LIST { 1 } else { 2 })?;
                if n > MAX_VALUES - count {
                    return Err((at, TOO_MANY));
                }
                // Nothing reserved: a count the bytes allow but a hostile tape does not fill
                // reserves nothing.
                let into = if tag == LIST { Into::List(Vec::new()) } else { Into::Map(Map::new(), String::new()) };
                open.push(Open { into, left: n, key_at: 0 });
                None
            }
            _ => return Err((at, "unknown tag")),
        };
        // Put what was read into the innermost open list or map, close those it completes, and go
        // on to the next item of the innermost one left (reading its key, in a map).
        loop {
            let Some(top) = open.last_mut() else {
                return Ok((value.unwrap_or(Value::Null), r.at));
            };
            if let Some(v) = value.take() {
                top.left -= 1;
                match &mut top.into {
                    Into::List(l) => l.push(v),
                    Into::Map(m, key) => {
                        if m.insert(std::mem::take(key), v).is_some() {
                            return Err((top.key_at, "a key the map already has"));
                        }
                    }
                }
            }
            if top.left > 0 {
                if let Into::Map(_, key) = &mut top.into {
                    top.key_at = r.at;
                    *key = r.text()?;
                }
                break;
            }
            value = open.pop().map(|o| match o.into {
                Into::List(l) => Value::Array(l),
                Into::Map(m, _) => Value::Object(m),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// Equal as JSON text writes them (so `1` is not `1.0`, `-0.0` not `0.0`) and in the same order.
    fn same(a: &Value, b: &Value) -> bool {
        serde_json::to_vec(a).ok() == serde_json::to_vec(b).ok()
    }

    fn any_float() -> impl Strategy<Value = f64> {
        prop_oneof![
            Just(1.0),
            Just(-0.0),
            Just(0.0),
            Just(1e300),
            Just(-1e-300),
            Just(f64::MIN_POSITIVE),
            Just(5e-324),
            Just(f64::MAX),
            any::<f64>().prop_filter("finite", |f| f.is_finite()),
        ]
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            prop_oneof![Just(u64::MAX), Just(i64::MAX as u64 + 1), Just(0)].prop_map(Value::from),
            Just(Value::from(i64::MIN)),
            any_float().prop_map(|f| Value::Number(Number::from_f64(f).unwrap())),
            ".{0,12}".prop_map(Value::String),
            "[é名🦀\u{0}\n\"]{0,4}".prop_map(Value::String),
        ];
        leaf.prop_recursive(8, 256, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                // Keys in the order drawn (empty ones, unicode, repeats dropped by the map).
                prop::collection::vec((prop_oneof![Just(String::new()), ".{0,6}", "[a-z0-9]{1,3}"], inner), 0..8)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn decode_reads_back_what_encode_writes(v in any_value()) {
            let tape = encode(&v);
            prop_assert_eq!(&to_tape(&v).map_err(|e| TestCaseError::fail(e.to_string()))?, &tape);
            let back = decode(&tape).map_err(TestCaseError::fail)?;
            prop_assert!(same(&back, &v), "{back} != {v}");
            prop_assert_eq!(&back, &v);
        }

        /// Any bytes give a value or a one-line error at a byte of the tape, never a panic.
        #[test]
        fn any_bytes_give_a_value_or_an_error(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            if let Err(e) = decode(&bytes) {
                prop_assert!(e.starts_with("at byte ") && !e.contains('\n'), "{e}");
            }
        }

        /// A flipped byte in a real tape: a value (which the task's reader then judges) or an error.
        #[test]
        fn a_flipped_byte_gives_a_value_or_an_error(v in any_value(), pick in any::<prop::sample::Index>(), x in 1u8..=255) {
            let mut tape = encode(&v);
            let i = pick.index(tape.len());
            tape[i] ^= x;
            if let Err(e) = decode(&tape) {
                prop_assert!(e.starts_with("at byte ") && !e.contains('\n'), "{e}");
            }
        }
    }

    /// Straight from serde, the same bytes as through the `Value`, for anything a `Value` holds (a
    /// `Value` written through its own `Serialize`), and for typed data with every serde form.
    #[test]
    fn to_tape_writes_what_encode_of_to_value_writes() {
        #[derive(serde::Serialize)]
        enum E {
            Unit,
            New(u8),
            Tuple(i32, f32),
            Struct { a: Option<u64>, b: char },
        }
        #[derive(serde::Serialize)]
        struct S<'a> {
            e: Vec<E>,
            keys: std::collections::BTreeMap<&'a str, (i128, u128, f64)>,
            #[serde(skip_serializing_if = "Option::is_none")]
            skipped: Option<u8>,
            bytes: &'a [u8],
            #[serde(flatten)]
            more: std::collections::HashMap<String, ()>,
            nan: f64,
            unit: (),
        }
        let s = S {
            e: vec![
                E::Unit,
                E::New(7),
                E::Tuple(-3, 1.5),
                E::Struct { a: None, b: '名' },
                E::Struct { a: Some(9), b: 'x' },
            ],
            keys: [("", (-5, 5, 1.0)), ("z", (i128::from(i64::MIN), u128::from(u64::MAX), -0.0))].into(),
            skipped: None,
            bytes: b"ab",
            more: [("m".to_string(), ())].into(),
            nan: f64::NAN,
            unit: (),
        };
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(to_tape(&s).unwrap(), encode(&v));
        assert_eq!(decode(&to_tape(&s).unwrap()).unwrap().to_string(), v.to_string());
        assert!(to_tape(&std::collections::BTreeMap::from([(1, 2)])).is_err());
        assert!(to_tape(&(1u128 << 70)).is_err());
    }

    #[test]
    fn floats_integers_and_order_keep_what_they_are() {
        let v = json!({"b": 1, "a": 1.0, "": -0.0, "9": [-3, 18446744073709551615u64, -9223372036854775808i64,
            1e300, 0.1, null, true, false, "", "名"], "1": {}});
        let back = decode(&encode(&v)).unwrap();
        assert_eq!(back.to_string(), v.to_string());
        assert!(back["a"].is_f64() && back["b"].is_u64());
        assert_eq!(back[""].as_f64().unwrap().to_bits(), (-0.0f64).to_bits());
        assert_eq!(encode(&json!(1)), [UINT, 1]);
        assert_eq!(encode(&json!(-1)), [NEG, 0]);
        assert_eq!(encode(&json!(300)), [UINT, 0xac, 0x02]);
    }

    /// What the reader refuses, and where it says the fault is.
    #[test]
    fn damaged_tapes_are_refused_at_their_byte() {
        let bad = |bytes: &[u8], want: &str| {
            let e = decode(bytes).expect_err(want);
            assert_eq!(e, want, "{bytes:?}");
        };
        bad(&[], "at byte 0: truncated");
        bad(&[42], "at byte 0: unknown tag");
        bad(&[LIST, 2, TEXT, 0], "at byte 4: truncated");
        bad(&[LIST, 2, NULL], "at byte 1: a length or count runs past the end");
        bad(&[TEXT, 3, b'a'], "at byte 1: a length or count runs past the end");
        bad(&[TEXT, 3, b'a', 0xc3, 0x28], "at byte 3: bad UTF-8");
        bad(&[UINT, 0x80], "at byte 2: truncated");
        bad(
            &[UINT, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
            "at byte 1: a whole number beyond 64 bits",
        );
        bad(
            &[UINT, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
            "at byte 1: a whole number beyond 64 bits",
        );
        bad(
            &[NEG, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
            "at byte 1: a whole number beyond 64 bits",
        );
        bad(&[FLOAT, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f], "at byte 1: NaN or an infinity");
        bad(&[FLOAT, 0, 0, 0, 0, 0, 0, 0xf0, 0xff], "at byte 1: NaN or an infinity");
        bad(&[FLOAT, 0, 0], "at byte 1: a length or count runs past the end");
        bad(&[NULL, NULL], "at byte 1: bytes after the value");
        bad(&[MAP, 2, 1, b'a', NULL, 1, b'a', TRUE], "at byte 5: a key the map already has");
        bad(&[MAP, 1, 1, b'a'], "at byte 4: truncated");
        bad(&[MAP, 2, 1, b'a', NULL], "at byte 1: a length or count runs past the end");
        // A length of 2^60, as a text, a list and a map.
        let mut big = vec![0u8];
        uint(1 << 60, &mut big);
        for tag in [TEXT, LIST, MAP] {
            big[0] = tag;
            bad(&big, "at byte 1: a length or count runs past the end");
        }
        // The messages' numbers are the bounds'.
        assert!(TOO_DEEP.contains(&format!(" {MAX_DEPTH} ")) && TOO_MANY.ends_with(&format!(" {MAX_VALUES} values")));
    }

    #[test]
    fn depth_and_count_are_bounded() {
        let nested = |depth: usize| {
            let mut t = [LIST, 1].repeat(depth);
            t.push(TRUE);
            t
        };
        assert!(decode(&nested(MAX_DEPTH)).is_ok());
        let e = decode(&nested(MAX_DEPTH + 1)).unwrap_err();
        assert_eq!(e, format!("at byte {}: {TOO_DEEP}", 2 * MAX_DEPTH));
        // A depth bomb: a million lists deep, refused at the first one too many.
        assert!(decode(&nested(1_000_000)).unwrap_err().contains("nested deeper than"));
        // MAX_VALUES in all is read; one more is not.
        let wide = |n: usize| {
            let mut t = vec![LIST];
            uint(n as u64 - 1, &mut t);
            t.resize(t.len() + n - 1, NULL);
            t
        };
        assert!(decode(&wide(MAX_VALUES)).is_ok());
        assert!(decode(&wide(MAX_VALUES + 1)).unwrap_err().ends_with(TOO_MANY));
    }
}
