"""The server of server2.py (SDK 2.x) over Streamable HTTP, for the proxy tests.

    python server2_http.py PORT      serves server2.py's tools at
                                     http://127.0.0.1:PORT/mcp
"""

import sys

import uvicorn

from server2 import mcp


def main():
    app = mcp.streamable_http_app()
    config = uvicorn.Config(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", lifespan="on")
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
