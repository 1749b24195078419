//! The findings' encoding read back and their words.

use crate::finding::{
    ArgumentViolation, Budget, BudgetExceeded, CommandProblem, Finding, FindingKind, Findings,
    FlowViolation, PathProblem, SensitiveResponse, UrlProblem, finding_message, quote_name,
};

/// A finding of every kind and payload, with indices past 32 bits.
fn every_kind() -> Vec<FindingKind> {
    use ArgumentViolation as A;
    let path = |problem| {
        FindingKind::ArgumentViolation(A::Path {
            rule: 3,
            argument: "/path".into(),
            problem,
        })
    };
    let url = |problem| {
        FindingKind::ArgumentViolation(A::Url {
            rule: usize::MAX,
            argument: "/url".into(),
            problem,
        })
    };
    let command = |problem| {
        FindingKind::ArgumentViolation(A::Command {
            rule: 2,
            argument: "/command".into(),
            problem,
        })
    };
    vec![
        FindingKind::NonDeterminism { first: u64::MAX },
        FindingKind::RedundantCall { previous: 1 << 40 },
        FindingKind::PermissionOverreach,
        FindingKind::ArgumentViolation(A::Unreadable { reason: "r".into() }),
        FindingKind::ArgumentViolation(A::Schema {
            argument: "".into(),
            keyword: "/type".into(),
        }),
        FindingKind::ArgumentViolation(A::SchemaCannotEvaluate {
            argument: "/n".into(),
        }),
        path(PathProblem::NotAString),
        path(PathProblem::Nul),
        path(PathProblem::EscapesRoot),
        path(PathProblem::OutsideRoot {
            path: "/etc".into(),
            root: "/work".into(),
        }),
        path(PathProblem::Denied {
            path: ".env".into(),
            glob: "**/.env".into(),
        }),
        path(PathProblem::NotAllowed {
            path: "é😀".into()
        }),
        url(UrlProblem::NotAString),
        url(UrlProblem::Invalid),
        url(UrlProblem::Scheme {
            scheme: "sftp".into(),
        }),
        url(UrlProblem::NoHost),
        url(UrlProblem::HostUnreadable { host: "%zz".into() }),
        url(UrlProblem::HostAmbiguous {
            whatwg: "a".into(),
            rfc: Some("b".into()),
        }),
        url(UrlProblem::HostAmbiguous {
            whatwg: "".into(),
            rfc: None,
        }),
        url(UrlProblem::Denied {
            host: "evil.com".into(),
            pattern: "*.com".into(),
        }),
        url(UrlProblem::NotAllowed { host: "x".into() }),
        command(CommandProblem::NotAString),
        command(CommandProblem::TooLong { limit: 65536 }),
        command(CommandProblem::Unparseable {
            reason: "syntax error".into(),
        }),
        command(CommandProblem::TooDeep { limit: 16 }),
        command(CommandProblem::UnknownProgram {
            command: "$X a".into(),
        }),
        command(CommandProblem::Denied {
            command: "rm -rf /".into(),
            within: Some("sudo rm -rf /".into()),
            pattern: "rm **".into(),
        }),
        command(CommandProblem::Denied {
            command: "rm -rf /".into(),
            within: None,
            pattern: "rm **".into(),
        }),
        command(CommandProblem::NotAllowed {
            command: "curl x".into(),
            within: None,
        }),
        command(CommandProblem::NotAllowed {
            command: "curl x".into(),
            within: Some("bash -c \"curl x\"".into()),
        }),
        command(CommandProblem::Protected {
            path: ".claude/settings.json".into(),
            glob: ".claude/**".into(),
        }),
        FindingKind::BudgetExceeded(BudgetExceeded {
            budget: Budget::Total,
            call: 8,
            limit: 7,
        }),
        FindingKind::BudgetExceeded(BudgetExceeded {
            budget: Budget::PerTool,
            call: u64::MAX,
            limit: 0,
        }),
        FindingKind::BudgetExceeded(BudgetExceeded {
            budget: Budget::PerRole(crate::graph::PolicyRole::Mcp),
            call: 3,
            limit: 2,
        }),
        FindingKind::ArgumentViolation(A::ByRole {
            role: crate::graph::PolicyRole::FileWrite,
            violation: Box::new(A::ByRole {
                role: crate::graph::PolicyRole::Shell,
                violation: Box::new(A::Url {
                    rule: 1,
                    argument: "/prompt".into(),
                    problem: UrlProblem::Invalid,
                }),
            }),
        }),
        FindingKind::SensitiveResponse(SensitiveResponse::Match {
            pointer: "/t".into(),
            in_key: true,
            detector: "secrets".into(),
        }),
        FindingKind::SensitiveResponse(SensitiveResponse::Unscannable {
            reason: "deep".into(),
        }),
        FindingKind::FlowViolation(FlowViolation {
            flow: "web".into(),
            source: 5_000_000_000,
            source_tool: "fetch".into(),
        }),
    ]
}

