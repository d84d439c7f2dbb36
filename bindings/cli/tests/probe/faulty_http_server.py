"""A small Streamable HTTP MCP server with one seeded HTTP fault at a time, for `mcpgen probe
URL`'s tests (Python standard library only). It serves both eras: 2026-07-28 (per-request
`_meta`, the standard headers checked against the body) and legacy sessions (`initialize` at
2025-11-25 or 2025-06-18, `Mcp-Session-Id`, ended by DELETE). Without `--fault` it answers as the
spec says, so the probe must find nothing; each fault breaks one rule, and the probe must report
that rule and no other.

It listens on 127.0.0.1 (an ephemeral port) and prints `listening on URL` on stdout; every
DELETE of a session is logged on stderr (`faulty_http_server: DELETE <id>`).

Faults:
  content-type-text  a tools/list response declared `text/plain` (HTTP-6)
  mismatch-200       -32020 HeaderMismatch answered with HTTP 200 instead of 400 (ERR-8)
  ignore-method      a request whose Mcp-Method differs from its body's method is served (HTTP-11)
  ignore-param       a tools/call without its Mcp-Param-* header is served (XHDR-9)
  version-500        -32022 UnsupportedProtocolVersion answered with HTTP 500 (HTTP-9)
  origin-ignored     a request with a foreign Origin is served (HTTP-2: an error on 127.0.0.1)

Without a fault, a request whose `Origin` is not a loopback origin gets 403 (DNS-rebinding
protection), and a batch (a JSON array, which these revisions do not have) -32600 with HTTP 400.
"""

import json
import sys
import uuid
from urllib.parse import urlsplit
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAULT = sys.argv[sys.argv.index("--fault") + 1] if "--fault" in sys.argv else None
MODERN = "2026-07-28"
LEGACY = ["2025-11-25", "2025-06-18"]
META = {"io.modelcontextprotocol/serverInfo": {"name": "faulty-http", "version": "1"}}
TOOLS = [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
     "annotations": {"readOnlyHint": True, "openWorldHint": False}},
    {"name": "lookup", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}}, "required": ["region"]},
     "annotations": {"readOnlyHint": True, "openWorldHint": False}},
    {"name": "wipe", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": True}},
]
LEGACY_TOOLS = [t for t in TOOLS if t["name"] != "lookup"]
SESSIONS = {}
NAME_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def error(id_, code, message, data=None):
    e = {"code": code, "message": message}
    if data is not None:
        e["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": e}


def result(id_, body):
    return {"jsonrpc": "2.0", "id": id_, "result": body}


def bad_arguments(tool, arguments):
    """Why `arguments` fail the tool's inputSchema (every tool here: required string members), or None."""
    if not isinstance(arguments, dict):
        return "arguments must be an object"
    schema = tool["inputSchema"]
    for name in schema.get("required", []):
        if name not in arguments:
            return "missing " + name
    for name, member in schema.get("properties", {}).items():
        if name in arguments and member.get("type") == "string" and not isinstance(arguments[name], str):
            return name + " must be a string"
    return None


