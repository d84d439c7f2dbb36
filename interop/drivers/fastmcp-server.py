"""A FastMCP server (PyPI `fastmcp`, on the Python SDK `mcp` 2.x) written the way its README
shows, for the real-server panel of `cargo xtask interop` (docs/testing.md): `mcpgen probe` is
pointed at it with default settings over both transports.

    python fastmcp-server.py --mode stdio|http

Over HTTP it listens on 127.0.0.1 on a free port and prints
`listening on http://127.0.0.1:PORT/mcp`; `--mode stdio` serves stdin/stdout.
"""

from __future__ import annotations

import argparse
import socket

from fastmcp import FastMCP
from pydantic import BaseModel

mcp = FastMCP("interop-fastmcp-server", instructions="FastMCP server for mcpgen's panel.", version="1.0.0")

# Both tools are read-only and closed-world, so the probe's default policy calls them.
SAFE = {"readOnlyHint": True, "openWorldHint": False}


@mcp.tool(annotations=SAFE)
def echo(text: str) -> str:
    """Echoes its text."""
    return text


class Sum(BaseModel):
    """The result of `add`: FastMCP derives the tool's outputSchema from it."""

    a: float
    b: float
    sum: float


@mcp.tool(annotations=SAFE)
def add(a: float, b: float) -> Sum:
    """Adds two numbers (structured output)."""
    return Sum(a=a, b=b, sum=a + b)


@mcp.prompt()
def greeting(color: str) -> str:
    """A greeting in a color."""
    return f"Say hello in {color}."


@mcp.resource("demo://readme", mime_type="text/plain")
def readme() -> str:
    """The demo resource."""
    return "Panel demo resource."


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["stdio", "http"], required=True)
    args = parser.parse_args()
    if args.mode == "stdio":
        mcp.run(transport="stdio", show_banner=False)
        return
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections queue from now on, before uvicorn accepts them
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    mcp.run(transport="http", show_banner=False, host="127.0.0.1", path="/mcp", log_level="warning", sockets=[sock])


if __name__ == "__main__":
    main()