/// Findings read back as they were pushed, past the memory bound (in the
/// temporary file, then the pending bytes), with 64-bit indices kept whole.
#[test]
fn findings_read_back_in_order_past_memory() {
    let kinds = every_kind();
    let made: Vec<Finding> = (0..120_000u64)
        .map(|i| Finding {
            index: i << 33,
            tool: format!("tool-{}", i % 7),
            kind: kinds[(i as usize) % kinds.len()].clone(),
            line: u64::MAX - i,
            call: [(i % 251) as u8; 32],
        })
        .collect();
    let mut findings = Findings::new();
    for finding in &made {
        findings.push(finding);
    }
    assert!(findings.bytes.is_in_file(), "past the bound, in a file");
    assert_eq!(findings.len(), made.len() as u64);
    assert_eq!(findings.to_vec().expect("read back"), made);
    // Into one finding, each in turn: every kind after every other.
    let mut each = made.iter();
    findings
        .read_each(|f| {
            assert_eq!(Some(f), each.next());
            Ok(())
        })
        .expect("read back");
    assert!(each.next().is_none(), "every finding read");
    // Twice, and while another read is under way.
    let mut first = findings.iter();
    let _ = first.next();
    assert_eq!(findings.iter().count(), made.len());
    let odd = findings
        .rewrite(|f| ((f.index >> 33) % 2 == 1).then_some(f))
        .expect("rewritten");
    assert_eq!(odd.len(), made.len() as u64 / 2);
    assert_eq!(odd.iter().next().expect("one").expect("read"), made[1]);
}

/// Numbers are written as `{}` writes them.
#[test]
fn numbers_are_written_in_decimal() {
    for value in [0, 7, 10, 99, 100, 4_294_967_296, u64::MAX - 1, u64::MAX] {
        let mut out = String::from("at ");
        crate::finding::push_u64(value, &mut out);
        assert_eq!(out, format!("at {value}"));
    }
}

/// A finding longer than what is read at a time reads back whole, between short
/// ones, from memory and from the file; `push_call` stores what `push` does.
#[test]
fn findings_longer_than_a_read_read_back_whole() {
    let long = Finding {
        index: 1,
        tool: "t".repeat(3 * super::READ_BYTES + 5),
        kind: FindingKind::SensitiveResponse(SensitiveResponse::Unscannable {
            reason: "r".repeat(super::READ_BYTES).into(),
        }),
        line: 2,
        call: [7; 32],
    };
    let short = |index: u64| Finding {
        index,
        tool: "read_file".into(),
        kind: FindingKind::RedundantCall { previous: 0 },
        line: index + 1,
        call: [1; 32],
    };
    let mut made = Vec::new();
    let mut findings = Findings::new();
    for i in 0..200_000u64 {
        let finding = if i % 50_000 == 7 {
            long.clone()
        } else {
            short(i)
        };
        if i % 2 == 0 {
            findings.push(&finding);
        } else {
            findings.push_call(
                finding.index,
                finding.line,
                &finding.call,
                &finding.tool,
                &finding.kind,
            );
        }
        made.push(finding);
    }
    assert!(findings.bytes.is_in_file(), "past the bound, in a file");
    assert_eq!(findings.to_vec().expect("read back"), made);
}

/// A store cut short, or holding bytes that are no finding, reads back as an
/// error after the findings before the damage, never as fewer findings.
#[test]
fn damaged_findings_read_back_as_an_error() {
    let mut findings = Findings::new();
    for kind in every_kind() {
        findings.push(&Finding {
            index: 3,
            tool: "t".into(),
            kind,
            line: 4,
            call: [0; 32],
        });
    }
    let whole = findings.to_vec().expect("read back");
    let mut cut = Findings::from_vec(whole.clone());
    let len = cut.bytes.memory().len();
    cut.bytes.memory().truncate(len - 1);
    let read: Vec<_> = cut.iter().collect();
    assert_eq!(read.len(), whole.len());
    assert!(read[..whole.len() - 1].iter().all(Result::is_ok));
    let err = read.last().expect("one").as_ref().expect_err("cut short");
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    let mut each = 0;
    let err = cut.read_each(|_| {
        each += 1;
        Ok(())
    });
    assert_eq!(each, whole.len() - 1, "all but the cut one");
    assert_eq!(
        err.map_err(|e| e.kind()),
        Err(std::io::ErrorKind::UnexpectedEof)
    );
    let mut bad = Findings::from_vec(whole);
    // The kind of the first finding: no kind has this number.
    bad.bytes.memory()[2 + 32 + 2] = 99;
    let err = bad.iter().next().expect("one").expect_err("corrupt");
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
}

