"""Checks `toolreplay export --format otlp` with the official OpenTelemetry protobuf
definitions (PyPI `opentelemetry-proto`), and its times against the logs read here,
independently of the Rust readers.

    check_otlp.py requests EXPORT.json...
        Each file is one ExportTraceServiceRequest in OTLP/JSON. Its ids must be
        lowercase hex, as OTLP/JSON writes them (not base64, as protobuf's own JSON
        mapping would): 32 digits for a trace id, 16 for a span id. Converted to the
        protobuf JSON mapping, the request must parse into an
        ExportTraceServiceRequest whose trace ids are 16 bytes and span ids 8, every
        span of a request in one trace; its times must be positive, the end not before
        the start, each event at its span's start. Prints the number of spans.

    check_otlp.py protobuf EXPORT.json BODY...
        Each BODY is one ExportTraceServiceRequest in protobuf's binary encoding (what
        a live session sends over OTLP/HTTP by default). Each must parse, and be the
        deterministic encoding of what it parses to (fields in the order of their
        numbers, nothing unknown); each holds EXPORT.json's resource and scope, and
        their spans, in order, must be EXPORT.json's spans, field for field. Prints
        the number of spans.

    check_otlp.py times FORMAT LOG EXPORT.json
        The span of each call of LOG (FORMAT: claude-code, codex, copilot, mcp, or
        gemini, a session's JSON) must start when the log wrote the call and end when
        it wrote its result (at its start when it has none or an earlier one), found
        by gen_ai.tool.call.id.
        Prints the number of spans checked.

Exits 1 with a message on the first failure.
"""

import base64
import calendar
import datetime
import decimal
import json
import os
import re
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def spans_of(request):
    for resource in request.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            yield from scope.get("spans", [])


def attribute(span, key):
    for member in span.get("attributes", []):
        if member["key"] == key:
            return next(iter(member["value"].values()))
    return None


def parsed_json(path):
    """The OTLP/JSON request at `path` as an ExportTraceServiceRequest."""
    with open(path, encoding="utf-8") as f:
        request = json.load(f)
    for span in spans_of(request):
        span["traceId"] = base64.b64encode(bytes.fromhex(span["traceId"])).decode()
        span["spanId"] = base64.b64encode(bytes.fromhex(span["spanId"])).decode()
    return json_format.Parse(json.dumps(request), ExportTraceServiceRequest())


