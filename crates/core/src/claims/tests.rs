use super::*;

/// A claim as the tests see it: its text, verdict and atoms' kinds, texts and statuses.
type Checked = (String, ClaimVerdict, Vec<(AtomKind, String, AtomStatus)>);

/// The claims of `answer` (one turn, its prompt before any call) after `calls`
/// (tool, args, response), each claim's verdict and its atoms' statuses.
fn check(calls: &[(&str, &str, &str)], answer: &str) -> Vec<Checked> {
    let last = (calls.len() as u64).checked_sub(1);
    let messages = [
        Message::prompt(None, "Do it."),
        Message::answer(last, answer),
    ];
    let roles = Roles::builtin();
    let mut claims = Claims::new(&messages, &roles);
    for (i, (tool, args, response)) in calls.iter().enumerate() {
        claims.observe(i as u64, tool, args.as_bytes(), response.as_bytes());
    }
    claims
        .finish()
        .claims
        .into_iter()
        .map(|claim| {
            let atoms = claim
                .atoms
                .into_iter()
                .map(|a| (a.kind, a.text, a.status))
                .collect();
            (claim.text, claim.verdict, atoms)
        })
        .collect()
}

fn verdicts(calls: &[(&str, &str, &str)], answer: &str) -> Vec<ClaimVerdict> {
    check(calls, answer)
        .into_iter()
        .map(|(_, v, _)| v)
        .collect()
}

const EDIT: (&str, &str, &str) = ("Edit", r#"{"file_path":"/p/src/lib.rs"}"#, "{}");

fn bash<'a>(command: &'a str, stdout: &'a str) -> (String, String) {
    (
        serde_json::json!({ "command": command }).to_string(),
        serde_json::json!({ "stdout": stdout }).to_string(),
    )
}

#[test]
fn sentences_skip_fences_and_markers_and_code_spans_do_not_end_them() {
    let text = "Done. I ran `cargo test --lib. x`!\n- 1. Updated a.rs\n```\nnot. a claim\n```\n## Next? Yes";
    assert_eq!(
        sentences(text),
        [
            "Done.",
            "I ran `cargo test --lib. x`!",
            "Updated a.rs",
            "Next?",
            "Yes"
        ]
    );
}

#[test]
fn atoms_of_each_kind() {
    let atoms: Vec<(AtomKind, String, bool)> = atoms(
        "I updated `src/lib.rs` and ran `cargo test`: 42 passed, see https://x.example/a. The \"ok\" flag is `true` in conf/app.yaml, 3.5% faster.",
    )
    .into_iter()
    .map(|a| (a.kind, a.text, a.changed))
    .collect();
    use AtomKind::*;
    assert_eq!(
        atoms,
        [
            (Path, "src/lib.rs".to_owned(), true),
            (Command, "cargo test".to_owned(), false),
            (Code, "true".to_owned(), false),
            (Quoted, "ok".to_owned(), false),
            (Url, "https://x.example/a".to_owned(), false),
            (Path, "conf/app.yaml".to_owned(), true),
            (Number, "3.5%".to_owned(), false),
            (Outcome, "42 passed".to_owned(), false),
        ]
    );
    assert!(atoms_free("Thanks, that was quick!"));
    assert!(atoms_free("e.g. and/or pass/fail"));
}

fn atoms_free(sentence: &str) -> bool {
    atoms(sentence).is_empty()
}

#[test]
fn negated_success_is_no_outcome() {
    assert!(atoms("The tests do not pass yet").is_empty());
    let outcome = atoms("2 tests failed")[0].outcome;
    assert_eq!(outcome, Some(Outcome::Failed { count: 2 }));
}

