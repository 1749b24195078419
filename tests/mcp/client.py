"""An MCP client on the official Python SDK, for the proxy tests.

    python client.py SCENARIO -- CMD ARGS...

starts CMD (the server, or `toolreplay proxy ... -- server`) with the SDK's stdio
client, plays SCENARIO, and prints a JSON summary of what it saw: the tools listed
and each call's result (as the SDK reads it, keys sorted).
"""

import json
import os
import sys

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def shown(result):
    return json.loads(result.model_dump_json(by_alias=True, exclude_none=True))


async def call(session, summary, name, arguments):
    try:
        result = await session.call_tool(name, arguments)
        summary["calls"].append({"tool": name, "args": arguments, "result": shown(result)})
    except Exception as err:  # the session may end under a call
        summary["calls"].append({"tool": name, "args": arguments, "exception": type(err).__name__})


async def conversation(session, summary):
    for name, arguments in [
        ("read_file", {"path": "notes.txt"}),
        ("read_file", {"path": ".env"}),
        ("fetch_url", {"url": "https://docs.example.com/deploy"}),
        ("send_message", {"to": "team@example.com", "body": "deploy on Friday"}),
        ("get_secret", {}),
        ("read_file", {"path": "notes.txt"}),
        ("read_file", {"path": "notes.txt"}),
        ("read_file", {"path": "notes.txt"}),
        ("delete_repository", {"name": "prod"}),
    ]:
        await call(session, summary, name, arguments)


async def timeout(session, summary):
    await call(session, summary, "sleep", {"seconds": 30})
    await call(session, summary, "read_file", {"path": "notes.txt"})


async def cancel(session, summary):
    # The id the SDK gives the next request.
    request_id = session._request_id
    async with anyio.create_task_group() as group:
        group.start_soon(call, session, summary, "sleep", {"seconds": 30})
        await anyio.sleep(0.5)
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
    await call(session, summary, "read_file", {"path": "notes.txt"})


async def crash(session, summary):
    await call(session, summary, "crash", {})


async def pin(session, summary):
    await call(session, summary, "fetch_url", {"url": "https://docs.example.com/"})
    await call(session, summary, "read_file", {"path": "notes.txt"})


SCENARIOS = {"conversation": conversation, "timeout": timeout, "cancel": cancel, "crash": crash, "pin": pin}


async def main():
    scenario = SCENARIOS[sys.argv[1]]
    command = sys.argv[sys.argv.index("--") + 1 :]
    env = {key: os.environ[key] for key in ("MCP_RUG_PULL",) if key in os.environ}
    server = StdioServerParameters(command=command[0], args=command[1:], env=env or None)
    summary = {"tools": None, "calls": []}
    try:
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                summary["tools"] = [
                    {"name": t.name, "description": t.description, "inputSchema": t.inputSchema}
                    for t in listed.tools
                ]
                await scenario(session, summary)
    except Exception as err:  # the server went away: say so, keep the summary
        summary["ended"] = type(err).__name__
    print(json.dumps(summary, indent=2, sort_keys=True))


if __name__ == "__main__":
    anyio.run(main)
