"""An MCP client on the official Python SDK 2.x over Streamable HTTP, for the proxy
tests (client_http.py for 1.x).

    python client2_http.py SCENARIO URL

connects to URL with the SDK's client (the stateless revision 2026-07-28 when the
server speaks it), plays SCENARIO of client2.py, and prints the same JSON summary.
"""

import json
import os
import sys

import anyio
from mcp import Client

from client2 import SCENARIOS


async def main():
    scenario = SCENARIOS[sys.argv[1]]
    summary = {"tools": None, "calls": []}
    try:
        async with Client(sys.argv[2]) as session:
            summary["protocolVersion"] = session.protocol_version
            listed = await session.list_tools()
            summary["tools"] = [
                {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
                for t in listed.tools
            ]
            await scenario(session, summary)
    except Exception as err:  # the server went away: say so, keep the summary
        summary["ended"] = type(err).__name__
        if os.environ.get("MCP_DEBUG"):
            import traceback

            traceback.print_exc()
    print(json.dumps(summary, indent=2, sort_keys=True))


anyio.run(main)