/// A claimed pass after a failing run, in each runner's summary format: the claim
/// is contradicted; after the same runner's passing run, supported.
#[test]
fn a_claimed_pass_after_a_failing_run_of_each_runner() {
    let runners: [(&str, &str, &str); 9] = [
        (
            "cargo test",
            "test result: FAILED. 3 passed; 1 failed; 0 ignored",
            "test result: ok. 4 passed; 0 failed; 0 ignored",
        ),
        (
            "pytest -q",
            "F...\n===== 1 failed, 3 passed in 0.12s =====",
            "....\n===== 4 passed in 0.10s =====",
        ),
        (
            "go test ./...",
            "--- FAIL: TestX (0.00s)\nFAIL\nFAIL\texample.com/x\t0.01s",
            "ok  \texample.com/x\t0.01s",
        ),
        (
            "npx jest",
            "Tests:       1 failed, 3 passed, 4 total",
            "Tests:       4 passed, 4 total",
        ),
        (
            "npx vitest run",
            " Tests  1 failed | 3 passed (4)",
            " Tests  4 passed (4)",
        ),
        (
            "npm test",
            "npm error Test failed.  See above for more details.",
            "> x@1.0.0 test\n> node test.js\nall good",
        ),
        (
            "mix test",
            "Finished in 0.1 seconds\n4 tests, 1 failure",
            "Finished in 0.1 seconds\n4 tests, 0 failures",
        ),
        (
            "mvn test",
            "Tests run: 4, Failures: 1, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE",
            "Tests run: 4, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS",
        ),
        (
            "./gradlew test",
            "4 tests completed, 1 failed\nBUILD FAILED in 2s",
            "BUILD SUCCESSFUL in 2s",
        ),
    ];
    for (command, failing, passing) in runners {
        let (args, bad) = bash(command, failing);
        let calls = [EDIT, ("Bash", args.as_str(), bad.as_str())];
        assert_eq!(
            verdicts(&calls, "All tests pass."),
            [ClaimVerdict::Contradicted],
            "{command}"
        );
        let (args, good) = bash(command, passing);
        let calls = [EDIT, ("Bash", args.as_str(), good.as_str())];
        assert_eq!(
            verdicts(&calls, "All tests pass."),
            [ClaimVerdict::Supported],
            "{command}"
        );
    }
    // make: its error line.
    let (args, bad) = bash("make test", "make: *** [Makefile:3: test] Error 1");
    let calls = [EDIT, ("Bash", args.as_str(), bad.as_str())];
    assert_eq!(
        verdicts(&calls, "The tests pass now."),
        [ClaimVerdict::Contradicted]
    );
    // A non-zero exit code in the response's members.
    let calls = [
        EDIT,
        (
            "run_command",
            r#"{"command":"cargo build"}"#,
            r#"{"exit_code":101,"stdout":""}"#,
        ),
    ];
    assert_eq!(
        verdicts(&calls, "The build succeeds."),
        [ClaimVerdict::Contradicted]
    );
}

#[test]
fn counts_are_held_against_the_run() {
    let (args, out) = bash(
        "cargo test",
        "test result: ok. 40 passed; 0 failed; 0 ignored",
    );
    let calls = [EDIT, ("Bash", args.as_str(), out.as_str())];
    assert_eq!(verdicts(&calls, "42 passed."), [ClaimVerdict::Contradicted]);
    assert_eq!(
        verdicts(&calls, "All 40 tests passed."),
        [ClaimVerdict::Supported]
    );
    let (args, out) = bash("pytest -q", "..\n40 passed in 0.31s");
    let calls = [EDIT, ("Bash", args.as_str(), out.as_str())];
    assert_eq!(
        verdicts(&calls, "40 tests pass."),
        [ClaimVerdict::Supported]
    );
    let (args, out) = bash("pytest", "== 2 failed, 38 passed in 1.0s ==");
    let calls = [("Bash", args.as_str(), out.as_str())];
    assert_eq!(
        verdicts(&calls, "2 tests still fail."),
        [ClaimVerdict::Supported]
    );
    assert_eq!(
        verdicts(&calls, "3 tests still fail."),
        [ClaimVerdict::Contradicted]
    );
}

#[test]
fn no_run_after_the_last_change_contradicts() {
    let (args, out) = bash("cargo test", "test result: ok. 4 passed; 0 failed");
    let calls = [("Bash", args.as_str(), out.as_str()), EDIT];
    let checked = check(&calls, "All tests pass.");
    assert_eq!(checked[0].1, ClaimVerdict::Contradicted);
    assert_eq!(
        verdicts(&[EDIT], "The build succeeds."),
        [ClaimVerdict::Contradicted]
    );
}

