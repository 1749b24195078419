//! Arbitrary UTF-8 text through `json::parse`; whatever parses has a canonical encoding
//! (spec section 2) that is pure ASCII and a fixed point: parsing it back succeeds,
//! gives the same value, and encodes to the same bytes.
//!
//! Differentially, the parsers that work straight from the text must agree with
//! `parse` + `canonical::encode`, as their docs promise: `json::canonicalize` gives the
//! same bytes (or the same error), and `json::parse_fields` the same members (or the
//! same error).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolreplay_core::canonical;
use toolreplay_core::json::{self, FieldValue, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = json::parse(text);

    let mut streamed = Vec::new();
    let canonicalized = json::canonicalize(text, &mut streamed);
    match (&parsed, &canonicalized) {
        (Ok(value), Ok(kind)) => {
            assert_eq!(*kind, value.kind(), "canonicalize gives the wrong kind");
            let encoded = canonical::encode(value);
            assert!(
                streamed == encoded,
                "canonicalize wrote {:?}, encode(parse) {:?}",
                String::from_utf8_lossy(&streamed),
                String::from_utf8_lossy(&encoded)
            );
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "parse and canonicalize reject differently"),
        (a, b) => panic!("parse gives {a:?} but canonicalize {b:?}"),
    }

    let fields = json::parse_fields(text, &["args", "response"]);
    match (&parsed, &fields) {
        (Ok(Value::Object(members)), Ok(Ok(fields))) => {
            assert_eq!(members.len(), fields.len(), "parse_fields member count");
            for ((key, value), field) in members.iter().zip(fields) {
                assert_eq!(*key, field.key, "parse_fields keys or their order");
                match &field.value {
                    FieldValue::Tree(tree) => assert_eq!(tree, value, "parse_fields tree"),
                    FieldValue::Canonical(bytes, kind) => {
                        assert_eq!(*kind, value.kind(), "parse_fields kind");
                        assert!(
                            *bytes == canonical::encode(value),
                            "parse_fields canonical member {key:?} differs"
                        );
                    }
                    FieldValue::Written(..) => {
                        panic!("parse_fields gives ranges of a buffer it does not return")
                    }
                }
            }
        }
        (Ok(value), Ok(Err(kind))) if !matches!(value, Value::Object(_)) => {
            assert_eq!(*kind, value.kind(), "parse_fields gives the wrong kind");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "parse and parse_fields reject differently"),
        (a, b) => panic!("parse gives {a:?} but parse_fields {b:?}"),
    }

    // parse_fields_in writes the canonical members into a buffer of the caller's,
    // after what it already holds, and gives their ranges: the same bytes.
    let mut scratch = b"kept".to_vec();
    let written = json::parse_fields_in(text, &["args", "response"], &mut scratch);
    assert_eq!(
        &scratch[..4],
        b"kept",
        "parse_fields_in overwrote its buffer"
    );
    match (&fields, &written) {
        (Ok(Ok(owned)), Ok(Ok(ranged))) => {
            assert_eq!(owned.len(), ranged.len(), "parse_fields_in member count");
            for (a, b) in owned.iter().zip(ranged) {
                assert_eq!(a.key, b.key, "parse_fields_in keys or their order");
                match (&a.value, &b.value) {
                    (FieldValue::Tree(x), FieldValue::Tree(y)) => assert_eq!(x, y),
                    (FieldValue::Canonical(bytes, k), FieldValue::Written(range, l)) => {
                        assert_eq!(k, l, "parse_fields_in kind");
                        assert!(
                            scratch.get(range.clone()) == Some(bytes.as_slice()),
                            "parse_fields_in range of {:?} differs",
                            a.key
                        );
                    }
                    (x, y) => panic!("parse_fields gives {x:?} but parse_fields_in {y:?}"),
                }
            }
        }
        (a, b) => assert_eq!(
            a.as_ref().map(|r| r.as_ref().err()),
            b.as_ref().map(|r| r.as_ref().err()),
            "parse_fields and parse_fields_in disagree"
        ),
    }

    let Ok(value) = parsed else {
        return;
    };
    let encoded = canonical::encode(&value);
    assert!(
        encoded.is_ascii(),
        "canonical encoding is not ASCII: {:?}",
        String::from_utf8_lossy(&encoded)
    );
    let encoded_text = std::str::from_utf8(&encoded).expect("ASCII is UTF-8");
    let reparsed = match json::parse(encoded_text) {
        Ok(v) => v,
        Err(err) => panic!("canonical encoding {encoded_text:?} does not parse: {err}"),
    };
    let reencoded = canonical::encode(&reparsed);
    assert!(
        reencoded == encoded,
        "encoding is not idempotent: {encoded_text:?} re-encodes as {:?}",
        String::from_utf8_lossy(&reencoded)
    );
    assert_eq!(reparsed, value, "the canonical encoding loses information");
});
