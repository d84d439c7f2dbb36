"""A stdio MCP server (2026-07-28) that tries to make `mcpgen probe` hold more memory than its
documented bound (bindings/cli/tests/probe_memory.rs, docs/security.md):

- `--mode notes`: before every answer, NOTES log notifications of 1 MiB each;
- `--mode pages`: `tools/list` answers pages of PAGE tools with a cursor that never ends.
"""

import json
import sys

MODE = sys.argv[sys.argv.index("--mode") + 1]
NOTES = 24
PAGE = 60000
META = {"io.modelcontextprotocol/serverInfo": {"name": "hostile-memory", "version": "1"}}
NOTE = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "data": "x" * (1 << 20)}}) + "\n"


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def page(cursor):
    start = int(cursor or 0)
    tools = [{"name": f"t{start + i}", "description": "a tool of the endless list",
              "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}
             for i in range(PAGE)]
    return {"resultType": "complete", "tools": tools, "nextCursor": str(start + PAGE)}


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
        continue
    if MODE == "notes":
        for _ in range(NOTES):
            sys.stdout.write(NOTE)
        sys.stdout.flush()
    method, rid = msg["method"], msg["id"]
    if method == "server/discover":
        result = {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                  "capabilities": {"tools": {}, "logging": {}}, "_meta": META}
    elif method == "tools/list":
        result = page((msg.get("params") or {}).get("cursor")) if MODE == "pages" else \
            {"resultType": "complete", "tools": []}
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "not here"}})
        continue
    send({"jsonrpc": "2.0", "id": rid, "result": result})