#[test]
fn a_claimed_change_to_a_file_never_touched_is_contradicted() {
    let read = ("Read", r#"{"file_path":"/p/src/main.rs"}"#, "{}");
    assert_eq!(
        verdicts(&[EDIT, read], "I updated src/main.rs. I fixed `lib.rs`."),
        [ClaimVerdict::Contradicted, ClaimVerdict::Supported]
    );
    // Read but not said changed: supported by the use.
    assert_eq!(
        verdicts(&[read], "See src/main.rs."),
        [ClaimVerdict::Supported]
    );
    assert_eq!(
        verdicts(&[read], "See src/other.rs."),
        [ClaimVerdict::Unsupported]
    );
}

#[test]
fn a_number_no_call_returned_is_unsupported() {
    let calls = [(
        "Bash",
        r#"{"command":"wc -l a.txt"}"#,
        r#"{"stdout":"1234 a.txt"}"#,
    )];
    assert_eq!(
        verdicts(
            &calls,
            "The file has 1234 lines. It had 123 before. 12345 is wrong."
        ),
        [
            ClaimVerdict::Supported,
            ClaimVerdict::Unsupported,
            ClaimVerdict::Unsupported
        ]
    );
}

#[test]
fn each_atom_kind_is_supported_by_its_rule() {
    let calls = [
        (
            "WebFetch",
            r#"{"url":"https://docs.example/api"}"#,
            r#"{"text":"status \"deprecated\" since v2"}"#,
        ),
        (
            "Bash",
            r#"{"command":"git log --oneline"}"#,
            r#"{"stdout":"abc123 fix parse_args"}"#,
        ),
        ("Read", r#"{"file_path":"/p/README.md"}"#, "{}"),
    ];
    let checked = check(
        &calls,
        "The page https://docs.example/api says \"deprecated\". I ran `git log`, whose top commit is `abc123`, and read README.md.",
    );
    assert_eq!(checked.len(), 2);
    for (text, verdict, atoms) in &checked {
        assert_eq!(*verdict, ClaimVerdict::Supported, "{text}: {atoms:?}");
    }
    let kinds: Vec<AtomKind> = checked
        .iter()
        .flat_map(|c| c.2.iter().map(|a| a.0))
        .collect();
    assert_eq!(
        kinds,
        [
            AtomKind::Quoted,
            AtomKind::Url,
            AtomKind::Command,
            AtomKind::Code,
            AtomKind::Path
        ]
    );
}

/// Evidence counts only up to the answer: a call after it holds nothing.
#[test]
fn calls_after_the_answer_are_no_evidence() {
    let messages = [
        Message::prompt(None, "a"),
        Message::answer(None, "It has 77 lines."),
        Message::prompt(Some(0), "b"),
    ];
    let roles = Roles::builtin();
    let mut claims = Claims::new(&messages, &roles);
    claims.observe(0, "Bash", br#"{"command":"wc"}"#, br#"{"stdout":"77"}"#);
    let report = claims.finish();
    assert_eq!(report.claims[0].verdict, ClaimVerdict::Unsupported);
    assert_eq!(report.turns[0].end_call, Some(1));
}

/// Numbers are matched whole, and each response is searched once, however many
/// claims: a large session stays linear.
#[test]
fn numbers_are_matched_whole() {
    let calls = [(
        "Bash",
        r#"{"command":"x"}"#,
        r#"{"stdout":"v1.42.0 and 4200"}"#,
    )];
    assert_eq!(verdicts(&calls, "42 items."), [ClaimVerdict::Unsupported]);
}

/// A number written with zero decimals is the same number (a calculator's `55.0`),
/// and an amount of money is a number: `$55` is supported by `55.0`; `55.5` and a
/// version `1.0.3` hold other numbers.
#[test]
fn amounts_and_whole_floats_are_numbers() {
    let calls = [(
        "calculate",
        r#"{"expression":"305 - 250"}"#,
        r#"{"content":"55.0"}"#,
    )];
    assert_eq!(
        verdicts(&calls, "The balance is $55."),
        [ClaimVerdict::Supported]
    );
    for other in ["55.5", "55.0.3", "155.0"] {
        let response = format!(r#"{{"content":"{other}"}}"#);
        let calls = [("calculate", r#"{"expression":"x"}"#, response.as_str())];
        assert_eq!(
            verdicts(&calls, "The balance is $55."),
            [ClaimVerdict::Unsupported],
            "{other}"
        );
    }
}

/// A test run whose result the log never recorded (`{"no_result": true}`: Cursor's
/// calls, an interrupted run) neither supports nor contradicts a stated outcome.
#[test]
fn a_run_without_a_result_supports_no_outcome() {
    let calls = [(
        "Bash",
        r#"{"command":"cargo test"}"#,
        r#"{"no_result":true}"#,
    )];
    let checked = check(&calls, "All tests pass.");
    assert_eq!(checked[0].1, ClaimVerdict::Unsupported);
}

/// A function named with its arity (`Tmux.launch/3`) is found by its name: code
/// writes `Tmux.launch(a, b, c)`, never the arity. A path-like span is no function.
#[test]
fn a_function_with_its_arity_is_found_by_its_name() {
    let calls = [(
        "Write",
        r#"{"file_path":"lib/tmux.ex","content":"def launch(a, b, c), do: Tmux.launch(a, b, c)"}"#,
        r#"{"ok":true}"#,
    )];
    assert_eq!(
        verdicts(&calls, "It calls `Tmux.launch/3` now."),
        [ClaimVerdict::Supported]
    );
    assert_eq!(
        verdicts(&calls, "It calls `Tmux.start/3` now."),
        [ClaimVerdict::Unsupported]
    );
}

/// A call whose response says it failed (`is_error` true: a write the user did not
/// allow, an edit whose old text was not found) changed no file: a claim that the
/// file was created is contradicted, naming the failed call, and the call is no
/// change a later run must follow.
#[test]
fn a_failed_write_changes_nothing() {
    let refused = (
        "Write",
        r#"{"file_path":"/p/CLAUDE.md","content":"Notes"}"#,
        r#"{"content":"Claude requested permissions to write to /p/CLAUDE.md, but you haven't granted it yet.","is_error":true}"#,
    );
    let messages = [
        Message::prompt(None, "Do it."),
        Message::answer(Some(0), "I've created a basic CLAUDE.md file."),
    ];
    let roles = Roles::builtin();
    let mut claims = Claims::new(&messages, &roles);
    claims.observe(0, refused.0, refused.1.as_bytes(), refused.2.as_bytes());
    let report = claims.finish();
    let atom = &report.claims[0].atoms[0];
    assert_eq!(report.claims[0].verdict, ClaimVerdict::Contradicted);
    assert_eq!(atom.status, AtomStatus::Contradicted);
    assert_eq!(atom.support, None);
    assert_eq!(atom.against, Some(0));
    assert_eq!(
        atom.reason.as_deref(),
        Some("no call changed it: the call that would have (#0) failed")
    );
    // The same write, done: supported.
    let done = ("Write", refused.1, r#"{"content":"File created"}"#);
    assert_eq!(
        verdicts(&[done], "I've created a basic CLAUDE.md file."),
        [ClaimVerdict::Supported]
    );
    // A failed edit after a passing run is no change the run missed.
    let (args, stdout) = bash("cargo test", "test result: ok. 3 passed; 0 failed");
    let failed_edit = (
        "Edit",
        r#"{"file_path":"/p/src/lib.rs"}"#,
        r#"{"content":"String to replace not found","is_error":true}"#,
    );
    assert_eq!(
        verdicts(
            &[("Bash", args.as_str(), stdout.as_str()), failed_edit],
            "All tests pass."
        ),
        [ClaimVerdict::Supported]
    );
}

/// A number with thousands separators is the number a call writes without them
/// (`$10,519` and a calculator's `10519.0`; a refund `-6594`).
#[test]
fn thousands_separators_are_the_same_number() {
    let calls = [
        ("calculate", r#"{"expression":"6594 + 3925"}"#, "10519.0"),
        ("update", r#"{"id":"X"}"#, r#"{"amount":-6594}"#),
    ];
    assert_eq!(
        verdicts(
            &calls,
            "You saved $10,519. The refund is $6,594. It was $3,538 before."
        ),
        [
            ClaimVerdict::Supported,
            ClaimVerdict::Supported,
            ClaimVerdict::Unsupported
        ]
    );
    // `1,05` is no thousands, nor is `105` the number `10,5`.
    let calls = [("x", "{}", r#"{"n":105}"#)];
    assert_eq!(verdicts(&calls, "It is 10,5."), [ClaimVerdict::Unsupported]);
}

/// A number inside a time (`12:27:05`), a date (`2024-05-27`) or an id joined by
/// `-` or `/` is not that number: a claim's "27" is not supported by a timestamp's
/// minutes.
#[test]
fn a_number_in_a_time_or_date_is_not_the_number() {
    for text in [
        "created 2024-05-09T12:27:05",
        "on 2024-05-27",
        "id 10-27-3",
        "in 27/05",
    ] {
        let response = serde_json::json!({ "text": text }).to_string();
        let calls = [("x", "{}", response.as_str())];
        assert_eq!(
            verdicts(&calls, "There are 27 seats."),
            [ClaimVerdict::Unsupported],
            "{text}"
        );
    }
    let calls = [("x", "{}", r#"{"amount": -27, "t": "27 seats"}"#)];
    assert_eq!(
        verdicts(&calls, "There are 27 seats."),
        [ClaimVerdict::Supported]
    );
    // A longer number is no part of a time or date: a port, a year.
    let calls = [(
        "x",
        "{}",
        r#"{"url": "127.0.0.1:8080", "date": "2024-05-27"}"#,
    )];
    assert_eq!(
        verdicts(&calls, "It listens on 8080. It was 2024."),
        [ClaimVerdict::Supported, ClaimVerdict::Supported]
    );
}

/// A month's name and a day (`May 27`, `Sep. 3` read `Sep 3`) is a date: one atom, found
/// as written or as an ISO date's `-05-27` (not `-05-270`); a day alone in another
/// date, or the day of another month, does not hold it.
#[test]
fn a_month_and_day_is_a_date() {
    let texts: Vec<(AtomKind, String)> =
        atoms("Flights on May 27 and Sep. 3, 2024 cost $80; may 5 is not.")
            .into_iter()
            .map(|a| (a.kind, a.text))
            .collect();
    use AtomKind::Number;
    assert_eq!(
        texts,
        [
            (Number, "May 27".to_owned()),
            (Number, "Sep 3, 2024".to_owned()),
            (Number, "80".to_owned()),
            (Number, "5".to_owned()),
        ]
    );
    let day = |text: &str| {
        let response = serde_json::json!({ "text": text }).to_string();
        verdicts(&[("x", "{}", response.as_str())], "It leaves on May 27.")
    };
    assert_eq!(day("date 2024-05-27"), [ClaimVerdict::Supported]);
    assert_eq!(day("leaves May 27"), [ClaimVerdict::Supported]);
    assert_eq!(day("date 2024-05-270"), [ClaimVerdict::Unsupported]);
    assert_eq!(day("date 2024-06-27"), [ClaimVerdict::Unsupported]);
    assert_eq!(day("seats: 27"), [ClaimVerdict::Unsupported]);
    // With its year, the whole date.
    let dated = |text: &str| {
        let response = serde_json::json!({ "text": text }).to_string();
        verdicts(
            &[("x", "{}", response.as_str())],
            "It leaves on May 27, 2024.",
        )
    };
    assert_eq!(dated("date 2024-05-27"), [ClaimVerdict::Supported]);
    assert_eq!(dated("date 2023-05-27"), [ClaimVerdict::Unsupported]);
}

/// A line that is only an emphasised label (`**Flight Option 1:**`) names what
/// follows and is no claim; a label with a value after it is one.
#[test]
fn an_emphasised_label_is_no_claim() {
    assert_eq!(
        sentences("**Flight Option 1:**\n- **Changes**:\n**Gift Card 7091239**: $157"),
        ["**Gift Card 7091239**: $157"]
    );
}

/// Markdown's emphasis around a number is no part of it: `**7091239**` is the
/// number 7091239.
#[test]
fn emphasis_is_no_part_of_a_word() {
    let texts: Vec<String> = atoms("**Gift Card 7091239**: $157")
        .into_iter()
        .map(|a| a.text)
        .collect();
    assert_eq!(texts, ["7091239", "157"]);
}

/// A product named like a file (`Next.js`, `node.js`) in prose is no path; in a
/// code span, or a file of another name (`App.js`), it is one.
#[test]
fn a_product_name_is_no_path() {
    let paths = |sentence: &str| -> Vec<String> {
        atoms(sentence)
            .into_iter()
            .filter(|a| a.kind == AtomKind::Path)
            .map(|a| a.text)
            .collect()
    };
    assert_eq!(paths("Next.js 15.5.2 on node.js, with App.js."), ["App.js"]);
    assert_eq!(paths("It runs `Next.js`."), ["Next.js"]);
    let calls = [(
        "Read",
        r#"{"file_path":"/p/package.json"}"#,
        r#"{"content":"\"next\": \"15.5.2\""}"#,
    )];
    assert_eq!(
        verdicts(&calls, "Next.js 15.5.2 is used."),
        [ClaimVerdict::Supported]
    );
}