#[test]
fn parked_findings_keep_little_memory_and_read_back_whole() {
    let kinds = every_kind();
    let made = |count: u64| -> Vec<Finding> {
        (0..count)
            .map(|i| Finding {
                index: i,
                tool: format!("tool-{}", i % 3),
                kind: kinds[(i as usize) % kinds.len()].clone(),
                line: i + 1,
                call: [(i % 13) as u8; 32],
            })
            .collect()
    };
    // A few: they stay in memory, the spare capacity given back.
    let few = made(3);
    let mut small = Findings::from_vec(few.clone());
    small.park();
    assert!(!small.bytes.is_in_file(), "under the bound, in memory");
    let memory = small.bytes.memory();
    assert_eq!(memory.capacity(), memory.len());
    assert_eq!(small.to_vec().expect("read back"), few);
    // More than the parked bound, less than the memory bound: to the file.
    let many = made(20_000);
    let mut large = Findings::from_vec(many.clone());
    assert!(
        !large.bytes.is_in_file(),
        "under the memory bound until parked"
    );
    large.park();
    assert!(large.bytes.is_in_file(), "parked past its bound, in a file");
    assert!(large.bytes.memory().capacity() <= Findings::PARKED_BYTES);
    assert_eq!(large.to_vec().expect("read back"), many);
}

/// What only a caller that hands over something else than a canonical encoding
/// can meet: the checks fail closed, and say why.
#[test]
fn what_cannot_be_read_is_said() {
    let finding = |kind| Finding {
        index: 0,
        tool: "t".to_owned(),
        kind,
        line: 1,
        call: [0; 32],
    };
    let unreadable = finding(FindingKind::ArgumentViolation(
        ArgumentViolation::Unreadable {
            reason: "invalid UTF-8: byte 0xff at column 1".into(),
        },
    ));
    assert_eq!(
        finding_message(&unreadable, "a"),
        "tool 't' arguments cannot be read: invalid UTF-8: byte 0xff at column 1"
    );
    let unscannable = finding(FindingKind::SensitiveResponse(
        SensitiveResponse::Unscannable {
            reason: "invalid JSON: unterminated string, found end of input at column 7".into(),
        },
    ));
    assert_eq!(
        finding_message(&unscannable, "a"),
        "tool 't' response cannot be scanned: invalid JSON: unterminated string, found end of input at column 7"
    );
}

#[test]
fn names_are_quoted_on_one_line() {
    assert_eq!(quote_name("read_file"), "'read_file'");
    assert_eq!(quote_name("it's"), r"'it\'s'");
    assert_eq!(quote_name(r"a\b"), r"'a\\b'");
    assert_eq!(
        quote_name("a\nb\u{7f}\u{85}\u{2028}\u{2029}"),
        r"'a\u000ab\u007f\u0085\u2028\u2029'"
    );
    assert_eq!(quote_name("é😀\u{a0}"), "'é😀\u{a0}'");
}

/// Characters that reorder or hide text are shown as escapes, so a name reads as
/// what it is: `evil\u{202e}txt.exe` cannot pass for `evilexe.txt`.
#[test]
fn bidi_and_zero_width_characters_are_escaped() {
    assert_eq!(
        quote_name("a\u{202e}b\u{2066}\u{2067}\u{2068}\u{2069}c"),
        r"'a\u202eb\u2066\u2067\u2068\u2069c'"
    );
    assert_eq!(
        quote_name("\u{200b}\u{200c}\u{200d}\u{200e}\u{200f}\u{61c}\u{feff}\u{ad}\u{2060}"),
        r"'\u200b\u200c\u200d\u200e\u200f\u061c\ufeff\u00ad\u2060'"
    );
    assert_eq!(quote_name("\u{1b}[31mred"), r"'\u001b[31mred'");
    // Visible characters around them are kept.
    assert_eq!(
        quote_name("\u{2010}\u{2030}\u{2070}"),
        "'\u{2010}\u{2030}\u{2070}'"
    );
}

#[test]
fn rules_of_roles_are_named_after_their_entry() {
    use crate::graph::PolicyRole;
    let finding = |kind| Finding {
        index: 4,
        line: 5,
        tool: "shell".into(),
        kind,
        call: [0; 32],
    };
    let violation = FindingKind::ArgumentViolation(ArgumentViolation::ByRole {
        role: PolicyRole::Shell,
        violation: Box::new(ArgumentViolation::Command {
            rule: 0,
            argument: "/command".into(),
            problem: CommandProblem::NotAString,
        }),
    });
    assert_eq!(
        finding_message(&finding(violation), "a"),
        "tool 'shell' argument '/command' is not a string (tools['role:shell'].commands[0])"
    );
    let budget = FindingKind::BudgetExceeded(BudgetExceeded {
        budget: Budget::PerRole(PolicyRole::FileRead),
        call: 3,
        limit: 2,
    });
    assert_eq!(
        finding_message(&finding(budget), "a"),
        "tool 'shell' is call 3 to a tool of role 'file-read', over its budget of 2 (budgets.per_tool['role:file-read'])"
    );
}
