//! The HTML report in a real browser: headless Chromium loads the page from disk,
//! runs its script, and the DOM after load is checked: the summary's counts, a
//! call's detail, an artifact's lineage, no script error and no request blocked by
//! the page's Content-Security-Policy (the page records both in the DOM).
//!
//! Chromium (Debian's `chromium`) is not needed for `cargo test`: these tests are
//! ignored, and `.ci/run` installs it and runs them with `cargo test -- --ignored`,
//! where a missing browser is a failure.

use std::path::Path;
use std::process::Command;

use insta::assert_snapshot;

use crate::cli::{Dir, lines, record, run_in_root};

/// The DOM of `page` (a file) opened at `#fragment`, after load.
fn dump_dom(page: &Path, fragment: &str) -> String {
    let profile = tempfile::TempDir::new().expect("profile directory");
    let url = format!("file://{}#{fragment}", page.display());
    let output = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
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
            "#0 list_dir inspect",
            "#1 read_file inspect",
            "#2 read_file inspect⚠ 1 finding",
            "#3 search inspect"
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
            "#3 Bash validate (execute-after-change, checks src/app.py)",
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
