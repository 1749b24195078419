"""An MCP client on the official Python SDK over Streamable HTTP, for the proxy tests.

    python client_http.py SCENARIO URL [NAME=VALUE...]

connects to URL with the SDK's Streamable HTTP client (each NAME=VALUE an HTTP
header it sends on every request), plays SCENARIO of client.py (or `everything`, for the reference server
server-everything), and prints the same
JSON summary as client.py. Ending the session deletes it (DELETE).
"""

import json
import sys

import anyio
import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from client import SCENARIOS, call


async def everything(session, summary):
    """A session with the reference server `server-everything`."""
    await call(session, summary, "echo", {"message": "hello"})
    await call(session, summary, "get-sum", {"a": 2, "b": 3})
    await call(session, summary, "get-env", {})
    await call(session, summary, "gzip-file-as-resource", {})
    progress = []

    async def on_progress(value, total, message):
        progress.append(value)

    arguments = {"duration": 1, "steps": 2}
    result = await session.call_tool("trigger-long-running-operation", arguments, progress_callback=on_progress)
    summary["calls"].append(
        {"tool": "trigger-long-running-operation", "args": arguments, "isError": result.isError}
    )
    summary["progress"] = progress
    # The server's own requests, sampling and elicitation, come on the call's stream
    # and the client's answers go back through the proxy.
    await call(session, summary, "trigger-sampling-request", {"prompt": "write a haiku", "maxTokens": 20})
    await call(session, summary, "trigger-elicitation-request", {})
    summary["server_requests"] = received


received = {"sampling": [], "elicitation": []}


async def sampling(context, params):
    received["sampling"].append(params.model_dump(mode="json", by_alias=True, exclude_none=True))
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="an old silent pond"),
        model="test-model",
        stopReason="endTurn",
    )


async def elicitation(context, params):
    received["elicitation"].append(params.message)
    return types.ElicitResult(action="accept", content={"color": "blue", "number": 7, "pets": ["cats"]})


SCENARIOS = {**SCENARIOS, "everything": everything}


async def main():
    scenario = SCENARIOS[sys.argv[1]]
    url = sys.argv[2]
    headers = dict(arg.split("=", 1) for arg in sys.argv[3:])
    summary = {"tools": None, "calls": []}
    try:
        async with streamablehttp_client(url, headers=headers or None) as (read, write, _):
            async with ClientSession(
                read, write, sampling_callback=sampling, elicitation_callback=elicitation
            ) as session:
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


anyio.run(main)
