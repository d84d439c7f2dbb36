"""The Python API itself: argument handling, how Python data maps to JSON, the exceptions and
their fields, and the installed package."""

import collections
import enum
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, Dict

import pytest

import mcpgen

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def call_tool(**params: Any) -> Dict[str, Any]:
    p: Dict[str, Any] = {"_meta": dict(META), "name": "get_weather"}
    p.update(params)
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": p}


def text(**extra: Any) -> Dict[str, Any]:
    return {"type": "text", "text": "hi", **extra}


# ---- package --------------------------------------------------------------------------------


def test_package_metadata() -> None:
    assert mcpgen.__version__.count(".") == 2
    assert mcpgen.REVISIONS[0] == "2026-07-28"
    assert set(mcpgen.REVISIONS) == {"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
    assert set(mcpgen.__all__) <= set(dir(mcpgen))
    assert "CallToolRequest" in mcpgen.definitions()
    assert "JSONRPCMessage" in mcpgen.definitions("2025-11-25")


@pytest.mark.skipif(os.environ.get("MCPGEN_TEST_INSTALLED") != "1", reason="only when run by `cargo xtask test` against the fresh install")
def test_runs_against_the_installed_package() -> None:
    # `cargo xtask test` installs the package into a fresh venv: the module under test must be
    # that installation, not the source tree.
    native = Path(mcpgen._native.__file__).resolve()  # type: ignore[attr-defined]
    assert Path(sys.prefix).resolve() in native.parents, native
    assert (native.parent / "py.typed").is_file()
    assert (native.parent / "_native.pyi").is_file()
    assert (native.parent / "rev_2026_07_28" / "__init__.py").is_file()


# ---- inputs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        json.dumps(call_tool()).encode(),
        json.dumps(call_tool()),
        bytearray(json.dumps(call_tool()).encode()),
        memoryview(json.dumps(call_tool()).encode()),
        call_tool(),
    ],
    ids=["bytes", "str", "bytearray", "memoryview", "dict"],
)
def test_every_input_kind(data: Any) -> None:
    mcpgen.validate(data, "CallToolRequest")
    mcpgen.validate(data)
    assert mcpgen.is_valid(data, "CallToolRequest")
    assert mcpgen.decode(data, "CallToolRequest")["params"]["name"] == "get_weather"


def test_python_types_map_to_json() -> None:
    # bool before int: True is a boolean, never the number 1.
    assert not mcpgen.is_valid(text(annotations={"priority": True}), "TextContent")
    assert mcpgen.is_valid(text(annotations={"priority": 1}), "TextContent")
    assert mcpgen.is_valid(text(annotations={"priority": 0.5}), "TextContent")
    # float → number, and 1.0 is an integer (JSON Schema), as in JSON text.
    progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1.0, "progress": 1}}
    assert mcpgen.is_valid(progress, "ProgressNotification") == mcpgen.is_valid(json.dumps(progress), "ProgressNotification")
    progress["params"]["progressToken"] = 1.5
    assert mcpgen.is_valid(progress, "ProgressNotification") == mcpgen.is_valid(json.dumps(progress), "ProgressNotification")
    # tuples are arrays; None is null; subclasses count as their base.
    assert mcpgen.is_valid({"role": "user", "content": (text(),)}, "PromptMessage") is False  # content is one block
    assert mcpgen.is_valid(call_tool(arguments={"xs": (1, 2), "n": None}), "CallToolRequest")

    class Color(enum.IntEnum):
        RED = 1

    class Name(str):
        pass

    data = collections.OrderedDict(call_tool(id=Color.RED))
    data["id"] = Color.RED
    data["params"]["name"] = Name("x")
    mcpgen.validate(data, "CallToolRequest")
    assert mcpgen.decode(data, "CallToolRequest")["id"] == 1


def test_decode_keeps_number_kinds_and_big_integers() -> None:
    out = mcpgen.decode(text(x=[1, 1.5, 2**80, -0.0, 1e300]), "TextContent")
    assert out["x"] == [1, 1.5, 2**80, -0.0, 1e300]
    assert [type(v) for v in out["x"]] == [int, float, int, float, float]
    # From text: integer literals are ints (any size), other numbers floats; the JSON form keeps
    # the exact text.
    src = b'{"type":"text","text":"hi","x":[50,1.50,1e2,12345678901234567890123]}'
    assert mcpgen.decode(src, "TextContent")["x"] == [50, 1.5, 100.0, 12345678901234567890123]
    assert '"x":[50,1.50,1e2,12345678901234567890123]' in mcpgen.decode_json(src, "TextContent")


