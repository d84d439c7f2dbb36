"""A stdio MCP server (2026-07-28) that writes every request it receives to the file named by
`--log`, one JSON line each, for `mcpgen probe`'s safety test (bindings/cli/tests/probe_safety.rs).
Its tools cover the annotation combinations, its prompts arguments a server could act on.
"""

import json
import sys

LOG = open(sys.argv[sys.argv.index("--log") + 1], "a")
TOOLS = [
    {"name": "reader", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": True, "openWorldHint": False}},
    {"name": "open_reader", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": True, "openWorldHint": True}},
    {"name": "unsaid_world", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
    {"name": "writer", "inputSchema": {"type": "object"}, "annotations": {"openWorldHint": False}},
    {"name": "bare", "inputSchema": {"type": "object"}},
]
PROMPTS = [
    {"name": "greet", "arguments": [{"name": "who", "required": True}]},
    {"name": "summarize_page", "arguments": [{"name": "pageUrl", "required": True}]},
    {"name": "explain", "arguments": [{"name": "target", "description": "The file to read", "required": True}]},
    {"name": "run", "arguments": [{"name": "cmd"}]},
]
META = {"io.modelcontextprotocol/serverInfo": {"name": "recording", "version": "1"}}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    LOG.write(line.strip() + "\n")
    LOG.flush()
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
        continue
    id_, method = msg["id"], msg["method"]
    if method == "server/discover":
        body = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}, "prompts": {}}, "_meta": META}
    elif method == "tools/list":
        body = {"tools": TOOLS, "ttlMs": 0, "cacheScope": "public"}
    elif method == "prompts/list":
        body = {"prompts": PROMPTS, "ttlMs": 0, "cacheScope": "public"}
    elif method == "tools/call":
        body = {"content": [{"type": "text", "text": "ok"}]}
    elif method == "prompts/get":
        body = {"messages": [{"role": "user", "content": {"type": "text", "text": "hello"}}]}
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "Method not found"}})
        continue
    send({"jsonrpc": "2.0", "id": id_, "result": dict(body, resultType="complete")})
