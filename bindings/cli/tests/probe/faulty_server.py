"""A small stdio MCP server (2026-07-28, per-request `_meta`) with one seeded fault at a time,
for `mcpgen probe`'s tests. Without `--fault` it answers as the spec says, so the probe must
find nothing; each fault breaks one rule (LOG breaks two), and the probe must report that rule
and no other. FAULTS below is the list, each with the rule the probe must find; the CLI test
(bindings/cli/tests/probe.rs) runs every one and docs/probe.md has the same table.
"""

import json
import sys

FAULTS = {
    "log-without-capability": "LOG-5, LOG-1: a log notification before a tools/call result; `logging` undeclared, no logLevel asked",
    "unknown-method-internal": "MSG-9: -32603 for unknown (and removed) methods, where -32601 is due",
    "answers-notifications": "MSG-4: an error response to notifications/cancelled for an unknown id",
    "version-without-data": "VER-1: -32022 without `data.supported`",
    "missing-result-type": "RESULT-1: a tools/list result without `resultType`",
    "error-id-null": "ID-4: an extra error response with `id: null` before the answer to an unknown method",
    "retired-not-found-code": "ERR-4: the retired -32002 for a resource that does not exist",
    "bad-meta-key": "META-1: a `_meta` key that is no valid name in the tools/list result",
    "resources-undeclared": "CAP-2: `resources` undeclared, yet resources/list is served",
    "accepts-invalid-arguments": "TOOL-5: echo does not validate its arguments",
    "bad-structured-content": "TOOL-4: stats' structuredContent does not match its outputSchema",
    "refuses-valid-arguments": "PROBE-4: -32602 for echo with `times: 3`, which the schema allows",
    "prompt-missing-argument-internal": "PROMPT-2: -32603 for prompts/get without a required argument",
    "resource-not-found-empty": "RES-1: an empty `contents` for a resource that does not exist",
    "completion-wrong-code": "COMP-2: `completions` undeclared, and completion/complete answered -32603",
    "progress-backwards": "PROG-3: progress that goes down",
    "progress-unknown-token": "PROG-2: progress naming a token no request carries",
    "unknown-tool-internal": "TOOL-11: -32603 for a tools/call of a tool not listed",
    "server-cancels": "CANCEL-7: a notifications/cancelled from the server naming a tools/call",
    "list-changed-undeclared": "SUB-12: notifications/tools/list_changed without `tools.listChanged`",
    "endless-cursor": "PROBE-1: prompts/list always has a next page",
    "id-retyped": "ID-3: a string id of digits echoed as a number (7 for \"7\")",
    "batch-answered": "MSG-1: a one-request batch processed as if batches were supported (an array answered)",
    "tool-name-odd": "TOOL-2: a listed tool named `read file` (a space; a SHOULD: a warning)",
    "read-without-hints": "CACHE-1: a resources/read result without `ttlMs` and `cacheScope`",
}

FAULT = sys.argv[sys.argv.index("--fault") + 1] if "--fault" in sys.argv else None
if FAULT is not None and FAULT not in FAULTS:
    sys.exit("faulty_server: unknown fault " + FAULT)
VERSION = "2026-07-28"
META = {"io.modelcontextprotocol/serverInfo": {"name": "faulty", "version": "1"}}
TOOLS = [
    {"name": "echo", "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string", "maxLength": 32},
                       "times": {"type": "integer", "minimum": 1, "maximum": 3},
                       "mode": {"enum": ["plain", "loud"]}},
        "required": ["text"], "additionalProperties": False},
     "annotations": {"readOnlyHint": True, "openWorldHint": False}},
    {"name": "stats", "inputSchema": {"type": "object", "additionalProperties": False},
     "outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]},
     "annotations": {"readOnlyHint": True, "openWorldHint": False}},
    {"name": "wipe", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": True}},
]
PROMPTS = [{"name": "greet", "arguments": [{"name": "who", "required": True}, {"name": "tone"}]}]
RESOURCES = [{"uri": "file:///hello.txt", "name": "hello"}]


