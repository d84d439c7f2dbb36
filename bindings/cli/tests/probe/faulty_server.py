"""A small stdio MCP server (2026-07-28, per-request `_meta`) with one seeded fault at a time,
for `mcpgen probe`'s tests. Without `--fault` it answers as the spec says, so the probe must
find nothing; each fault breaks one rule, and the probe must report that rule and no other.

Faults:
  log-without-capability  a log notification before a tools/call result; `logging` undeclared (LOG-5)
  unknown-method-internal  -32603 for an unknown method, where -32601 is due (MSG-9)
  version-without-data     -32022 without `data.supported` (VER-1)
  missing-result-type      a tools/list result without `resultType` (a schema error, no rule id)
"""

import json
import sys

FAULT = sys.argv[sys.argv.index("--fault") + 1] if "--fault" in sys.argv else None
VERSION = "2026-07-28"
META = {"io.modelcontextprotocol/serverInfo": {"name": "faulty", "version": "1"}}
TOOLS = [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
     "annotations": {"readOnlyHint": True}},
    {"name": "wipe", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": True}},
]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def error(id_, code, message, data=None):
    e = {"code": code, "message": message}
    if data is not None:
        e["data"] = data
    send({"jsonrpc": "2.0", "id": id_, "error": e})


def result(id_, body):
    send({"jsonrpc": "2.0", "id": id_, "result": dict(body, resultType="complete")})


def serve(msg):
    id_ = msg.get("id")
    method = msg.get("method")
    if id_ is None:
        return  # notifications: nothing to answer
    if msg.get("jsonrpc") != "2.0":
        return error(id_, -32600, "Invalid Request: jsonrpc must be 2.0")
    meta = (msg.get("params") or {}).get("_meta")
    if method == "initialize":
        return error(id_, -32602, "this server speaks 2026-07-28 only", {"supported": [VERSION]})
    if not isinstance(meta, dict):
        return error(id_, -32602, "Invalid params: missing params._meta")
    requested = meta.get("io.modelcontextprotocol/protocolVersion")
    if requested != VERSION:
        data = None if FAULT == "version-without-data" else {"supported": [VERSION], "requested": requested}
        return error(id_, -32022, "Unsupported protocol version", data)
    if method == "server/discover":
        return result(id_, {"supportedVersions": [VERSION], "capabilities": {"tools": {}}, "_meta": META,
                            "ttlMs": 0, "cacheScope": "public"})
    if method == "tools/list":
        body = {"tools": TOOLS, "ttlMs": 0, "cacheScope": "public"}
        if FAULT == "missing-result-type":
            return send({"jsonrpc": "2.0", "id": id_, "result": body})
        return result(id_, body)
    if method == "tools/call":
        name = msg["params"].get("name")
        if name == "wipe":
            sys.stderr.write("faulty_server: wipe was called\n")
        if FAULT == "log-without-capability":
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "calling"}})
        return result(id_, {"content": [{"type": "text", "text": "called " + str(name)}]})
    code = -32603 if FAULT == "unknown-method-internal" else -32601
    return error(id_, code, "Method not found: " + str(method))


for line in sys.stdin:
    if line.strip():
        serve(json.loads(line))
