"""The README's "Use from Python" example, type-checked with `mypy --strict` and run by the
test command."""

import json

import mcpgen
from mcpgen.rev_2026_07_28 import CallToolRequest, TextContent

request: CallToolRequest = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
        "name": "get_weather",
        "arguments": {"city": "Paris"},
    },
}

# Validate Python data in place, or JSON text (bytes/str) with the GIL released.
mcpgen.validate(request, "CallToolRequest")
mcpgen.validate(json.dumps(request).encode())  # no name: checked as an MCP message, by method

# Errors carry a JSON pointer, the schema keyword and path, a rule id, a message.
try:
    mcpgen.validate({**request, "method": "tools/calll"}, "CallToolRequest")
except mcpgen.ValidationError as e:
    for err in e.errors:
        print(err.pointer, err.keyword, err.message)

# Decode under an unknown-key policy: plain Python data back.
content: TextContent = mcpgen.decode(b'{"type":"text","text":"hi","x":1}', "TextContent", policy="lenient")
assert content == {"type": "text", "text": "hi"}

# Results are read by the method of the request they answer.
result = mcpgen.decode_result({"resultType": "complete", "content": []}, "tools/call")
print(result.variant)  # CallToolResult

# Server side: accept a request or get the exact JSON-RPC error to answer with.
try:
    accepted = mcpgen.check_request(json.dumps(request))
    print("serve", accepted.method, "under", accepted.revision)
except mcpgen.ProtocolError as refusal:
    print(refusal.http_status, refusal.to_response())

# Tool schemas: check what a server declares (a `$ref` to another document is refused, never
# fetched), then validate calls; a ToolChecker compiles each tool once and is thread-safe.
tool = {
    "name": "get_weather",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
checker = mcpgen.ToolChecker(limits={"max_depth": 32})
checker.validate_arguments(tool, {"city": "Paris"})
try:
    checker.validate_arguments(tool, {"city": 42})
except mcpgen.ValidationError as e:
    print(e.errors[0].pointer, e.errors[0].rule)  # /city TOOL-5
try:
    mcpgen.check_tool({"name": "t", "inputSchema": {"type": "object", "$ref": "https://example.com/s.json"}})
except mcpgen.ToolSchemaError as bad:
    print(bad.errors[0].kind, bad.errors[0].uri, bad.errors[0].rule)  # network_ref https://example.com/s.json JSCHEMA-5

# Icons: scheme, type allowlist, size and magic bytes; SVG (active content) only when allowed.
icon = mcpgen.check_icon("https://example.com/icon.png", "image/png", server="https://example.com/mcp")
print(icon.kind, icon.origin)  # remote https://example.com
try:
    mcpgen.check_icon_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "image/jpeg")
except mcpgen.IconError as refused:
    print(refused.kind, refused.rule)  # type_mismatch ICON-8
