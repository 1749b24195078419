"""The server of server.py over Streamable HTTP, for the proxy tests.

    python server_http.py PORT             serves server.py's tools at
                                           http://127.0.0.1:PORT/mcp
    python server_http.py PORT --redirect URL
                                           the same, but a tools/call of
                                           read_file is answered with a 307 to
                                           URL

Each request's credential headers (Authorization, X-API-Key) are appended to
headers.log, so that a test can see what reached the server.
"""

import sys

import uvicorn

from server import mcp


def logging_headers(app):
    async def wrapped(scope, receive, send):
        if scope["type"] == "http":
            seen = {key.decode(): value.decode() for key, value in scope["headers"]}
            with open("headers.log", "a", encoding="utf-8") as log:
                for name in ("authorization", "x-api-key"):
                    if name in seen:
                        log.write(f"{scope['method']} {name}: {seen[name]}\n")
        await app(scope, receive, send)

    return wrapped


def redirecting(app, location):
    async def wrapped(scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if b'"tools/call"' in body and b'"read_file"' in body:
            await send({"type": "http.response.start", "status": 307, "headers": [(b"location", location.encode())]})
            await send({"type": "http.response.body", "body": b""})
            return
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await app(scope, replay, send)

    return wrapped


def main():
    port = int(sys.argv[1])
    app = logging_headers(mcp.streamable_http_app())
    if sys.argv[2:3] == ["--redirect"]:
        app = redirecting(app, sys.argv[3])
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
