//! Arbitrary bytes through `transcript::Links` and `chain::Verifier`: they must never
//! panic. And when the bytes are a valid transcript, sealing it with `chain::Sealer`
//! and verifying the sealed bytes must give `Intact` with one link per record, its
//! head the last link's digest (spec sections 5 and 6). `check_sealed`, what
//! `verify` runs, gives the verdict of the walk link by link on any bytes.
//!
//! Differentially, the two ways of reading and sealing a transcript must agree:
//! `Records` + `Sealer::seal` (through values) and `parse_unplaced_with` +
//! `UnsealedLink` + `Sealer::seal_link` (straight from the text, as `seal` does)
//! accept the same inputs and write the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolreplay_core::encode_canonical;
use toolreplay_core::Threads;
use toolreplay_core::check_sealed;
use toolreplay_core::{GENESIS, Sealer, UnsealedLink, Verdict, Verifier};
use toolreplay_core::{Lines, Links, ReadError, Records, parse_unplaced_with};

fuzz_target!(|data: &[u8]| {
    // 1. As a sealed transcript, link by link: stop at the first error.
    let mut verifier = Verifier::new();
    let mut walk_error = None;
    for item in Links::new(data) {
        match item {
            Ok((line, link)) => verifier.check(line, &link),
            Err(err) => {
                walk_error = Some(err);
                break;
            }
        }
    }
    let walked = verifier.finish();
    match &walked {
        Verdict::Intact { head, .. } => assert_eq!(head.len(), 64),
        Verdict::Broken { expected, .. } => assert_eq!(expected.len(), 64),
    }
    // `verify` itself (`check_sealed`: canonical lines checked as they stand, on
    // several threads) gives exactly the verdict of the walk link by link, or the
    // same first input error.
    match (check_sealed(data, None, Threads::default()), walk_error) {
        (Ok(checked), None) => assert_eq!(checked.verdict, walked, "verify and the walk differ"),
        (Err(ReadError::Input(a)), Some(ReadError::Input(b))) => {
            assert_eq!(a, b, "verify and the walk reject differently")
        }
        (Err(_), Some(_)) => {}
        (a, b) => panic!("verify gives {a:?}, the walk {b:?}"),
    }

    // 2. As a transcript, both ways; they must agree.
    let records = Records::new(data)
        .map(|item| item.map(|(_, record)| record))
        .collect::<Result<Vec<_>, _>>();
    let mut canonical_records = Vec::new();
    let mut canonical_error = None;
    let mut lines = Lines::new(data);
    loop {
        match lines.next_line() {
            Ok(Some((line, text))) => {
                let unsealed = parse_unplaced_with(line, text, |r| {
                    UnsealedLink::new(r.index, r.tool, r.args, r.response)
                })
                .and_then(|unplaced| {
                    unplaced.place(canonical_records.len() as u64)?;
                    Ok(unplaced.value)
                });
                match unsealed {
                    Ok(link) => canonical_records.push(link),
                    Err(err) => {
                        canonical_error = Some(ReadError::Input(err));
                        break;
                    }
                }
            }
            Ok(None) => break,
            Err(err) => {
                canonical_error = Some(err);
                break;
            }
        }
    }
    let records = match (records, canonical_error) {
        (Ok(records), None) => records,
        (Err(ReadError::Input(a)), Some(ReadError::Input(b))) => {
            assert_eq!(a, b, "the two readers reject differently");
            return;
        }
        (Err(_), Some(_)) => return,
        (a, b) => panic!("Records gives {a:?}, parse_unplaced_with {b:?}"),
    };
    assert_eq!(records.len(), canonical_records.len());

    let mut sealer = Sealer::new();
    let mut sealed = Vec::new();
    for record in &records {
        let start = sealed.len();
        sealer.seal(record, &mut sealed);
        let line = &sealed[start..];
        assert!(
            line.ends_with(b"\n") && line.is_ascii(),
            "a sealed line is ASCII and ends with LF"
        );
        assert_eq!(
            line.iter().filter(|&&b| b == b'\n').count(),
            1,
            "one sealed line per record"
        );
    }
    if records.is_empty() {
        assert!(
            sealed.is_empty(),
            "an empty transcript seals to empty output"
        );
    }
    let mut canonical_sealer = Sealer::new();
    let mut canonical_sealed = Vec::new();
    for mut link in canonical_records {
        canonical_sealer.seal_link(&mut link);
        canonical_sealed.extend_from_slice(link.as_ref());
    }
    assert!(
        sealed == canonical_sealed,
        "seal and seal_link differ:\n{}\n{}",
        String::from_utf8_lossy(&sealed),
        String::from_utf8_lossy(&canonical_sealed)
    );

    let mut verifier = Verifier::new();
    let mut links = 0u64;
    let mut last_digest = GENESIS.to_owned();
    for item in Links::new(&sealed[..]) {
        let (line, link) = match item {
            Ok(found) => found,
            Err(err) => panic!(
                "sealed output does not read back: {err:?}\n{}",
                String::from_utf8_lossy(&sealed)
            ),
        };
        assert_eq!(line, links + 1, "sealed output has no blank lines");
        assert_eq!(
            &*link.index,
            links.to_string(),
            "link index is its position"
        );
        let record = &records[links as usize];
        assert_eq!(link.tool, record.tool, "link tool");
        assert!(link.args == encode_canonical(&record.args), "link args");
        assert!(
            link.response == encode_canonical(&record.response),
            "link response"
        );
        verifier.check(line, &link);
        last_digest = link.digest;
        links += 1;
    }
    assert_eq!(links, records.len() as u64, "one link per record");
    match verifier.finish() {
        Verdict::Intact { links, head } => {
            assert_eq!(
                links,
                records.len() as u64,
                "intact chain has the wrong length"
            );
            assert_eq!(head, last_digest, "intact chain has the wrong head");
        }
        broken => panic!(
            "a freshly sealed transcript does not verify: {broken:?}\n{}",
            String::from_utf8_lossy(&sealed)
        ),
    }
});
