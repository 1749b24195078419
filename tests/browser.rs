//! The HTML report in a real browser: headless Chromium loads the page from disk,
//! runs its script, and the DOM after load is checked: the summary's counts, a
//! call's detail, an artifact's lineage, no script error and no request blocked by
//! the page's Content-Security-Policy (the page records both in the DOM).
//!
//! Chromium (Debian's `chromium`) is not needed for `cargo test`: these tests are
//! ignored, and `.ci/run` installs it and runs them with `cargo test -- --ignored`,
//! where a missing browser is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use insta::assert_snapshot;
use serde_json::{Value, json};

use crate::cli::claims::live_session;
use crate::cli::{Dir, lines, record, run_in_root};

/// The flags every run of Chromium gets.
const CHROMIUM: [&str; 7] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
];

/// Saves a screenshot of `page` at `#fragment` as
/// `target/report-screenshots/NAME.png`, for people to look at (never compared).
fn screenshot(page: &Path, fragment: &str, name: &str) -> PathBuf {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/report-screenshots");
    std::fs::create_dir_all(&folder).expect("the screenshots' folder");
    let shot = folder.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&shot);
    let profile = tempfile::TempDir::new().expect("profile directory");
    let output = Command::new("chromium")
        .args(CHROMIUM)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--window-size=1400,1600")
        .arg("--hide-scrollbars")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}#{fragment}", page.display()))
        .output()
        .expect("run chromium (apt-get install chromium)");
    assert!(output.status.success(), "chromium failed: {output:?}");
    let bytes = std::fs::read(&shot).expect("a screenshot");
    assert!(
        bytes.starts_with(b"\x89PNG"),
        "not a PNG: {}",
        shot.display()
    );
    shot
}

/// How many times `needle` occurs in `dom`.
fn count(dom: &str, needle: &str) -> usize {
    dom.matches(needle).count()
}

/// The DOM of `page` (a file) opened at `#fragment`, after load.
fn dump_dom(page: &Path, fragment: &str) -> String {
    let profile = tempfile::TempDir::new().expect("profile directory");
    let url = format!("file://{}#{fragment}", page.display());
    let output = Command::new("chromium")
        .args(CHROMIUM)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("run chromium (apt-get install chromium)");
    assert!(output.status.success(), "chromium failed: {output:?}");
    let dom = String::from_utf8(output.stdout).expect("UTF-8 DOM");
    assert!(
        dom.contains("data-ready=\"true\""),
        "the page's script did not finish"
    );
    assert!(
        !dom.contains("data-errors="),
        "the page recorded errors: {}",
        text_of(&dom, "errors")
    );
    assert!(dom.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-"
    ));
    dom
}

