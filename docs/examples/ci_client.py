"""A scripted MCP client for CI: it starts a stdio server behind `mcpgen proxy --record`,
lists the server's tools and calls every tool that needs no arguments, so the record holds a
real session for `mcpgen validate --conversation` to judge.

Usage: python3 ci_client.py RECORD.jsonl -- SERVER [ARGS...]
Needs the MCP Python SDK (`pip install mcp`) and `mcpgen` on PATH (or MCPGEN=/path/to/mcpgen).
Exit status: 0 when the session ran (whatever mcpgen found: judge the record afterwards).
"""

import asyncio
import os
import sys

from mcp import Client, StdioServerParameters


async def session(record: str, server: list[str]) -> None:
    mcpgen = os.environ.get("MCPGEN", "mcpgen")
    params = StdioServerParameters(command=mcpgen, args=["proxy", "--record", record, "--", *server])
    async with Client(params) as client:
        tools = await client.list_tools()
        for tool in tools.tools:
            if not (tool.input_schema or {}).get("required"):
                await client.call_tool(tool.name, {})


def main() -> None:
    args = sys.argv[1:]
    if len(args) < 3 or args[1] != "--":
        sys.exit(__doc__)
    asyncio.run(session(args[0], args[2:]))


if __name__ == "__main__":
    main()