def test_decode_output_is_plain_and_reencodes_unchanged() -> None:
    data = call_tool(arguments={"ratio": 0.5, "tags": ["a"], "nested": {"ok": True, "none": None}})
    data["params"]["_meta"]["com.example/trace"] = "abc"
    out = mcpgen.decode(data, "CallToolRequest")
    assert out == data
    assert mcpgen.decode(json.dumps(out), "CallToolRequest") == out


def test_policies() -> None:
    extra = text(x=1)
    assert mcpgen.decode(extra, "TextContent") == extra
    assert mcpgen.decode(extra, "TextContent", policy="lenient") == text()
    with pytest.raises(mcpgen.ValidationError) as e:
        mcpgen.decode(extra, "TextContent", policy="strict")
    assert e.value.errors[0].rule == "POLICY-STRICT"
    assert e.value.errors[0].keyword == "additionalProperties"
    assert not mcpgen.is_valid(extra, "TextContent", policy="strict")
    with pytest.raises(ValueError, match="unknown policy"):
        mcpgen.validate(extra, "TextContent", policy="loose")  # type: ignore[arg-type]


def test_strict_formats() -> None:
    link = {"type": "resource_link", "uri": "not a uri", "name": "x"}
    assert mcpgen.is_valid(link, "ResourceLink")
    assert not mcpgen.is_valid(link, "ResourceLink", strict_formats=True)
    with pytest.raises(mcpgen.ValidationError) as e:
        mcpgen.validate(link, "ResourceLink", strict_formats=True)
    assert e.value.errors[0].keyword == "format"
    assert e.value.errors[0].pointer == "/uri"


def test_revisions() -> None:
    legacy = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}
    assert not mcpgen.is_valid(legacy, "JSONRPCRequest", revision="2026-07-28") or mcpgen.is_valid(legacy, "JSONRPCRequest")
    assert mcpgen.is_valid(legacy, "CallToolRequest", revision="2025-11-25")
    assert not mcpgen.is_valid(legacy, "CallToolRequest", revision="2026-07-28")
    with pytest.raises(ValueError, match="unknown revision"):
        mcpgen.validate(legacy, "CallToolRequest", revision="1999-01-01")


# ---- errors ---------------------------------------------------------------------------------


def test_validation_error_fields() -> None:
    bad = call_tool()
    bad["method"] = "tools/calll"
    del bad["params"]["name"]
    with pytest.raises(mcpgen.ValidationError) as e:
        mcpgen.validate(bad, "CallToolRequest")
    err = e.value
    assert isinstance(err, ValueError) and isinstance(err, mcpgen.McpgenError)
    assert err.kind == "invalid"
    by_pointer = {x.pointer: x for x in err.errors}
    assert by_pointer["/method"].keyword == "const"
    assert by_pointer["/method"].schema_path == "#/$defs/CallToolRequest/properties/method/const"
    assert "tools/calll" in by_pointer["/method"].message
    assert by_pointer["/params"].keyword == "required"
    assert "name" in by_pointer["/params"].message
    assert "/method" in str(err)
    # Same errors from the JSON text.
    with pytest.raises(mcpgen.ValidationError) as e2:
        mcpgen.validate(json.dumps(bad), "CallToolRequest")
    assert e2.value.errors == err.errors


def test_union_errors_say_why_each_arm_failed() -> None:
    with pytest.raises(mcpgen.ValidationError) as e:
        mcpgen.validate({"type": "image", "data": 1}, "ContentBlock")
    top = e.value.errors
    assert any(x.arms or x.pointer.startswith("/data") or x.keyword == "required" for x in top)


def test_parse_error() -> None:
    with pytest.raises(mcpgen.ParseError) as e:
        mcpgen.validate(b'{"jsonrpc":"2.0",', "CallToolRequest")
    assert e.value.kind == "parse"
    assert (e.value.line, e.value.column, e.value.offset) == (1, 18, 17)
    assert isinstance(e.value, mcpgen.ValidationError)
    assert not mcpgen.is_valid(b"not json", "CallToolRequest")
    with pytest.raises(mcpgen.ParseError):
        mcpgen.validate(b"\xff", "CallToolRequest")


def test_unknown_definition() -> None:
    with pytest.raises(mcpgen.UnknownDefinitionError) as e:
        mcpgen.validate(b"not even json", "NoSuchThing")
    assert (e.value.revision, e.value.name) == ("2026-07-28", "NoSuchThing")
    assert isinstance(e.value, LookupError)


