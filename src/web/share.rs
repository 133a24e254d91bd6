//! "Share with solution": the solution travels in the link's fragment only (never to a server),
//! deflated and base64url-encoded, as `&solution=…` after the spec.

use crate::check::response::MAX_RESPONSE_BYTES;

/// The fragment key that carries a solution.
pub const SOLUTION_KEY: &str = "solution";

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Deflate and base64url-encode (no padding) a solution.
pub fn encode_solution(text: &str) -> String {
    let packed = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9);
    let mut out = String::with_capacity(packed.len() * 4 / 3 + 4);
    for chunk in packed.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// Read a solution back; a one-line reason when the text is not one this app wrote.
pub fn decode_solution(encoded: &str) -> Result<String, String> {
    let mut bits: u32 = 0;
    let mut count = 0;
    let mut packed = Vec::with_capacity(encoded.len() * 3 / 4);
    for c in encoded.trim().bytes() {
        let v = ALPHABET.iter().position(|&a| a == c).ok_or_else(|| {
            format!("the solution in the link is damaged: '{}' is not a base64url character", c as char)
        })? as u32;
        bits = bits << 6 | v;
        count += 6;
        if count >= 8 {
            count -= 8;
            packed.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    let raw = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_RESPONSE_BYTES)
        .map_err(|e| format!("the solution in the link is damaged or too large ({:?})", e.status))?;
    String::from_utf8(raw).map_err(|_| "the solution in the link is not UTF-8 text".to_string())
}

/// The solution a fragment carries: `None` when it has none, else the text or why it is unreadable.
pub fn solution_in(fragment: &str) -> Option<Result<String, String>> {
    let query = fragment.split_once('?')?.1;
    query.split('&').find_map(|item| {
        let (k, v) = item.split_once('=')?;
        (super::route::decode(k).trim() == SOLUTION_KEY).then(|| decode_solution(&super::route::decode(v)))
    })
}
