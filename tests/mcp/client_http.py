"""An MCP client on the official Python SDK over Streamable HTTP, for the proxy tests.

    python client_http.py SCENARIO URL [NAME=VALUE...]

connects to URL with the SDK's Streamable HTTP client (each NAME=VALUE an HTTP
header it sends on every request), plays SCENARIO of client.py, and prints the same
JSON summary as client.py. Ending the session deletes it (DELETE).
"""

import json
import sys

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from client import SCENARIOS


async def main():
    scenario = SCENARIOS[sys.argv[1]]
    url = sys.argv[2]
    headers = dict(arg.split("=", 1) for arg in sys.argv[3:])
    summary = {"tools": None, "calls": []}
    try:
        async with streamablehttp_client(url, headers=headers or None) as (read, write, _):
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


anyio.run(main)
