"""The pytest plugin fails a test whose session has findings, with them as the
message, and passes a clean one. It is loaded by its entry point (`pytest11`), as
for anyone who installs the package."""

from __future__ import annotations

from conftest import SAMPLES

pytest_plugins = ["pytester"]


def test_a_session_with_findings_fails_the_test(pytester) -> None:
    pytester.makepyfile(
        f"""
        def test_agent(toolreplay_audit):
            toolreplay_audit({str(SAMPLES / "session-dirty.jsonl")!r})
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*toolreplay: 2 findings",
            "*session-dirty.jsonl:3: index 2: redundant-call: tool 'read_file' repeats the identical call at index 1 with no state change between them",
            "*session-dirty.jsonl:6: index 5: non-determinism: tool 'search' returned a different response than the identical call at index 3",
        ]
    )


def test_records_with_findings_fail_the_test(pytester) -> None:
    pytester.makepyfile(
        """
        def test_agent(toolreplay_audit):
            call = {"index": 0, "tool": "read_file", "args": {"path": "a"}, "response": {"text": "A"}}
            toolreplay_audit([call, dict(call, index=1)])
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*toolreplay: 1 finding",
            "*<records>:2: index 1: redundant-call: tool 'read_file' repeats the identical call at index 0 with no state change between them",
        ]
    )


def test_a_clean_session_passes(pytester) -> None:
    pytester.makepyfile(
        f"""
        def test_agent(toolreplay_audit):
            reports = toolreplay_audit({str(SAMPLES / "session-clean.jsonl")!r})
            assert reports[0]["calls"] == 4
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
