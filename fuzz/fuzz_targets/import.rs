//! Arbitrary bytes through `import_log`, read as every format: it must never
//! panic, give the same result twice, and whatever it imports must be a strict
//! transcript that the transcript reader takes back unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolreplay_core::{ImportError, ImportFormat as Format, ImportSource as Source, import_log, write_imported_transcript};
use toolreplay_core::parse_canonical_record;

fuzz_target!(|data: &[u8]| {
    let named = Format::ALL.into_iter().map(Source::from);
    for source in std::iter::once(Source::Auto).chain(named) {
        let imported = import_log(data, source);
        assert_eq!(imported, import_log(data, source), "an import is pure");
        let imported = match imported {
            Ok(imported) => imported,
            Err(ImportError::Input(err)) => {
                assert!(err.line >= 1);
                assert!(!err.message.is_empty() && !err.message.contains('\n'));
                continue;
            }
            Err(other) => {
                let message = other.to_string();
                assert!(!message.is_empty() && !message.contains('\n'));
                continue;
            }
        };
        assert_eq!(imported.detected, source == Source::Auto);
        assert!(
            imported.warnings.windows(2).all(|w| w[0].line <= w[1].line),
            "warnings are sorted by line"
        );
        for warning in &imported.warnings {
            assert!(!warning.message.contains('\n'), "warnings are one line");
        }
        let mut transcript = Vec::new();
        write_imported_transcript(&imported.calls, &mut transcript);
        assert!(transcript.is_ascii(), "a transcript is written in ASCII");
        let text = std::str::from_utf8(&transcript).expect("ASCII is UTF-8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), imported.calls.len(), "one record a call");
        for ((index, line), call) in lines.iter().enumerate().zip(&imported.calls) {
            let index = index as u64;
            let record = parse_canonical_record(index + 1, line, index)
                .unwrap_or_else(|err| panic!("record {index} is invalid: {}", err.message));
            assert_eq!(record.tool, call.tool);
            assert_eq!(record.args, call.args, "args are canonical");
            assert_eq!(record.response, call.response, "the response is canonical");
        }
    }
});