HELD = None  # the answers of a batch being served as one (fault batch-answered)


def send(message):
    if FAULT == "id-retyped" and isinstance(message.get("id"), str) and message["id"].isdigit():
        message = dict(message, id=int(message["id"]))
    if HELD is not None:
        return HELD.append(message)
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def error(id_, code, message, data=None):
    e = {"code": code, "message": message}
    if data is not None:
        e["data"] = data
    send({"jsonrpc": "2.0", "id": id_, "error": e})


def result(id_, body):
    send({"jsonrpc": "2.0", "id": id_, "result": dict(body, resultType="complete")})


def capabilities():
    caps = {"tools": {}, "prompts": {}, "resources": {}, "completions": {}}
    if FAULT == "resources-undeclared":
        del caps["resources"]
    if FAULT == "completion-wrong-code":
        del caps["completions"]
    return caps


def echo_problem(args):
    """Why echo's arguments fail its inputSchema, or None."""
    if not isinstance(args, dict):
        return "arguments must be an object"
    extra = sorted(set(args) - {"text", "times", "mode"})
    if extra:
        return "unknown member " + extra[0]
    text = args.get("text")
    if not isinstance(text, str) or len(text) > 32:
        return "`text` must be a string of at most 32 characters"
    times = args.get("times", 1)
    if isinstance(times, bool) or not isinstance(times, int) or not 1 <= times <= 3:
        return "`times` must be an integer from 1 to 3"
    if args.get("mode", "plain") not in ("plain", "loud"):
        return "`mode` must be plain or loud"
    return None


def call_tool(id_, params):
    name = params.get("name")
    args = params.get("arguments", {})
    if name == "wipe":
        sys.stderr.write("faulty_server: wipe was called\n")
    token = (params.get("_meta") or {}).get("progressToken")
    if token is not None:
        if FAULT == "progress-unknown-token":
            token = "not-the-token"
        for p in ([2, 1] if FAULT == "progress-backwards" else [1, 2]):
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": p, "total": 2}})
    if FAULT == "log-without-capability":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "calling"}})
    if FAULT == "server-cancels":
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id_}})
    if FAULT == "list-changed-undeclared":
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    if name == "echo":
        problem = None if FAULT == "accepts-invalid-arguments" else echo_problem(args)
        if problem:
            return result(id_, {"content": [{"type": "text", "text": problem}], "isError": True})
        if FAULT == "refuses-valid-arguments" and args.get("times") == 3:
            return error(id_, -32602, "Invalid params")
        return result(id_, {"content": [{"type": "text", "text": str(args.get("text"))}]})
    if name == "stats":
        if args:
            return result(id_, {"content": [{"type": "text", "text": "stats takes no arguments"}], "isError": True})
        count = "many" if FAULT == "bad-structured-content" else 1
        return result(id_, {"content": [{"type": "text", "text": str(count)}], "structuredContent": {"count": count}})
    if name == "wipe":
        return result(id_, {"content": [{"type": "text", "text": "wiped"}]})
    return error(id_, -32603 if FAULT == "unknown-tool-internal" else -32602, "Unknown tool: " + str(name))


