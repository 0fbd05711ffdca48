//! A JSON object shaped from the fuzzer's bytes: one of a target's valid bodies (or `{}`),
//! then fields set or removed, with names and string values mostly taken from the target's
//! tables (the fields its parsers read, words they accept) and values of every JSON kind
//! otherwise. Raw bytes rarely form a JSON object with the right fields, so without this
//! the parsers' accepting paths would hardly ever run.

use serde_json::{Map, Number, Value};

/// The bytes, read from the front.
pub struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self(data)
    }

    fn byte(&mut self) -> Option<u8> {
        let (first, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(*first)
    }

    fn take(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.0.len());
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head
    }

    fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        for (o, b) in out.iter_mut().zip(self.take(N)) {
            *o = *b;
        }
        out
    }
}

/// One value: null, a boolean, a small or any integer, any float, a word of `words`, a
/// word with bytes appended, text from the bytes, or (to `depth`) an array or an object.
pub fn value(r: &mut Reader<'_>, keys: &[&str], words: &[&str], depth: u8) -> Value {
    let Some(kind) = r.byte() else {
        return Value::Null;
    };
    let pick = |r: &mut Reader<'_>| words[usize::from(r.byte().unwrap_or(0)) % words.len()];
    match kind % 10 {
        0 => Value::Null,
        1 => Value::Bool(kind & 0x80 != 0),
        2 => Value::from(i64::from(i16::from_le_bytes(r.array::<2>()))),
        3 => Value::from(i64::from_le_bytes(r.array::<8>())),
        4 => {
            Number::from_f64(f64::from_le_bytes(r.array::<8>())).map_or(Value::Null, Value::Number)
        }
        5 | 6 => Value::from(pick(r)),
        7 => {
            let word = pick(r);
            let n = usize::from(r.byte().unwrap_or(0));
            let tail = String::from_utf8_lossy(r.take(n)).into_owned();
            Value::from(format!("{word}{tail}"))
        }
        8 if depth > 0 => {
            let n = usize::from(r.byte().unwrap_or(0) % 4);
            Value::Array((0..n).map(|_| value(r, keys, words, depth - 1)).collect())
        }
        9 if depth > 0 => Value::Object(fields(r, keys, words, depth - 1)),
        _ => {
            let n = usize::from(r.byte().unwrap_or(0));
            Value::from(String::from_utf8_lossy(r.take(n)).into_owned())
        }
    }
}

fn key(r: &mut Reader<'_>, keys: &[&str]) -> String {
    match r.byte() {
        Some(k) if k >= 250 => {
            let len = usize::from(r.byte().unwrap_or(0) % 16);
            String::from_utf8_lossy(r.take(len)).into_owned()
        }
        k => keys[usize::from(k.unwrap_or(0)) % keys.len()].to_owned(),
    }
}

/// Up to 7 fields, each named from `keys` (or, now and then, from the bytes).
pub fn fields(r: &mut Reader<'_>, keys: &[&str], words: &[&str], depth: u8) -> Map<String, Value> {
    let mut map = Map::new();
    let n = r.byte().unwrap_or(0) % 8;
    for _ in 0..n {
        let k = key(r, keys);
        let v = value(r, keys, words, depth);
        map.insert(k, v);
    }
    map
}

/// One of `bases` (JSON objects; past the list, `{}`), then up to 7 changes: a field
/// removed or set.
pub fn object(
    r: &mut Reader<'_>,
    bases: &[&str],
    keys: &[&str],
    words: &[&str],
) -> Map<String, Value> {
    let chosen = usize::from(r.byte().unwrap_or(0)) % (bases.len() + 1);
    let mut map: Map<String, Value> = bases
        .get(chosen)
        .and_then(|b| serde_json::from_str(b).ok())
        .unwrap_or_default();
    let n = r.byte().unwrap_or(0) % 8;
    for _ in 0..n {
        let op = r.byte().unwrap_or(0);
        let k = key(r, keys);
        if op < 64 {
            map.remove(&k);
        } else {
            let v = value(r, keys, words, 2);
            map.insert(k, v);
        }
    }
    map
}