def call_result(tool, arguments, modern):
    """A tools/call result: a tool error for arguments the schema refuses (input validation is a
    tool-execution error in these revisions)."""
    why = bad_arguments(tool, arguments if arguments is not None else {})
    body = {"content": [{"type": "text", "text": why or ("called " + tool["name"])}]}
    if why:
        body["isError"] = True
    if modern:
        body["resultType"] = "complete"
    return body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, message, content_type="application/json", sse=False):
        if message is None:
            body = b""
        elif sse:
            # A priming event (no data), then the message.
            body = ("id: 1\nretry: 100\n\nevent: message\ndata: " + json.dumps(message) + "\n\n").encode()
            content_type = "text/event-stream"
        else:
            body = json.dumps(message).encode()
        self.send_response(status)
        if message is not None:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in getattr(self, "extra", []):
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_DELETE(self):
        session = self.headers.get("Mcp-Session-Id")
        if session in SESSIONS:
            del SESSIONS[session]
            sys.stderr.write("faulty_http_server: DELETE " + session + "\n")
            sys.stderr.flush()
            return self.answer(200, None)
        return self.answer(404, None)

    def foreign_origin(self):
        origin = self.headers.get("Origin")
        if origin is None or FAULT == "origin-ignored":
            return False
        return urlsplit(origin).hostname not in ("127.0.0.1", "localhost", "::1")

    def do_POST(self):
        self.extra = []
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.foreign_origin():
            return self.answer(403, None)
        try:
            msg = json.loads(body)
        except ValueError:
            return self.answer(400, error(None, -32700, "Parse error"))
        if isinstance(msg, list):
            # Invalid Request, with the id of the request in the batch where there is one.
            first = msg[0] if msg and isinstance(msg[0], dict) else {}
            return self.answer(400, error(first.get("id"), -32600, "Invalid Request: a batch"))
        id_ = msg.get("id")
        method = msg.get("method")
        session = self.headers.get("Mcp-Session-Id")
        if session is not None:
            if session not in SESSIONS:
                return self.answer(404, error(id_, -32600, "no such session"))
            return self.legacy(msg, id_, method, SESSIONS[session])
        if method == "initialize":
            version = (msg.get("params") or {}).get("protocolVersion")
            if version not in LEGACY:
                version = LEGACY[0]
            session = uuid.uuid4().hex
            SESSIONS[session] = version
            self.extra = [("Mcp-Session-Id", session)]
            return self.answer(200, result(id_, {"protocolVersion": version, "capabilities": {"tools": {}},
                                                  "serverInfo": {"name": "faulty-http", "version": "1"}}))
        return self.modern(msg, id_, method)

    def mismatch(self, id_, why):
        status = 200 if FAULT == "mismatch-200" else 400
        return self.answer(status, error(id_, -32020, "Header mismatch: " + why))

    def modern(self, msg, id_, method):
        if id_ is None:
            return self.answer(202, None)
        params = msg.get("params", {})
        # A bad envelope is check_request's -32600, whatever the headers (they mirror a body that
        # is no request).
        if not isinstance(method, str) or not isinstance(params, dict):
            return self.answer(400, error(id_, -32600, "Invalid Request: a string method and object params"))
        meta = params.get("_meta")
        requested = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, dict) else None
        header_version = self.headers.get("MCP-Protocol-Version")
        if requested is not None:
            if header_version is None:
                return self.mismatch(id_, "the MCP-Protocol-Version header is missing")
            if header_version != requested:
                return self.mismatch(id_, "MCP-Protocol-Version differs from the body")
            header_method = self.headers.get("Mcp-Method")
            if header_method is None:
                return self.mismatch(id_, "the Mcp-Method header is missing")
            if header_method != method and FAULT != "ignore-method":
                return self.mismatch(id_, "Mcp-Method differs from the body's method")
            key = NAME_PARAM.get(method)
            if key is not None and isinstance(params.get(key), str):
                if self.headers.get("Mcp-Name") != params[key]:
                    return self.mismatch(id_, "Mcp-Name differs from the body")
        if msg.get("jsonrpc") != "2.0":
            return self.answer(400, error(id_, -32600, "Invalid Request: jsonrpc must be 2.0"))
        if not isinstance(meta, dict):
            return self.answer(400, error(id_, -32602, "Invalid params: missing params._meta"))
        if requested != MODERN:
            status = 500 if FAULT == "version-500" else 400
            return self.answer(status, error(id_, -32022, "Unsupported protocol version",
                                             {"supported": [MODERN] + LEGACY, "requested": requested}))
        if method == "server/discover":
            return self.answer(200, result(id_, {"resultType": "complete", "supportedVersions": [MODERN] + LEGACY,
                                                  "capabilities": {"tools": {}}, "_meta": META,
                                                  "ttlMs": 0, "cacheScope": "public"}))
        if method == "tools/list":
            ct = "text/plain" if FAULT == "content-type-text" else "application/json"
            return self.answer(200, result(id_, {"resultType": "complete", "tools": TOOLS, "ttlMs": 0,
                                                  "cacheScope": "public"}), content_type=ct)
        if method == "tools/call":
            name = params.get("name")
            tool = next((t for t in TOOLS if t["name"] == name), None)
            if tool is None:
                return self.answer(200, error(id_, -32602, "Unknown tool: " + str(name)))
            if name == "lookup" and FAULT != "ignore-param":
                region = (params.get("arguments") or {}).get("region")
                if self.headers.get("Mcp-Param-Region") != region:
                    return self.mismatch(id_, "Mcp-Param-Region differs from the argument region")
            if name == "wipe":
                sys.stderr.write("faulty_http_server: wipe was called\n")
            return self.answer(200, result(id_, call_result(tool, params.get("arguments"), True)), sse=True)
        return self.answer(200, error(id_, -32601, "Method not found: " + str(method)))

    def legacy(self, msg, id_, method, version):
        if self.headers.get("MCP-Protocol-Version") != version:
            return self.answer(400, error(id_, -32600, "MCP-Protocol-Version must be " + version))
        if id_ is None:
            return self.answer(202, None)
        if method == "tools/list":
            return self.answer(200, result(id_, {"tools": LEGACY_TOOLS}))
        if method == "tools/call":
            params = msg.get("params") or {}
            tool = next((t for t in LEGACY_TOOLS if t["name"] == params.get("name")), None)
            if tool is None:
                return self.answer(200, error(id_, -32602, "Unknown tool: " + str(params.get("name"))))
            return self.answer(200, result(id_, call_result(tool, params.get("arguments"), False)), sse=True)
        if method == "ping":
            return self.answer(200, result(id_, {}))
        return self.answer(200, error(id_, -32601, "Method not found: " + str(method)))


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("listening on http://127.0.0.1:%d/mcp" % server.server_address[1], flush=True)
server.serve_forever()
