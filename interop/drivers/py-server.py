"""An MCP server on the official Python SDK (PyPI `mcp`, `MCPServer`), for `cargo xtask interop`
(docs/reference.md): mcpgen-reference-client is run against it over Streamable HTTP, and
`mcpgen probe` over both transports.

    python py-server.py --mode sessionful|stateless|stdio [--call-log FILE]

With `--call-log FILE` the server appends one JSON line per `tools/call` it receives —
`{"id", "name", "arguments"}`, written by a server middleware before the SDK looks the tool up
or checks its arguments — so a run can prove which calls reached the server.
Over HTTP it listens on 127.0.0.1 on a free port and prints
`listening on http://127.0.0.1:PORT/mcp`; `--mode stdio` serves stdin/stdout.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.mcpserver import Context, MCPServer

COLORS = ["amber", "azure", "crimson"]

mcp = MCPServer("interop-py-server", instructions="Python SDK server for mcpgen interop runs.", version="1.0.0")


@mcp.tool()
def echo(text: str) -> str:
    """Echoes its text."""
    return text


@mcp.tool()
def add(a: float, b: float) -> float:
    """Adds two numbers."""
    return a + b


@mcp.tool()
async def log(ctx: Context) -> str:
    """Sends two log messages, then answers."""
    await ctx.info("log tool started")
    await ctx.debug("log tool finished")
    return "logged"


@mcp.prompt()
def greeting(color: str) -> str:
    """A greeting in a color."""
    return f"Say hello in {color}."


@mcp.prompt(name="grüße")
def gruesse() -> str:
    """A prompt whose name is not ASCII (its HTTP Mcp-Name travels Base64-encoded)."""
    return "Grüße!"


@mcp.resource("demo://readme", mime_type="text/plain")
def readme() -> str:
    """The demo resource."""
    return "Interop demo resource."


@mcp.resource("demo://item/{id}", mime_type="application/json")
def item(id: str) -> str:
    """One item by id."""
    return json.dumps({"id": id})


@mcp.completion()
async def complete(
    ref: types.PromptReference | types.ResourceTemplateReference,
    argument: types.CompletionArgument,
    _context: types.CompletionContext | None,
) -> types.Completion | None:
    if isinstance(ref, types.PromptReference) and ref.name == "greeting" and argument.name == "color":
        return types.Completion(values=[c for c in COLORS if c.startswith(argument.value)])
    if isinstance(ref, types.ResourceTemplateReference) and argument.name == "id":
        return types.Completion(values=[i for i in ("1", "2", "3") if i.startswith(argument.value)])
    return None


class CallLog:
    """A server middleware (it wraps every inbound request: lookup, validation, handler) that
    appends each `tools/call` to a file, one JSON line each, flushed before the call goes on."""

    def __init__(self, path: str) -> None:
        self.path = path

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/call":
            params = dict(ctx.params or {})
            line = {"id": ctx.request_id, "name": params.get("name"), "arguments": params.get("arguments")}
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(line) + "\n")
        return await call_next(ctx)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["sessionful", "stateless", "stdio"], required=True)
    parser.add_argument("--call-log")
    args = parser.parse_args()
    if args.call_log:
        mcp.middleware.insert(0, CallLog(args.call_log))
    if args.mode == "stdio":
        await mcp.run_stdio_async()
        return
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections queue from now on, before uvicorn accepts them
    app = mcp.streamable_http_app(stateless_http=args.mode == "stateless")
    config = uvicorn.Config(app, log_level="warning")
    server = uvicorn.Server(config)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    await server.serve(sockets=[sock])


if __name__ == "__main__":
    sys.exit(anyio.run(main))
