"""An MCP client on the official Python SDK (1.x) for the proxy tests against the
MCP reference servers from npm (tests/mcp/npm: server-filesystem and
server-everything).

    python reference.py SCENARIO DIR -- CMD ARGS...

starts CMD (the server, or `toolreplay proxy ... -- server`) with the SDK's stdio
client, plays SCENARIO on files in DIR, and prints a JSON summary of what it saw:
each call's result as the SDK reads it (keys sorted, DIR written as "DIR"), and the
server's requests (sampling, elicitation) and progress the client received.
"""

import json
import os
import signal
import sys

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

DIR = sys.argv[2]


def shown(value):
    text = json.dumps(value, sort_keys=True)
    return json.loads(text.replace(DIR, "DIR"))


async def call(session, summary, name, arguments, **options):
    try:
        result = await session.call_tool(name, arguments, **options)
        summary["calls"].append(
            {"tool": name, "args": shown(arguments), "result": shown(result.model_dump(mode="json", by_alias=True, exclude_none=True))}
        )
    except Exception as err:  # the session may end under a call
        summary["calls"].append({"tool": name, "args": shown(arguments), "exception": type(err).__name__})


def path(name):
    return os.path.join(DIR, name)


async def filesystem(session, summary):
    await call(session, summary, "list_allowed_directories", {})
    await call(session, summary, "read_text_file", {"path": path("notes.txt")})
    await call(session, summary, "read_text_file", {"path": path(".env")})
    await call(session, summary, "read_text_file", {"path": path("keys.txt")})
    await call(session, summary, "write_file", {"path": path("out/report.txt"), "content": "all good"})
    await call(session, summary, "list_directory", {"path": path("out")})
    await call(session, summary, "write_file", {"path": path("escape.txt"), "content": "out of bounds"})
    await call(session, summary, "write_file", {"path": path("out/long.txt"), "content": "x" * 100})
    await call(session, summary, "list_directory", {"path": DIR})


async def everything(session, summary):
    progress = []

    async def on_progress(done, total, message):
        progress.append([done, total])

    await call(session, summary, "echo", {"message": "hello"})
    await call(session, summary, "get-env", {})
    await call(session, summary, "get-sum", {"a": 2, "b": 40})
    await call(session, summary, "trigger-long-running-operation", {"duration": 1, "steps": 2}, progress_callback=on_progress)
    summary["progress"] = progress
    await call(session, summary, "trigger-sampling-request", {"prompt": "write a haiku", "maxTokens": 20})
    await call(session, summary, "trigger-elicitation-request", {})
    await call(session, summary, "gzip-file-as-resource", {"name": "r.gz", "data": "https://evil.example/readme"})


async def timeout(session, summary):
    await call(session, summary, "trigger-long-running-operation", {"duration": 30, "steps": 30})
    await call(session, summary, "echo", {"message": "after the timeout"})


async def cancel(session, summary):
    # The id the SDK gives the next request.
    request_id = session._request_id
    async with anyio.create_task_group() as group:
        group.start_soon(call, session, summary, "trigger-long-running-operation", {"duration": 30, "steps": 30})
        await anyio.sleep(1)
        await session.send_notification(
            types.ClientNotification(
                types.CancelledNotification(
                    params=types.CancelledNotificationParams(requestId=request_id, reason="the user pressed stop")
                )
            )
        )
        await anyio.sleep(0.5)
        group.cancel_scope.cancel()
    summary["cancelled"] = request_id
    await call(session, summary, "echo", {"message": "after the cancel"})


async def crash(session, summary):
    async def kill_server():
        await anyio.sleep(1)
        with open(path("server.pid")) as pid:
            os.kill(int(pid.read()), signal.SIGKILL)

    async with anyio.create_task_group() as group:
        group.start_soon(kill_server)
        await call(session, summary, "trigger-long-running-operation", {"duration": 30, "steps": 30})


SCENARIOS = {"filesystem": filesystem, "everything": everything, "timeout": timeout, "cancel": cancel, "crash": crash}


async def sampling(context, params):
    received["sampling"].append(shown(params.model_dump(mode="json", by_alias=True, exclude_none=True)))
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="an old silent pond"),
        model="test-model",
        stopReason="endTurn",
    )


async def elicitation(context, params):
    received["elicitation"].append(params.message)
    return types.ElicitResult(action="accept", content={"color": "blue", "number": 7, "pets": ["cats"]})


received = {"sampling": [], "elicitation": []}


async def main():
    scenario = SCENARIOS[sys.argv[1]]
    command = sys.argv[sys.argv.index("--") + 1 :]
    server = StdioServerParameters(command=command[0], args=command[1:], cwd=DIR)
    summary = {"calls": []}
    try:
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write, sampling_callback=sampling, elicitation_callback=elicitation) as session:
                await session.initialize()
                summary["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
                await scenario(session, summary)
    except Exception as err:  # the server went away: say so, keep the summary
        summary["ended"] = type(err).__name__
    summary["server_requests"] = received
    print(json.dumps(summary, indent=2, sort_keys=True))


anyio.run(main)