/// The text of the element with `id` (up to the end of its section or block),
/// tags dropped, block ends as line breaks.
fn text_of(dom: &str, id: &str) -> String {
    let start = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no element {id}"));
    let start = start + dom[start..].find('>').expect("tag end") + 1;
    let end = start
        + ["</h2>", "</section>", "</main>", "</body>"]
            .iter()
            .filter_map(|close| dom[start..].find(close))
            .min()
            .expect("an end");
    let mut text = String::new();
    let mut rest = &dom[start..end];
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        let close = open + rest[open..].find('>').expect("tag end");
        let tag = &rest[open + 1..close];
        if [
            "/li", "/dd", "/dt", "/h2", "/h3", "/p", "/div", "/tr", "/pre", "/caption", "/th",
            "/td",
        ]
        .contains(&tag)
        {
            text.push('\n');
        }
        rest = &rest[close + 1..];
    }
    text.push_str(rest);
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[ignore = "needs chromium; run with cargo test -- --ignored"]
fn report_of_the_sealed_sample_in_chromium() {
    let dir = Dir::new();
    let page = dir.path().join("report.html");
    let run = run_in_root(&[
        "report",
        "samples/session-dirty.sealed.jsonl",
        "--scope",
        "samples/scope.json",
        "-o",
        &page.to_string_lossy(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let dom = dump_dom(&page, "call-4");
    assert_snapshot!(text_of(&dom, "summary-body"));
    assert_snapshot!(format!(
        "{}\n{}",
        text_of(&dom, "detail-title"),
        text_of(&dom, "detail-body")
    ));
    let dom = dump_dom(&page, "phase-p0");
    assert_snapshot!(format!(
        "{}\n{}",
        text_of(&dom, "detail-title"),
        text_of(&dom, "detail-body")
    ));
    // The phase is open in the timeline too, with its calls.
    assert!(
        dom.contains("aria-expanded=\"true\" aria-controls=\"phase-calls-p0\" data-phase=\"p0\"")
    );
    assert_eq!(
        text_of(&dom, "phase-calls-p0")
            .lines()
            .take(4)
            .collect::<Vec<_>>(),
        [
            "#0 list_dir inspect path docs",
            "#1 read_file inspect path docs/intro.md",
            "#2 read_file inspect⚠ 1 finding path docs/intro.md",
            "#3 search inspect query install"
        ]
    );
    let dom = dump_dom(&page, "artifact-a1");
    assert_snapshot!(format!(
        "{}\n{}",
        text_of(&dom, "detail-title"),
        text_of(&dom, "detail-body")
    ));
}

/// The hand-worked session of the graph tests, with a hostile tool name: the
/// artifact's lineage has its user, producer and checker, and the name is text.
#[test]
#[ignore = "needs chromium; run with cargo test -- --ignored"]
fn lineage_and_hostile_text_in_chromium() {
    let dir = Dir::new();
    dir.write(
        "t.jsonl",
        lines(&[
            &record(
                0,
                "Grep",
                r#"{"pattern": "app"}"#,
                r#"{"content": "src/app.py:3: <img src=\"http://127.0.0.1:9/x\"></script>"}"#,
            ),
            &record(
                1,
                "Read",
                r#"{"file_path": "src/app.py"}"#,
                r#"{"content": "x"}"#,
            ),
            &record(
                2,
                "Edit",
                r#"{"file_path": "src/app.py"}"#,
                r#"{"content": "ok"}"#,
            ),
            &record(
                3,
                "Bash",
                r#"{"command": "pytest -q"}"#,
                r#"{"content": "1 passed"}"#,
            ),
            &record(4, "<img src=x onerror=alert(1)>", "{}", "{}"),
        ]),
    );
    let run = dir.run(&["report", "t.jsonl", "-o", "r.html"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = dir.path().join("r.html");
    let dom = dump_dom(&page, "artifact-a0");
    assert_snapshot!(format!(
        "{}\n{}",
        text_of(&dom, "detail-title"),
        text_of(&dom, "detail-body")
    ));
    let dom = dump_dom(&page, "call-2");
    let checked = text_of(&dom, "detail-checked-by");
    assert_eq!(
        checked.lines().take(3).collect::<Vec<_>>(),
        [
            "What it produced is checked by (1)",
            "#3 Bash validate $ pytest -q (execute-after-change, checks src/app.py)",
            "Arguments"
        ]
    );
    let dom = dump_dom(&page, "call-0");
    assert!(!dom.contains("<img"), "markup from the transcript");
    assert!(
        text_of(&dom, "detail-body").contains(r#"<img src=\"http://127.0.0.1:9/x\"></script>"#)
    );
    assert!(text_of(&dom, "call-list").contains("<img src=x onerror=alert(1)>"));
}

/// A live session with messages: the agent reads (a subagent reads too), edits,
/// runs the tests (one fails), makes three more one-call phases and says the tests
/// pass. The page shows the claims first, contradicted at the top, with their
/// evidence; the drawing has a block a phase, a mark a claim and a line an edge;
/// call rows say what the call did; a text response is text; the subagent's call
/// is marked; the run of one-call phases is folded; nothing from the session
/// becomes markup.
#[test]
#[ignore = "needs chromium; run with cargo test -- --ignored"]
fn claims_drawing_and_call_rows_in_chromium() {
    let dir = Dir::new();
    let call = |index: usize, tool: &str, args: Value, response: Value| json!({"index": index, "tool": tool, "args": args, "response": response});
    let calls = [
        call(
            0,
            "Read",
            json!({"file_path": "/p/src/parse.rs"}),
            json!({"content": "fn parse() {}\n// 120 lines"}),
        ),
        call(
            1,
            "Grep",
            json!({"pattern": "fn parse", "path": "/p/src"}),
            json!({"content": "/p/src/parse.rs:1"}),
        ),
        call(
            2,
            "Edit",
            json!({"file_path": "/p/src/parse.rs", "old_string": "a", "new_string": "b"}),
            json!({"content": "updated"}),
        ),
        call(
            3,
            "Bash",
            json!({"command": "cargo test"}),
            json!({"content": "running 4 tests\ntest result: FAILED. 3 passed; 1 failed; 0 ignored"}),
        ),
        call(
            4,
            "Read",
            json!({"file_path": "/p/README.md"}),
            json!({"content": "# parse\nSee https://docs.example/parse", "subagent": "a881341"}),
        ),
        call(
            5,
            "Write",
            json!({"file_path": "/p/NOTES.md", "content": "x"}),
            json!({"content": "created"}),
        ),
        call(
            6,
            "Bash",
            json!({"command": "git diff --stat"}),
            json!({"content": "1 file changed"}),
        ),
        call(
            7,
            "</script><img src=x onerror=alert(1)>",
            json!({"q": "<b>bold</b>"}),
            json!({"content": "<!-- -->"}),
        ),
    ];
    live_session(
        &dir,
        &calls,
        Some(&[
            ("prompt", None, "Fix the parser's off-by-one."),
            (
                "answer",
                Some(7),
                "I fixed `src/parse.rs` and updated src/lexer.rs. I ran `cargo test`: all 4 tests pass. \
                 The parser has 120 lines. The tool said \"</script><img src=x onerror=alert(3)>\".",
            ),
        ]),
    );
    let run = dir.run(&["report", "sessions/S.jsonl", "-o", "r.html"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = dir.path().join("r.html");
    let graph: Value =
        serde_json::from_str(&dir.run(&["graph", "sessions/S.jsonl"]).stdout).expect("a graph");
    let nodes = graph["nodes"].as_array().expect("nodes");
    let of_type = |kind: &str| nodes.iter().filter(|node| node["type"] == kind).count();
    let evidence: usize = nodes
        .iter()
        .filter(|node| node["type"] == "claim")
        .flat_map(|claim| claim["atoms"].as_array().expect("atoms"))
        .map(|atom| {
            usize::from(atom.get("support").is_some()) + usize::from(atom.get("against").is_some())
        })
        .sum();
    // Hand-counted: phases inspect 0-1, change 2, validate 3, inspect 4, change 5,
    // validate 6 (the hostile tool has no role); four claims; their edges.
    assert_eq!((of_type("phase"), of_type("claim"), evidence), (6, 4, 4));

    let dom = dump_dom(&page, "");
    assert!(
        !dom.to_lowercase().contains("<img"),
        "markup from the session"
    );
    assert!(!dom.contains("<b>"), "markup from the session");
    assert_snapshot!("drawn_summary", text_of(&dom, "summary-body"));
    // The drawing: a block a phase, a mark a claim, a line an edge; the one call
    // without a role is a tick on its own lane.
    assert_eq!(count(&dom, "<svg id=\"timeline\""), 1);
    assert_eq!(count(&dom, "<g class=\"g-phase "), 6);
    assert_eq!(count(&dom, "<g class=\"g-claim "), 4);
    assert_eq!(count(&dom, "<path class=\"g-edge "), 4);
    assert_eq!(count(&dom, "<path class=\"g-edge g-edge-against\""), 1);
    assert_eq!(count(&dom, "<g class=\"g-request\""), 1);
    assert_eq!(count(&dom, "class=\"g-tick-call\""), 1);
    assert!(dom.contains("<title>#7 &lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</title>"));
    // Claims first, contradicted at the top, each atom with its evidence (the
    // count's text runs to the end of the section: the list of claims).
    assert!(
        dom.find("id=\"claims\"").expect("claims") < dom.find("id=\"summary\"").expect("summary")
    );
    assert_snapshot!("drawn_claims", text_of(&dom, "claims-count"));
    // Call rows: what each call did, the subagent's call marked.
    assert_snapshot!("drawn_calls", text_of(&dom, "call-list"));
    // The one-call phases 2 to 6 are one folded row.
    assert_snapshot!("drawn_phases", text_of(&dom, "phase-list"));
    assert_eq!(count(&dom, "data-fold=\"f1\""), 1);

    // A claim opened: its atoms, each with the call behind it; its edges drawn bold.
    let dom = dump_dom(&page, "claim-k1");
    assert_snapshot!(
        "drawn_claim_k1",
        format!(
            "{}\n{}",
            text_of(&dom, "detail-title"),
            text_of(&dom, "detail-body")
        )
    );
    assert_eq!(count(&dom, "g-edge g-edge-support g-on"), 1);
    assert_eq!(count(&dom, "g-edge g-edge-against g-on"), 1);
    assert!(dom.contains("<g class=\"g-claim g-contradicted g-on\" data-claim=\"k1\""));

    // A text response is text; the call that read it is evidence for a claim.
    let dom = dump_dom(&page, "call-0");
    assert!(
        dom.contains("<pre class=\"text\" id=\"detail-response-text\" tabindex=\"0\">fn parse() {}\n// 120 lines</pre>"),
        "{}",
        text_of(&dom, "detail-body")
    );
    assert_snapshot!(
        "drawn_call_0",
        format!(
            "{}\n{}",
            text_of(&dom, "detail-title"),
            text_of(&dom, "detail-body")
        )
    );
    let dom = dump_dom(&page, "call-4");
    assert!(text_of(&dom, "detail-facts").contains("Made by\nsubagent a881341"));

    // A folded phase opened: its row opens, and the drawing opens it into its call
    // and the artifact it produces.
    let dom = dump_dom(&page, "phase-p4");
    assert!(
        dom.contains("aria-expanded=\"true\" aria-controls=\"fold-calls-f1\" data-fold=\"f1\"")
    );
    assert_eq!(
        text_of(&dom, "fold-calls-f1").lines().count(),
        5,
        "{}",
        text_of(&dom, "fold-calls-f1")
    );
    assert_eq!(count(&dom, "<g class=\"g-call "), 1);
    assert_eq!(count(&dom, "<g class=\"g-artifact\""), 1);
    assert_eq!(count(&dom, "<path class=\"g-link g-link-produces\""), 1);
    assert!(dom.contains("<g class=\"g-phase g-change g-on\" data-phase-link=\"p4\""));
    assert_snapshot!("drawn_zoom", text_of(&dom, "zoom-title"));

    screenshot(&page, "", "claims-drawing");
    screenshot(&page, "phase-p0", "claims-drawing-phase");
}

/// The report of a real Claude Code session of 188 calls with its subagent's log
/// (`../shared/data/transcripts/claude-code-subagents`): its claims, its drawing,
/// its folded phases, its subagent's calls marked, a command in a row and a file
/// read shown as text. Screenshots are kept for people to look at.
#[test]
#[ignore = "needs chromium and ../shared/data; run with cargo test -- --ignored"]
fn report_of_a_real_session_in_chromium() {
    let dir = Dir::new();
    let page = dir.path().join("real.html");
    let run = run_in_root(&[
        "report",
        "--from",
        "claude-code",
        "../shared/data/transcripts/claude-code-subagents/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
        "-o",
        &page.to_string_lossy(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let dom = dump_dom(&page, "call-5");
    assert_snapshot!("real_summary", text_of(&dom, "summary-body"));
    assert_eq!(count(&dom, "<g class=\"g-phase "), 74);
    assert_eq!(count(&dom, "<g class=\"g-claim "), 11);
    assert_eq!(count(&dom, "<g class=\"g-request\""), 4);
    assert_eq!(count(&dom, "<path class=\"g-edge "), 16);
    assert_eq!(count(&dom, "data-fold=\""), 10);
    assert_eq!(count(&dom, "<li class=\"claim-row\">"), 11);
    let calls = text_of(&dom, "call-list");
    assert!(
        calls.starts_with("#0 Bash execute $ bd ready 2>/dev/null; echo \"---\";"),
        "{calls}"
    );
    assert_eq!(calls.matches("↳ subagent a881341").count(), 2, "{calls}");
    assert!(
        dom.contains("<pre class=\"text\" id=\"detail-response-text\" tabindex=\"0\">     1→defmodule Spotter.Transcripts.Annotation do\n     2→  @moduledoc false\n"),
        "{}",
        text_of(&dom, "detail-body")
    );
    screenshot(&page, "", "real-session");
    screenshot(&page, "claim-k4", "real-session-claim");
    screenshot(&page, "phase-p0", "real-session-phase");
}
