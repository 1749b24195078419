"""Times tools/call with the official MCP Python SDK's client against several stdio
sessions at once, taking turns call by call, so that whatever the machine does
meanwhile falls on every session alike: the server straight, the server behind a
relay that only copies (bench/relay.rs), the server behind the proxy.

    python proxy_paired.py CALLS TOOL ARGS_JSON LABEL :: CMD ARGS... [:: LABEL :: CMD ARGS...]...

Each of the CALLS rounds makes one call on each session, the first session of the
round moving by one each round. Prints one JSON object: for each label, the median
and p99 round trip in microseconds, and the CPU time per call of the process the
client started and of each of its children (from /proc/PID/task/*/schedstat, all
threads; null where /proc does not have it), over the timed rounds.
"""

import json
import os
import sys
import time
from contextlib import AsyncExitStack

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

WARM_UP = 20


def sessions_of(words):
    """[(label, command)] from `LABEL :: CMD ARGS... :: LABEL :: CMD ARGS...`."""
    found = []
    while words:
        if len(words) < 3 or words[1] != "::":
            sys.exit("proxy_paired.py: expected LABEL :: CMD ARGS...")
        label, words = words[0], words[2:]
        end = words.index("::") if "::" in words else len(words)
        found.append((label, words[:end]))
        words = words[end + 1:]
    return found


def processes():
    """{pid: (parent pid, name)} of every process /proc shows."""
    found = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    text = stat.read()
            except OSError:
                continue
            close = text.rindex(")")
            found[pid] = (text[close + 2:].split()[1], text[text.index("(") + 1:close])
    return found


def cpu_ns(pid):
    """The CPU time of all of `pid`'s threads so far, in nanoseconds."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/schedstat") as stat:
            total += int(stat.read().split()[0])
    return total


def tree(pid):
    """[(name, pid)] of `pid` and its children, "name>child" for the children."""
    table = processes()
    name = table[pid][1]
    return [(name, pid)] + [(f"{name}>{child_name}", child)
                            for child, (parent, child_name) in table.items() if parent == pid]


def cpu_of(trees):
    """{pid: CPU ns} of every process of `trees`, or None where /proc cannot tell."""
    try:
        return {pid: cpu_ns(pid) for t in trees for _, pid in t}
    except OSError:
        return None


async def main():
    calls, tool, arguments = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
    wanted = sessions_of(sys.argv[4:])
    async with AsyncExitStack() as stack:
        sessions = []
        for label, command in wanted:
            before = set(processes())
            server = StdioServerParameters(command=command[0], args=command[1:])
            read, write = await stack.enter_async_context(stdio_client(server))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            started = [pid for pid, (parent, _) in processes().items()
                       if pid not in before and parent == str(os.getpid())]
            sessions.append({"label": label, "session": session, "times": [],
                             "tree": tree(started[0]) if len(started) == 1 else []})
        for _ in range(WARM_UP):
            for s in sessions:
                await s["session"].call_tool(tool, arguments)
        trees = [s["tree"] for s in sessions]
        cpu_before = cpu_of(trees)
        for round_ in range(calls):
            for k in range(len(sessions)):
                s = sessions[(round_ + k) % len(sessions)]
                start = time.perf_counter_ns()
                result = await s["session"].call_tool(tool, arguments)
                s["times"].append(time.perf_counter_ns() - start)
                assert not result.isError, result
        cpu_after = cpu_of(trees)
    figures = {}
    for s in sessions:
        times = sorted(s["times"])
        cpu = None
        if cpu_before is not None and cpu_after is not None and s["tree"]:
            cpu = {name: (cpu_after[pid] - cpu_before[pid]) / calls / 1000
                   for name, pid in s["tree"]}
        figures[s["label"]] = {
            "median_us": times[len(times) // 2] / 1000,
            "p99_us": times[min(len(times) - 1, len(times) * 99 // 100)] / 1000,
            "cpu_us_per_call": cpu,
        }
    print(json.dumps(figures))


anyio.run(main)