def serve(msg):
    id_ = msg.get("id")
    method = msg.get("method")
    if "id" not in msg:
        if FAULT == "answers-notifications" and method == "notifications/cancelled":
            send({"jsonrpc": "2.0", "error": {"code": -32602, "message": "unknown request"}})
        return  # notifications: nothing to answer
    if msg.get("jsonrpc") != "2.0":
        return error(id_, -32600, "Invalid Request: jsonrpc must be 2.0")
    if not isinstance(method, str):
        return error(id_, -32600, "Invalid Request: method must be a string")
    if "params" in msg and not isinstance(msg["params"], dict):
        return error(id_, -32600, "Invalid Request: params must be an object")
    params = msg.get("params") or {}
    meta = params.get("_meta")
    if method == "initialize":
        return error(id_, -32602, "this server speaks 2026-07-28 only", {"supported": [VERSION]})
    if not isinstance(meta, dict) or not isinstance(meta.get("io.modelcontextprotocol/clientCapabilities"), dict):
        return error(id_, -32602, "Invalid params: missing params._meta")
    requested = meta.get("io.modelcontextprotocol/protocolVersion")
    if requested != VERSION:
        data = None if FAULT == "version-without-data" else {"supported": [VERSION], "requested": requested}
        return error(id_, -32022, "Unsupported protocol version", data)
    caps = capabilities()
    if method == "server/discover":
        return result(id_, {"supportedVersions": [VERSION], "capabilities": caps, "_meta": META,
                            "ttlMs": 0, "cacheScope": "public"})
    if method == "tools/list":
        tools = TOOLS + ([{"name": "read file", "inputSchema": {"type": "object"}}] if FAULT == "tool-name-odd" else [])
        body = {"tools": tools, "ttlMs": 0, "cacheScope": "public"}
        if FAULT == "bad-meta-key":
            body["_meta"] = {"not a key!": 1}
        if FAULT == "missing-result-type":
            return send({"jsonrpc": "2.0", "id": id_, "result": body})
        return result(id_, body)
    if method == "tools/call":
        return call_tool(id_, params)
    if method == "prompts/list":
        body = {"prompts": PROMPTS, "ttlMs": 0, "cacheScope": "public"}
        if FAULT == "endless-cursor":
            body["nextCursor"] = "more"
        return result(id_, body)
    if method == "prompts/get":
        args = params.get("arguments") or {}
        if params.get("name") != "greet":
            return error(id_, -32602, "Unknown prompt")
        if "who" not in args:
            code = -32603 if FAULT == "prompt-missing-argument-internal" else -32602
            return error(id_, code, "Missing required argument: who")
        return result(id_, {"messages": [{"role": "user", "content": {"type": "text", "text": "Hello " + str(args["who"])}}]})
    if method == "completion/complete" and "completions" in caps:
        values = ["ada", "grace"] if params.get("argument", {}).get("name") == "who" else ["calm"]
        return result(id_, {"completion": {"values": values}})
    if method == "completion/complete" and FAULT == "completion-wrong-code":
        return error(id_, -32603, "Internal error")
    if method == "resources/list" and ("resources" in caps or FAULT == "resources-undeclared"):
        return result(id_, {"resources": RESOURCES, "ttlMs": 0, "cacheScope": "public"})
    if method == "resources/read" and "resources" in caps:
        uri = params.get("uri")
        if uri == "file:///hello.txt":
            body = {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "hello"}]}
            if FAULT != "read-without-hints":
                body.update(ttlMs=60000, cacheScope="public")
            return result(id_, body)
        if FAULT == "resource-not-found-empty":
            return result(id_, {"contents": [], "ttlMs": 0, "cacheScope": "public"})
        if FAULT == "retired-not-found-code":
            return error(id_, -32002, "Resource not found")
        return error(id_, -32602, "Resource not found: " + str(uri))
    if FAULT == "error-id-null":
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "Method not found"}})
    code = -32603 if FAULT == "unknown-method-internal" else -32601
    return error(id_, code, "Method not found: " + str(method))


def serve_batch(items):
    """2026-07-28 has no batches: an Invalid Request without an id (none could be read)."""
    global HELD
    if FAULT != "batch-answered":
        return send({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request: a batch"}})
    HELD = []
    for item in items:
        serve(item)
    answers, HELD = HELD, None
    sys.stdout.write(json.dumps(answers) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if line.strip():
        msg = json.loads(line)
        if isinstance(msg, list):
            serve_batch(msg)
        else:
            serve(msg)
