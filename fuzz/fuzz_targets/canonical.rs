//! Arbitrary UTF-8 text through `parse_json`; whatever parses has a canonical encoding
//! (spec section 2) that is pure ASCII and a fixed point: parsing it back succeeds,
//! gives the same value, and encodes to the same bytes.
//!
//! Differentially, the parsers that work straight from the text must agree with
//! `parse` + `encode_canonical`, as their docs promise: `canonicalize_json` gives the
//! same bytes (or the same error), and `parse_fields_in` the same members (or
//! the same error).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolreplay_core::encode_canonical;
use toolreplay_core::{FieldValue, ObjectError, Value, canonicalize_json, parse_fields_in, parse_json};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = parse_json(text);

    let mut streamed = Vec::new();
    let canonicalized = canonicalize_json(text, &mut streamed);
    match (&parsed, &canonicalized) {
        (Ok(value), Ok(json_type)) => {
            assert_eq!(
                *json_type,
                value.json_type(),
                "canonicalize gives the wrong type"
            );
            let encoded = encode_canonical(value);
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

    // parse_fields_in writes the canonical members into a buffer of the caller's,
    // after what it already holds, gives their ranges, and parses the others into
    // trees: the same members as parse, in the same order.
    let mut scratch = b"kept".to_vec();
    let fields = parse_fields_in(text, &["args", "response"], &mut scratch);
    assert_eq!(
        &scratch[..4],
        b"kept",
        "parse_fields_in overwrote its buffer"
    );
    match (&parsed, &fields) {
        (Ok(Value::Object(members)), Ok(fields)) => {
            assert_eq!(members.len(), fields.len(), "parse_fields_in member count");
            for ((key, value), field) in members.iter().zip(fields) {
                assert_eq!(*key, field.key, "parse_fields_in keys or their order");
                let canonical = key == "args" || key == "response";
                match &field.value {
                    FieldValue::Tree(tree) => {
                        assert!(!canonical, "parse_fields_in parsed {key:?} into a tree");
                        assert_eq!(tree, value, "parse_fields_in tree");
                    }
                    FieldValue::Written(range, json_type) => {
                        assert!(canonical, "parse_fields_in wrote {key:?}");
                        assert_eq!(*json_type, value.json_type(), "parse_fields_in type");
                        assert!(
                            scratch.get(range.clone()) == Some(encode_canonical(value).as_slice()),
                            "parse_fields_in canonical member {key:?} differs"
                        );
                    }
                }
            }
        }
        (Ok(value), Err(ObjectError::NotAnObject(json_type)))
            if !matches!(value, Value::Object(_)) =>
        {
            assert_eq!(
                *json_type,
                value.json_type(),
                "parse_fields_in gives the wrong type"
            );
        }
        (Err(a), Err(ObjectError::Json(b))) => {
            assert_eq!(a, b, "parse and parse_fields_in reject differently")
        }
        (a, b) => panic!("parse gives {a:?} but parse_fields_in {b:?}"),
    }

    let Ok(value) = parsed else {
        return;
    };
    let encoded = encode_canonical(&value);
    assert!(
        encoded.is_ascii(),
        "canonical encoding is not ASCII: {:?}",
        String::from_utf8_lossy(&encoded)
    );
    let encoded_text = std::str::from_utf8(&encoded).expect("ASCII is UTF-8");
    let reparsed = match parse_json(encoded_text) {
        Ok(v) => v,
        Err(err) => panic!("canonical encoding {encoded_text:?} does not parse: {err}"),
    };
    let reencoded = encode_canonical(&reparsed);
    assert!(
        reencoded == encoded,
        "encoding is not idempotent: {encoded_text:?} re-encodes as {:?}",
        String::from_utf8_lossy(&reencoded)
    );
    assert_eq!(reparsed, value, "the canonical encoding loses information");
});
