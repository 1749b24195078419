"""An OTLP/gRPC trace receiver on the official definitions (PyPI `grpcio`, and the
generated `TraceService` of `opentelemetry-proto`), independent of the Rust client
it tests.

    otlp_grpc_server.py OUT [--cert CERT --key KEY] [--fail CODE MESSAGE]

Listens on 127.0.0.1, on a free port it prints on stdout (one line), and serves
`opentelemetry.proto.collector.trace.v1.TraceService/Export` until its standard
input closes. Each call received is appended to OUT as one line of JSON,
`{"request": R, "metadata": M}`: R the `ExportTraceServiceRequest` in protobuf's
JSON mapping (`json_format`, enums as numbers) with its trace and span ids in
lowercase hex, as OTLP/JSON writes them (not base64), and M the call's metadata
(`{"key": "value", ...}`).

With CERT and KEY (PEM files) it speaks TLS. With `--fail`, every call is recorded
and then answered with the status CODE (a name, such as UNAVAILABLE) and MESSAGE.
"""

import argparse
import base64
import json
import sys
import threading
from concurrent import futures

import grpc
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1 import (
    trace_service_pb2,
    trace_service_pb2_grpc,
)


def hex_ids(request):
    """`request`'s JSON with its span ids in hex, as OTLP/JSON writes them."""
    for resource in request.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return request


class Receiver(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, out, fail):
        self.out = out
        self.fail = fail
        self.lock = threading.Lock()

    def Export(self, request, context):
        line = {
            "request": hex_ids(
                json_format.MessageToDict(request, use_integers_for_enums=True)
            ),
            "metadata": {key: value for key, value in context.invocation_metadata()},
        }
        with self.lock, open(self.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(line, sort_keys=True) + "\n")
        if self.fail is not None:
            code, message = self.fail
            context.abort(code, message)
        return trace_service_pb2.ExportTraceServiceResponse()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--fail", nargs=2, metavar=("CODE", "MESSAGE"))
    args = parser.parse_args()
    fail = None
    if args.fail:
        fail = (grpc.StatusCode[args.fail[0]], args.fail[1])
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(
        Receiver(args.out, fail), server
    )
    if args.cert:
        with open(args.cert, "rb") as f:
            cert = f.read()
        with open(args.key, "rb") as f:
            key = f.read()
        credentials = grpc.ssl_server_credentials([(key, cert)])
        port = server.add_secure_port("127.0.0.1:0", credentials)
    else:
        port = server.add_insecure_port("127.0.0.1:0")
    if port == 0:
        sys.exit("cannot listen")
    server.start()
    print(port, flush=True)
    sys.stdin.read()
    server.stop(grace=None)


if __name__ == "__main__":
    main()