def check_protobuf(export, bodies):
    expected = parsed_json(export)
    want = [
        span
        for resource in expected.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    got = []
    for path in bodies:
        with open(path, "rb") as f:
            data = f.read()
        parsed = ExportTraceServiceRequest.FromString(data)
        if parsed.SerializeToString(deterministic=True) != data:
            fail(f"{path}: not the deterministic encoding of what it parses to")
        for resource in parsed.resource_spans:
            if resource.resource != expected.resource_spans[0].resource:
                fail(f"{path}: resource {resource.resource} is not the export's")
            for scope in resource.scope_spans:
                if scope.scope != expected.resource_spans[0].scope_spans[0].scope:
                    fail(f"{path}: scope {scope.scope} is not the export's")
                got.extend(scope.spans)
    if len(got) != len(want):
        fail(f"{len(got)} spans sent, {len(want)} exported")
    for n, (sent, exported) in enumerate(zip(got, want)):
        if sent != exported:
            fail(f"span {n}: sent\n{sent}\nexported\n{exported}")
    return len(got)


def check_request(path):
    with open(path, encoding="utf-8") as f:
        request = json.load(f)
    for span in spans_of(request):
        if not re.fullmatch(r"[0-9a-f]{32}", span["traceId"]):
            fail(f"{path}: traceId {span['traceId']!r} is not 32 lowercase hex digits")
        if not re.fullmatch(r"[0-9a-f]{16}", span["spanId"]):
            fail(f"{path}: spanId {span['spanId']!r} is not 16 lowercase hex digits")
        # protobuf's JSON mapping writes bytes in base64.
        span["traceId"] = base64.b64encode(bytes.fromhex(span["traceId"])).decode()
        span["spanId"] = base64.b64encode(bytes.fromhex(span["spanId"])).decode()
    parsed = json_format.Parse(json.dumps(request), ExportTraceServiceRequest())
    count = 0
    traces = set()
    for resource in parsed.resource_spans:
        for scope in resource.scope_spans:
            for span in scope.spans:
                count += 1
                if len(span.trace_id) != 16 or len(span.span_id) != 8:
                    fail(
                        f"{path}: span {span.name}: trace id of {len(span.trace_id)} bytes, "
                        f"span id of {len(span.span_id)}"
                    )
                traces.add(span.trace_id)
                if span.start_time_unix_nano <= 0:
                    fail(f"{path}: span {span.name}: no start time")
                if span.end_time_unix_nano < span.start_time_unix_nano:
                    fail(f"{path}: span {span.name}: ends before it starts")
                for event in span.events:
                    if event.time_unix_nano != span.start_time_unix_nano:
                        fail(f"{path}: span {span.name}: event {event.name} not at its start")
    if len(traces) > 1:
        fail(f"{path}: {len(traces)} trace ids in one request")
    return count


def rfc3339(text):
    """Nanoseconds since the epoch of an RFC 3339 time with an offset."""
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        return None
    utc = moment.astimezone(datetime.timezone.utc)
    return calendar.timegm(utc.timetuple()) * 10**9 + utc.microsecond * 1000


def seconds(value):
    return int(decimal.Decimal(str(value)) * 10**9)


def lines(path):
    with open(path, encoding="utf-8") as f:
        for text in f:
            if text.strip():
                try:
                    yield json.loads(text)
                except json.JSONDecodeError:
                    continue


class Times:
    """When each call of an id was made and answered: a result answers the earliest
    call of its id still waiting; with `merge`, an id called again is the same call
    (Claude Code writes a call again)."""

    def __init__(self, merge=False):
        self.calls = {}
        self.merge = merge

    def call(self, id, at):
        if self.merge and id in self.calls:
            return
        self.calls.setdefault(id, []).append([at, None, False])

    def result(self, id, at):
        for call in self.calls.get(id, []):
            if not call[2]:
                call[1], call[2] = at, True
                return


def claude_code(path, times):
    for entry in lines(path):
        if not isinstance(entry, dict) or entry.get("type") not in ("user", "assistant"):
            continue
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        stamp = entry.get("timestamp")
        at = rfc3339(stamp) if isinstance(stamp, str) else None
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                times.call(block.get("id"), at)
            elif block.get("type") == "tool_result":
                times.result(block.get("tool_use_id"), at)
    subagents = os.path.join(path[: -len(".jsonl")], "subagents")
    if os.path.isdir(subagents):
        for name in sorted(os.listdir(subagents)):
            if name.endswith(".jsonl"):
                claude_code(os.path.join(subagents, name), times)


def codex(path, times):
    for entry in lines(path):
        payload = entry.get("payload") if isinstance(entry, dict) else None
        if entry.get("type") != "response_item" or not isinstance(payload, dict):
            continue
        at = rfc3339(entry["timestamp"]) if isinstance(entry.get("timestamp"), str) else None
        kind = payload.get("type", "")
        if kind == "mcp_call":
            times.call(payload.get("id"), at)
            times.result(payload.get("id"), at)
        elif kind.endswith("_call_output") or kind == "function_call_output":
            times.result(payload.get("call_id"), at)
        elif kind.endswith("_call"):
            times.call(payload.get("call_id"), at)


def copilot(path, times):
    for event in lines(path):
        data = event.get("data") if isinstance(event, dict) else None
        if not isinstance(data, dict):
            continue
        stamp = event.get("timestamp")
        at = rfc3339(stamp) if isinstance(stamp, str) else None
        if event.get("type") == "tool.execution_start":
            times.call(data.get("toolCallId"), at)
        elif event.get("type") == "tool.execution_complete":
            times.result(data.get("toolCallId"), at)


def mcp(path, times):
    for line in lines(path):
        if not isinstance(line, dict):
            continue
        at = None
        message = line
        if "jsonrpc" not in line and "method" not in line:
            for key in ("timestamp", "t", "ts"):
                if key in line:
                    value = line[key]
                    at = rfc3339(value) if isinstance(value, str) else seconds(value)
                    break
            inner = [v for v in line.values() if isinstance(v, dict) and ("method" in v or "result" in v or "error" in v)]
            message = inner[0] if len(inner) == 1 else line
        id = message.get("id")
        key = None if id is None else str(id)
        if message.get("method") == "tools/call" and key is not None:
            times.call(key, at)
        elif "method" not in message and key is not None:
            times.result(key, at)


def gemini(path, times):
    with open(path, encoding="utf-8") as f:
        session = json.load(f)
    for message in session.get("messages", []):
        stamp = message.get("timestamp")
        for call in message.get("toolCalls") or []:
            made = call.get("timestamp", stamp)
            at = rfc3339(made) if isinstance(made, str) else None
            times.call(call.get("id"), at)


READERS = {
    "claude-code": claude_code,
    "codex": codex,
    "copilot": copilot,
    "mcp": mcp,
    "gemini": gemini,
}


def check_times(form, log, path):
    times = Times(merge=form == "claude-code")
    READERS[form](log, times)
    with open(path, encoding="utf-8") as f:
        request = json.load(f)
    checked = 0
    seen = {}
    for span in spans_of(request):
        id = attribute(span, "gen_ai.tool.call.id")
        if id is None and form == "mcp":
            # A tools/call sent as a notification has no id.
            continue
        at = seen.get(id, 0)
        seen[id] = at + 1
        if at >= len(times.calls.get(id, [])):
            fail(f"{log}: span {span['name']} has call id {id!r}, which the log does not call")
        start, end, _ = times.calls[id][at]
        if start is None:
            continue
        end = start if end is None or end < start else end
        got = (int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"]))
        if got != (start, end):
            fail(f"{log}: call {id}: span times {got}, the log's {(start, end)}")
        checked += 1
    return checked


def main(args):
    if args[:1] == ["requests"]:
        print(sum(check_request(path) for path in args[1:]))
    elif args[:1] == ["protobuf"] and len(args) >= 2:
        print(check_protobuf(args[1], args[2:]))
    elif args[:1] == ["times"] and len(args) == 4:
        print(check_times(args[1], args[2], args[3]))
    else:
        fail(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
