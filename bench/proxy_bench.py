"""Times tools/call round trips to an MCP server over stdio, Python standard
library only: `CALLS` calls one after another (each waits for its answer), then a
burst of `BURST` calls written at once (a writer thread) while the answers are read.

    python3 proxy_bench.py CALLS BURST -- CMD ARGS...

Prints one JSON object: median and p99 of the round trips in microseconds, and the
burst's calls per second.
"""

import json
import subprocess
import sys
import threading
import time


def call(id_):
    return (json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                        "params": {"name": "echo", "arguments": {"n": id_}}}) + "\n").encode()


def main():
    calls, burst = int(sys.argv[1]), int(sys.argv[2])
    command = sys.argv[sys.argv.index("--") + 1:]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    out = server.stdout
    server.stdin.write(b'{"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}\n')
    out.readline()
    for warm in range(100):
        server.stdin.write(call(warm))
        out.readline()
    times = []
    for i in range(calls):
        line = call(1000 + i)
        start = time.perf_counter_ns()
        server.stdin.write(line)
        answer = out.readline()
        times.append(time.perf_counter_ns() - start)
        assert b'"isError": false' in answer, answer
    times.sort()

    def writer():
        for i in range(burst):
            server.stdin.write(call(1_000_000 + i))

    start = time.perf_counter_ns()
    thread = threading.Thread(target=writer)
    thread.start()
    for _ in range(burst):
        if not out.readline():
            sys.exit("bench: the server (or proxy) closed its output during the burst")
    elapsed = time.perf_counter_ns() - start
    thread.join()
    server.stdin.close()
    server.wait()
    print(json.dumps({
        "median_us": times[len(times) // 2] / 1000,
        "p99_us": times[min(len(times) - 1, len(times) * 99 // 100)] / 1000,
        "burst_calls_per_s": burst / (elapsed / 1e9),
        "burst_s": elapsed / 1e9,
    }))


main()