@pytest.mark.parametrize(
    "value,match",
    [
        ({1, 2}, "`set` is not JSON data"),
        (b"raw", "`bytes` is not JSON data"),
        (object(), "`object` is not JSON data"),
        (float("nan"), "NaN is not a JSON number"),
        (float("inf"), "inf is not a JSON number"),
        ("\ud800", r"a str is not valid Unicode \(lone surrogate\)"),
    ],
    ids=["set", "bytes", "object", "nan", "inf", "surrogate"],
)
def test_data_that_is_not_json(value: Any, match: str) -> None:
    # A ParseError, as for its text (test_not_json_data.py compares the two).
    for fn in (mcpgen.validate, mcpgen.decode):
        with pytest.raises(mcpgen.ParseError, match="not JSON data at `/x`: " + match):
            fn(text(x=value), "TextContent")
    assert mcpgen.is_valid(text(x=value), "TextContent") is False


def test_non_str_keys_and_cycles() -> None:
    with pytest.raises(mcpgen.ParseError, match="at `/annotations`: dict keys must be str, found `int`"):
        mcpgen.validate(text(annotations={1: "x"}), "TextContent")
    loop: list = []
    loop.append(loop)
    with pytest.raises(mcpgen.ParseError, match="nested deeper than 128 levels"):
        mcpgen.decode(text(x=loop), "TextContent")
    deep: Any = 0
    for _ in range(1_000_000):
        deep = [deep]
    with pytest.raises(mcpgen.ParseError, match="nested deeper than 128 levels"):
        mcpgen.decode(text(x=deep), "TextContent")
    # Within the limit, deep data is fine.
    ok: Any = 0
    for _ in range(100):
        ok = [ok]
    assert mcpgen.decode(text(x=ok), "TextContent")["x"] == ok


def test_wrong_argument_types() -> None:
    with pytest.raises(TypeError):
        mcpgen.validate(text(), 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        mcpgen.check_request(b"{}", supported_versions="2026-07-28")  # type: ignore[arg-type]


# ---- results and protocol -------------------------------------------------------------------


def test_decode_result() -> None:
    r = mcpgen.decode_result({"resultType": "input_required", "inputRequests": {}}, "tools/call")
    assert r.variant == "InputRequiredResult"
    r = mcpgen.decode_result({"content": []}, "tools/call")
    assert r.variant == "CallToolResult"
    assert "resultType" not in r.value
    assert json.loads(r.json) == r.value
    # A result for a method the revision does not have is refused (MSG-9), never kept raw.
    with pytest.raises(mcpgen.ValidationError) as e:
        mcpgen.decode_result({"anything": 1}, "vendor/method")
    assert e.value.errors[0].rule == "MSG-9"
    with pytest.raises(mcpgen.ValidationError) as e:
        mcpgen.decode_result({"resultType": "input_required", "inputRequests": {}}, "tools/list")
    assert e.value.kind == "protocol"
    assert e.value.errors[0].rule == "RESULT-5"


TOOLS_LIST = {
    "resultType": "complete",
    "ttlMs": 0,
    "cacheScope": "public",
    "tools": [{"name": "ok", "inputSchema": {"type": "object"}}, {"name": "broken"}, {"name": 3}],
}


def test_decode_result_skip_invalid_items() -> None:
    with pytest.raises(mcpgen.ValidationError):
        mcpgen.decode_result(TOOLS_LIST, "tools/list")
    for data in (TOOLS_LIST, json.dumps(TOOLS_LIST).encode()):
        result, skipped = mcpgen.decode_result(data, "tools/list", skip_invalid_items=True)
        assert result.variant == "ListToolsResult"
        assert [t["name"] for t in result.value["tools"]] == ["ok"]
        assert [(s.pointer, s.position) for s in skipped] == [("/tools/1", 1), ("/tools/2", 2)]
        assert all(isinstance(s, mcpgen.SkippedItem) for s in skipped)
        assert skipped[0].errors[0].keyword == "required" and "inputSchema" in skipped[0].errors[0].message
        assert any(e.pointer == "/tools/2/name" for e in skipped[1].errors)
    # Not a list, or nothing invalid: nothing skipped; the plain call is unchanged.
    result, skipped = mcpgen.decode_result({"content": []}, "tools/call", skip_invalid_items=True)
    assert (result.variant, skipped) == ("CallToolResult", [])
    assert isinstance(mcpgen.decode_result({"content": []}, "tools/call", skip_invalid_items=False), mcpgen.DecodedResult)
    # Errors outside the items still raise, typed as without the option.
    with pytest.raises(mcpgen.ValidationError) as e:
        mcpgen.decode_result({"resultType": "input_required", "inputRequests": {}}, "tools/list", skip_invalid_items=True)
    assert e.value.kind == "protocol"
    with pytest.raises(mcpgen.ParseError):
        mcpgen.decode_result(b"{", "tools/list", skip_invalid_items=True)


def test_validate_message() -> None:
    m = mcpgen.validate_message(call_tool())
    assert (m.kind, m.method, m.code) == ("request", "tools/call", None)
    m = mcpgen.validate_message({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "x"}})
    assert (m.kind, m.code) == ("error", -32601)
    with pytest.raises(mcpgen.ValidationError) as e:
        mcpgen.validate({"jsonrpc": "2.0", "id": 1, "method": "tools/calll", "params": {"_meta": META}})
    assert any(x.rule == "MSG-9" for x in e.value.errors)


