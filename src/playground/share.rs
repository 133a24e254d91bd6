//! "Share with solution": the solution travels in the link's fragment only (never to a server),
//! deflated and base64url-encoded, as `&solution=…` after the spec.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use cabrito_check::response::MAX_RESPONSE_BYTES;

/// The fragment key that carries a solution.
pub const SOLUTION_KEY: &str = "solution";

/// Deflate and base64url-encode (no padding) a solution.
pub fn encode_solution(text: &str) -> String {
    URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9))
}

/// Read a solution back; a one-line reason when the text is not one this app wrote.
pub fn decode_solution(encoded: &str) -> Result<String, String> {
    let packed = URL_SAFE_NO_PAD.decode(encoded.trim()).map_err(|e| match e {
        base64::DecodeError::InvalidByte(_, b) => {
            format!("the solution in the link is damaged: '{}' is not a base64url character", b as char)
        }
        e => format!("the solution in the link is damaged ({e})"),
    })?;
    let raw = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_RESPONSE_BYTES)
        .map_err(|e| format!("the solution in the link is damaged or too large ({:?})", e.status))?;
    String::from_utf8(raw).map_err(|_| "the solution in the link is not UTF-8 text".to_string())
}

/// The solution a fragment carries: `None` when it has none, else the text or why it is unreadable.
pub fn solution_in(fragment: &str) -> Option<Result<String, String>> {
    solution_param(fragment).map(|encoded| decode_solution(&encoded))
}

/// The solution a fragment carries as the link writes it (deflated, base64url; not yet read: the grade
/// panel reads it with [`decode_solution`]).
pub fn solution_param(fragment: &str) -> Option<String> {
    let query = fragment.split_once('?')?.1;
    query.split('&').find_map(|item| {
        let (k, v) = item.split_once('=')?;
        (super::route::decode(k).trim() == SOLUTION_KEY).then(|| super::route::decode(v))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn damaged_data_is_refused_with_a_reason() {
        let enc = encode_solution("def f():\n    return 1\n");
        assert!(decode_solution(&format!("{enc}!")).unwrap_err().contains("'!' is not a base64url character"));
        assert!(decode_solution("é").unwrap_err().contains("not a base64url character"));
        assert!(decode_solution(&enc[..enc.len() / 2]).unwrap_err().contains("damaged"));
        assert!(decode_solution("AAAA").is_err());
        // Empty input is the empty solution only if it inflates: it does not.
        assert!(decode_solution("").is_err());
        // Valid deflate of bytes that are not UTF-8.
        let packed = miniz_oxide::deflate::compress_to_vec(&[0xff, 0xfe, 0x00], 9);
        let text = encode_bytes(&packed);
        assert_eq!(decode_solution(&text).unwrap_err(), "the solution in the link is not UTF-8 text");
    }

    #[test]
    fn a_deflate_bomb_is_refused() {
        // 64 MB of zeros deflate to about 64 KB; the limit is the checker's response limit.
        let packed = miniz_oxide::deflate::compress_to_vec(&vec![b'0'; 64 << 20], 9);
        let err = decode_solution(&encode_bytes(&packed)).unwrap_err();
        assert!(err.contains("too large"), "{err}");
        let just = "x".repeat(MAX_RESPONSE_BYTES);
        assert_eq!(decode_solution(&encode_solution(&just)).map(|s| s.len()), Ok(MAX_RESPONSE_BYTES));
    }

    #[test]
    fn solutions_are_found_in_fragments() {
        let enc = encode_solution("x = 1\n");
        assert_eq!(solution_in("#/task?v=1&n=5"), None);
        assert_eq!(solution_in("#/task"), None);
        assert_eq!(solution_in(&format!("#/task?v=1&solution={enc}")), Some(Ok("x = 1\n".to_string())));
        assert_eq!(solution_in(&format!("#/task?v=1&%73olution={enc}&n=2")), Some(Ok("x = 1\n".to_string())));
        assert!(matches!(solution_in("#/task?solution=%%%"), Some(Err(_))));
    }

    fn encode_bytes(packed: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(packed)
    }

    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        #[test]
        fn any_text_round_trips_in_link_safe_characters(text in "\\PC{0,400}") {
            let enc = encode_solution(&text);
            prop_assert!(enc.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
            prop_assert_eq!(decode_solution(&enc), Ok(text));
        }

        /// Flipping, cutting or appending characters never panics: a reason or some text.
        #[test]
        fn damage_never_panics(text in "\\PC{0,200}", at in 0usize..400, with in 0usize..64, cut in any::<bool>()) {
            let mut enc: Vec<u8> = encode_solution(&text).into_bytes();
            if !enc.is_empty() {
                let i = at % enc.len();
                if cut { enc.truncate(i) } else { enc[i] = ALPHABET[with] }
            }
            let enc = String::from_utf8(enc).unwrap();
            match decode_solution(&enc) {
                Ok(t) => prop_assert!(t.len() <= MAX_RESPONSE_BYTES),
                Err(e) => prop_assert!(e.starts_with("the solution in the link")),
            }
        }
    }
}
