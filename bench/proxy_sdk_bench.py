"""Times tools/call with the official MCP Python SDK's client, over stdio or
Streamable HTTP: CALLS calls one after another (the round trip of each), then
CALLS calls with 8 in flight at once (calls per second).

    python proxy_sdk_bench.py CALLS TOOL ARGS_JSON stdio CMD ARGS...
    python proxy_sdk_bench.py CALLS TOOL ARGS_JSON http URL

Prints one JSON object: median and p99 of the round trips in microseconds, and the
calls per second with 8 in flight.
"""

import json
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

IN_FLIGHT = 8


async def measure(session, calls, tool, arguments):
    await session.initialize()
    for _ in range(20):
        await session.call_tool(tool, arguments)
    times = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        result = await session.call_tool(tool, arguments)
        times.append(time.perf_counter_ns() - start)
        assert not result.isError, result
    times.sort()
    left = calls

    async def worker():
        nonlocal left
        while left > 0:
            left -= 1
            result = await session.call_tool(tool, arguments)
            assert not result.isError, result

    start = time.perf_counter_ns()
    async with anyio.create_task_group() as group:
        for _ in range(IN_FLIGHT):
            group.start_soon(worker)
    elapsed = time.perf_counter_ns() - start
    return {
        "median_us": times[len(times) // 2] / 1000,
        "p99_us": times[min(len(times) - 1, len(times) * 99 // 100)] / 1000,
        "in_flight_calls_per_s": calls / (elapsed / 1e9),
    }


async def main():
    calls, tool, arguments, mode = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
    target = sys.argv[5:]
    if mode == "stdio":
        server = StdioServerParameters(command=target[0], args=target[1:])
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                figures = await measure(session, calls, tool, arguments)
    else:
        async with streamablehttp_client(target[0]) as (read, write, _):
            async with ClientSession(read, write) as session:
                figures = await measure(session, calls, tool, arguments)
    print(json.dumps(figures))


anyio.run(main)