def test_check_request_and_protocol_error() -> None:
    accepted = mcpgen.check_request(call_tool())
    assert (accepted.revision, accepted.method, accepted.id, accepted.legacy) == ("2026-07-28", "tools/call", 1, False)
    assert accepted.request["params"]["name"] == "get_weather"
    bad = call_tool()
    del bad["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
    with pytest.raises(mcpgen.ProtocolError) as e:
        mcpgen.check_request(json.dumps(bad).encode())
    err = e.value
    assert (err.code, err.http_status, err.rule, err.id) == (-32602, 400, "META-6", 1)
    response = err.to_response()
    assert response["jsonrpc"] == "2.0" and response["id"] == 1
    assert response["error"]["code"] == -32602
    mcpgen.validate(response, "JSONRPCErrorResponse")
    with pytest.raises(mcpgen.ProtocolError) as e:
        mcpgen.check_request(b"[]")
    assert "id" not in e.value.to_response()
    with pytest.raises(mcpgen.ProtocolError) as e:
        mcpgen.check_request(call_tool(), supported_versions=["2025-11-25"])
    assert e.value.code == -32022


def test_check_response() -> None:
    ok = mcpgen.check_response({"jsonrpc": "2.0", "id": 7, "result": {"resultType": "complete", "content": []}}, "tools/call")
    assert isinstance(ok, mcpgen.ResultResponse) and ok.id == 7 and ok.variant == "CallToolResult"
    remote = mcpgen.check_response({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "no", "data": {"a": 1}}}, "tools/call")
    assert isinstance(remote, mcpgen.ErrorResponse) and (remote.code, remote.message, remote.data) == (-32601, "no", {"a": 1})
    with pytest.raises(mcpgen.ResponseError) as e:
        mcpgen.check_response({"jsonrpc": "2.0", "id": 7, "result": {"resultType": "input_required"}}, "tools/list")
    assert e.value.rule in ("RESULT-5", "MRTR-3")


def test_versions_meta_keys_and_eras() -> None:
    assert mcpgen.negotiate_version("2026-07-28", ["2026-07-28"]) == "2026-07-28"
    with pytest.raises(mcpgen.ProtocolError) as e:
        mcpgen.negotiate_version("1999-01-01", ["2026-07-28"])
    assert e.value.code == -32022 and e.value.data["supported"] == ["2026-07-28"]
    assert mcpgen.is_valid_meta_key("com.example/trace")
    assert not mcpgen.is_valid_meta_key("com..example/x")
    k = mcpgen.check_meta_key("io.modelcontextprotocol/protocolVersion")
    assert (k.prefix, k.name, k.reserved) == ("io.modelcontextprotocol", "protocolVersion", True)
    with pytest.raises(mcpgen.MetaKeyError) as e:
        mcpgen.check_meta_key("-bad")
    assert isinstance(e.value, ValueError) and isinstance(e.value, mcpgen.McpgenError)
    assert (e.value.kind, e.value.rule, e.value.pointer, e.value.key) == ("name_start", "META-1", None, "-bad")
    assert str(e.value) == e.value.message == "invalid `_meta` key `-bad`: name `-bad` must start with a letter or digit"
    assert mcpgen.detect_era() == mcpgen.Era(False, ())
    with pytest.raises(ValueError, match="not both"):
        mcpgen.detect_era(b"{}", http_400_body=b"{}")


def test_methods_table() -> None:
    call = next(m for m in mcpgen.methods() if m.method == "tools/call")
    assert (call.kind, call.direction, call.request_def, call.params_type) == ("request", "client_to_server", "CallToolRequest", "CallToolRequestParams")
    assert call.result_defs == ("CallToolResult", "InputRequiredResult") and call.input_required


# ---- threads --------------------------------------------------------------------------------


def test_threads_share_nothing() -> None:
    """Bytes are validated with the GIL released; many threads at once give the same answers."""
    good = json.dumps(call_tool()).encode()
    bad = json.dumps(dict(call_tool(), method="nope")).encode()
    results: list = []

    def work() -> None:
        for _ in range(200):
            results.append((mcpgen.is_valid(good, "CallToolRequest"), mcpgen.is_valid(bad, "CallToolRequest")))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [(True, False)] * 800
