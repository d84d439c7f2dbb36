"""Tool schemas and icons: every case of vectors/tools/*.json and vectors/icons/*.json with the
verdicts and checks of the Rust runner (generated/tests/tools.rs), then the Python API itself.

Tool vectors run twice: as Python data through a `ToolChecker`, and as JSON text through the
module-level functions (the core's default checker, or per-call options when the vector sets
limits)."""

import base64
import dataclasses
import json
import socket
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import mcpgen
from support import VECTORS, dumps_lossless, loads_lossless, typed_error

# ---- vectors/tools --------------------------------------------------------------------------

TOOL_CASE_KEYS = {
    "description",
    "operation",
    "tool",
    "document",
    "document_text",
    "document_nest",
    "limits",
    "expect",
    "arguments",
    "structured_content",
}
TOOL_ERROR_KEYS = {"kind", "pointer", "uri", "rule", "message", "message_contains"}
TYPED_ERROR_KEYS = {"kind", "rule", "pointer", "message"}
INSTANCE_KEYS = {"value", "ok", "error", "pointer", "keyword"}

Check = Callable[[Any], None]
Validate = Callable[[Any, Any], None]


def tool_vectors() -> List[Path]:
    return sorted((VECTORS / "tools").glob("*.json"))


def tool_api(form: str, limits: Optional[mcpgen.Limits]) -> Tuple[Check, Validate, Validate]:
    """(check_tool, validate_arguments, validate_structured_content) for one way of calling."""
    if form == "checker":
        checker = mcpgen.ToolChecker(limits=limits)
        return checker.check_tool, checker.validate_arguments, checker.validate_structured_content
    if limits is None:
        return mcpgen.check_tool, mcpgen.validate_tool_arguments, mcpgen.validate_structured_content
    return (
        lambda t: mcpgen.check_tool(t, limits=limits),
        lambda t, v: mcpgen.validate_tool_arguments(t, v, limits=limits),
        lambda t, v: mcpgen.validate_structured_content(t, v, limits=limits),
    )


def problem_matches(want: Dict[str, Any], got: mcpgen.SchemaProblem) -> bool:
    assert set(want) <= TOOL_ERROR_KEYS, f"unknown error members {set(want) - TOOL_ERROR_KEYS}"
    return (
        want["kind"] == got.kind
        and all(want[k] == getattr(got, k) for k in ("pointer", "uri", "rule", "message") if k in want)
        and ("message_contains" not in want or want["message_contains"] in got.message)
    )


def document_text(plain: Dict[str, Any], case: Dict[str, Any]) -> Optional[bytes]:
    """The JSON text of `document` (number text as written), `document_text` or `document_nest`."""
    if "document" in plain:
        return dumps_lossless(case["document"]).encode()
    if "document_text" in plain:
        text = plain["document_text"]
        assert isinstance(text, str), "document_text must be a string"
        return text.encode()
    if "document_nest" in plain:
        n = plain["document_nest"]
        count = n["count"]
        parts = [n.get(k, "") for k in ("prefix", "open", "inner", "close", "suffix")]
        return (parts[0] + parts[1] * count + parts[2] + parts[3] * count + parts[4]).encode()
    return None


def as_data_if_json(text: bytes) -> Any:
    """Python data for JSON text (the "checker" form), the text itself when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


@pytest.mark.parametrize("form", ["checker", "text"])
@pytest.mark.parametrize("path", tool_vectors(), ids=lambda p: p.stem)
def test_tool_vector(path: Path, form: str) -> None:
    case = loads_lossless(path.read_bytes())
    assert set(case) <= TOOL_CASE_KEYS, f"unknown members {set(case) - TOOL_CASE_KEYS} (see vectors/README.md)"
    plain = json.loads(path.read_bytes())
    operation = plain.get("operation", "check_tool")
    assert operation in ("check_tool", "check_tools"), f"unknown operation {operation!r}"
    limits = plain.get("limits")
    expect = plain["expect"]
    want_ok = expect["ok"]
    assert isinstance(want_ok, bool), "expect.ok must be a boolean"
    text = document_text(plain, case)
    # "text": JSON text with every number's text as written in the vector.
    as_input: Callable[[Any], Any] = (lambda v: v) if form == "checker" else (lambda v: dumps_lossless(v).encode())
    if text is not None:
        tool_data = as_data_if_json(text) if form == "checker" else text
    else:
        tool_data = plain["tool"] if form == "checker" else as_input(case["tool"])

    if "error" in expect:
        # The call fails as a whole, with the core's typed error.
        want = expect["error"]
        assert set(want) == TYPED_ERROR_KEYS, "expect.error states kind, rule, pointer and message"
        assert want_ok is False, "expect.ok must be false when expect.error is given"
        with pytest.raises(mcpgen.McpgenError) as e:
            if operation == "check_tools":
                mcpgen.check_tools(tool_data, limits=limits)
            else:
                tool_api(form, limits)[0](tool_data)
        assert typed_error(e.value) == want
        return

    if operation == "check_tools":
        reports = mcpgen.check_tools(tool_data, limits=limits)
        assert all(not r.errors for r in reports) is want_ok, reports
        if "reports" in expect:
            wanted = expect["reports"]
            assert len(reports) == len(wanted), f"expected {len(wanted)} reports, got {reports}"
            for r, w in zip(reports, wanted):
                assert (r.pointer, r.name) == (w["pointer"], w["name"]), r
                assert len(r.errors) == len(w["errors"]), r
                assert all(problem_matches(x, got) for x, got in zip(w["errors"], r.errors)), r
        return

    check, validate_arguments, validate_structured_content = tool_api(form, limits)
    tool_value = plain["tool"] if text is None else json.loads(text)
    try:
        check(tool_data)
    except mcpgen.ToolSchemaError as e:
        assert not want_ok, f"expected the tool to be accepted, got:\n{e}"
        wanted = expect.get("errors")
        assert wanted, "a rejected case needs expect.errors"
        for w in wanted:
            assert any(problem_matches(w, got) for got in e.errors), f"expected an error {w}, got:\n{e}"
        name = tool_value.get("name") if isinstance(tool_value, dict) else None
        assert e.tool == (name if isinstance(name, str) else "")
        assert all(p.rule.startswith("JSCHEMA-") for p in e.errors), e.errors
        problems: Tuple[mcpgen.SchemaProblem, ...] = tuple(e.errors)
    else:
        assert want_ok, "expected the tool to be rejected, but it compiled"
        problems = ()

    # check_tools reads the same document as one tool with the same problems.
    reports = mcpgen.check_tools(tool_data, limits=limits)
    assert [(r.pointer, r.errors) for r in reports] == [("", problems)]
    if not want_ok:
        return

    for member, validate, rule in (
        ("arguments", validate_arguments, "TOOL-5"),
        ("structured_content", validate_structured_content, "TOOL-4"),
    ):
        for i, c in enumerate(plain.get(member, [])):
            assert set(c) <= INSTANCE_KEYS, f"{member}[{i}]: unknown members {set(c) - INSTANCE_KEYS}"
            ok = c["ok"]
            assert isinstance(ok, bool), f"{member}[{i}].ok must be a boolean"
            value = as_input(c["value"] if form == "checker" else case[member][i]["value"])
            try:
                validate(tool_data, value)
            except mcpgen.ValidationError as e:
                assert ok is False, f"{member}[{i}] should be valid, got:\n{e}"
                got_kind = "limit_exceeded" if isinstance(e, mcpgen.LimitExceededError) else "invalid"
                assert e.kind == got_kind
                want_kind = c.get("error", "invalid")
                assert want_kind == got_kind, f"{member}[{i}]: expected a `{want_kind}` error, got `{got_kind}`:\n{e}"
                want_rule = "JSCHEMA-8" if got_kind == "limit_exceeded" else rule
                assert e.errors and all(x.rule == want_rule for x in e.errors), e.errors
                if "pointer" in c:
                    assert any(x.pointer == c["pointer"] for x in e.errors), f"{member}[{i}]: no error at {c['pointer']}:\n{e}"
                if "keyword" in c:
                    assert any(x.keyword == c["keyword"] for x in e.errors), f"{member}[{i}]: no error from {c['keyword']}:\n{e}"
            else:
                assert ok is True, f"{member}[{i}] should be invalid, but validated"


# ---- vectors/icons --------------------------------------------------------------------------

POLICY_FIELDS = {f.name for f in dataclasses.fields(mcpgen.IconPolicy)}
ICON_CASE_KEYS = {"name", "description", "policy", "src", "src_repeat", "server", "bytes_base64", "bytes_text", "mime_type", "expect"}


def icon_policy(overrides: Optional[Dict[str, Any]]) -> Optional[mcpgen.IconPolicy]:
    """The vector's policy; None (the binding's default) when it sets none."""
    if overrides is None:
        return None
    assert set(overrides) <= POLICY_FIELDS, f"unknown policy fields {set(overrides) - POLICY_FIELDS}"
    fields = dict(overrides)
    if "trusted_origins" in fields:
        fields["trusted_origins"] = tuple(fields["trusted_origins"])
    return mcpgen.IconPolicy(**fields)


def icon_cases() -> Any:
    for path in sorted((VECTORS / "icons").glob("*.json")):
        file = json.loads(path.read_bytes())
        assert file["cases"], f"{path}: empty cases"
        for case in file["cases"]:
            yield pytest.param(file.get("policy"), case, id=f"{path.stem}::{case['name']}")


def b64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


@pytest.mark.parametrize("file_policy,case", list(icon_cases()))
def test_icon_vector(file_policy: Optional[Dict[str, Any]], case: Dict[str, Any]) -> None:
    assert set(case) <= ICON_CASE_KEYS, f"unknown members {set(case) - ICON_CASE_KEYS} (see vectors/README.md)"
    policy = icon_policy(case["policy"] if "policy" in case else file_policy)
    mime = case.get("mime_type")
    expect = case["expect"]
    ok = expect["ok"]
    assert isinstance(ok, bool), "expect.ok must be a boolean"
    src: Optional[str] = case.get("src")
    if "src_repeat" in case:
        r = case["src_repeat"]
        src = r.get("prefix", "") + r.get("unit", "") * r.get("count", 0)
    data: Optional[bytes] = None
    if src is None:
        if "bytes_base64" in case:
            data = b64(case["bytes_base64"])
        elif "bytes_text" in case:
            data = case["bytes_text"].encode()
        else:
            raise AssertionError("an icon case needs src, bytes_base64 or bytes_text")

    image: Optional[str]
    try:
        if src is not None:
            info = mcpgen.check_icon(src, mime, server=case.get("server"), policy=policy)
            image = info.mime
            assert info.kind == ("data" if src.strip().lower().startswith("data:") else "remote"), info
            assert (info.origin is None) == (info.kind == "data"), info
            if info.kind == "data":
                assert info.active_content == (info.mime == "image/svg+xml"), info
        else:
            assert data is not None
            image = mcpgen.check_icon_bytes(data, mime, policy=policy)
            # The accepted type is the sniffed one.
            assert mcpgen.sniff_image(data) == image
    except mcpgen.IconError as e:
        assert not ok, f"expected acceptance, got: {e}"
        if "kind" in expect:
            assert e.kind == expect["kind"], f"expected kind {expect['kind']}, got: {e}"
        assert e.rule.startswith("ICON-") and e.message and e.message in str(e)
        return
    assert ok, f"expected rejection ({expect.get('kind')}), but it was accepted"
    if "image" in expect:
        assert image == expect["image"], f"expected image {expect['image']}, got {image!r}"


# ---- the tool API ---------------------------------------------------------------------------

WEATHER = {
    "name": "get_weather",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "outputSchema": {"type": "object", "properties": {"temperature": {"type": "number"}}, "required": ["temperature"]},
}
NETWORK_REF = "https://schemas.example.com/user.json"
REMOTE_REF_TOOL = {"name": "t", "inputSchema": {"type": "object", "properties": {"user": {"$ref": NETWORK_REF}}}}


def tool(name: str, **properties: Any) -> Dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": properties}}


def test_checker_compiles_each_distinct_tool_once() -> None:
    checker = mcpgen.ToolChecker()
    assert checker.cached == 0
    checker.check_tool(WEATHER)
    assert checker.cached == 1
    # The same tool again, as JSON text, and through the validators: still one entry.
    checker.check_tool(json.dumps(WEATHER))
    checker.check_tool(json.dumps(WEATHER).encode())
    checker.validate_arguments(WEATHER, {"city": "Paris"})
    checker.validate_structured_content(WEATHER, {"temperature": 21.5})
    assert checker.cached == 1
    # Another name or another schema is another tool.
    checker.validate_arguments(tool("a", x={"type": "string"}), {})
    checker.check_tool(tool("a", x={"type": "integer"}))
    assert checker.cached == 3
    # Unusable tools are not kept.
    with pytest.raises(mcpgen.ToolSchemaError):
        checker.check_tool(REMOTE_REF_TOOL)
    assert checker.cached == 3
    # Checkers do not share a cache.
    assert mcpgen.ToolChecker().cached == 0
    assert "cached=3" in repr(checker)


def test_checker_options() -> None:
    defaults = mcpgen.ToolChecker().limits
    assert set(defaults) == set(mcpgen.Limits.__annotations__)
    assert defaults["max_depth"] == 64 and defaults["max_errors"] == 100
    checker = mcpgen.ToolChecker(limits={"max_enum_values": 2}, validate_formats=True)
    assert checker.limits == {**defaults, "max_enum_values": 2}
    assert checker.validate_formats and not mcpgen.ToolChecker().validate_formats
    enum_tool = tool("pick", x={"enum": ["a", "b", "c"]})
    mcpgen.check_tool(enum_tool)
    with pytest.raises(mcpgen.ToolSchemaError) as e:
        checker.check_tool(enum_tool)
    assert [p.kind for p in e.value.errors] == ["enum_too_large"]
    with pytest.raises(mcpgen.ToolSchemaError):
        mcpgen.check_tool(enum_tool, limits={"max_enum_values": 2})
    # validate_formats: `format` asserts only when asked.
    email = tool("mail", to={"type": "string", "format": "email"})
    mcpgen.validate_tool_arguments(email, {"to": "nobody"})
    with pytest.raises(mcpgen.ValidationError) as v:
        mcpgen.validate_tool_arguments(email, {"to": "nobody"}, validate_formats=True)
    assert v.value.errors[0].keyword == "format"
    with pytest.raises(mcpgen.ValidationError):
        mcpgen.ToolChecker(validate_formats=True).validate_arguments(email, {"to": "nobody"})


@pytest.mark.parametrize(
    "limits,exc,match",
    [
        ({"max_dept": 3}, ValueError, r"unknown limit `max_dept` \(known: max_depth, "),
        ({"max_depth": -1}, ValueError, r"limit `max_depth` must be an int from 0 to 2\*\*64-1, found -1"),
        ({"max_steps": 2**64}, ValueError, "limit `max_steps` must be an int from 0"),
        ({"max_errors": 1.5}, ValueError, "limit `max_errors` must be an int .*, found 1.5"),
        ({"max_errors": "10"}, ValueError, "limit `max_errors` must be an int .*, found '10'"),
        ({"max_errors": True}, ValueError, "limit `max_errors` must be an int .*, found True"),
        ({1: 2}, ValueError, "limits keys must be str"),
        ([("max_depth", 3)], TypeError, "limits must be a dict, found `list`"),
    ],
    ids=["unknown", "negative", "too-big", "float", "str", "bool", "key", "not-a-dict"],
)
def test_limits_errors(limits: Any, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        mcpgen.ToolChecker(limits=limits)
    for call in (
        lambda: mcpgen.check_tool(WEATHER, limits=limits),
        lambda: mcpgen.check_tools(WEATHER, limits=limits),
        lambda: mcpgen.validate_tool_arguments(WEATHER, {"city": "x"}, limits=limits),
        lambda: mcpgen.validate_structured_content(WEATHER, {}, limits=limits),
    ):
        with pytest.raises(exc, match=match):
            call()


def test_tool_inputs_agree() -> None:
    forms = [REMOTE_REF_TOOL, json.dumps(REMOTE_REF_TOOL), json.dumps(REMOTE_REF_TOOL).encode(), bytearray(json.dumps(REMOTE_REF_TOOL).encode())]
    errors = []
    for form in forms:
        with pytest.raises(mcpgen.ToolSchemaError) as e:
            mcpgen.check_tool(form)
        errors.append((e.value.tool, e.value.errors, str(e.value)))
    assert all(x == errors[0] for x in errors), errors
    bad_args = {"city": 7}
    details = []
    for t, a in [(WEATHER, bad_args), (json.dumps(WEATHER), json.dumps(bad_args)), (json.dumps(WEATHER).encode(), json.dumps(bad_args).encode())]:
        with pytest.raises(mcpgen.ValidationError) as v:
            mcpgen.validate_tool_arguments(t, a)
        details.append(v.value.errors)
    assert all(x == details[0] for x in details)
    assert (details[0][0].pointer, details[0][0].keyword, details[0][0].rule) == ("/city", "type", "TOOL-5")
    assert details[0][0].schema_path.startswith("#/properties/city")


def test_validation_errors() -> None:
    mcpgen.validate_tool_arguments(WEATHER, {"city": "Paris"})
    with pytest.raises(mcpgen.ValidationError) as e:
        mcpgen.validate_tool_arguments(WEATHER, {})
    assert type(e.value) is mcpgen.ValidationError and e.value.kind == "invalid"
    assert (e.value.errors[0].pointer, e.value.errors[0].keyword) == ("", "required")
    with pytest.raises(mcpgen.ValidationError) as e:
        mcpgen.validate_structured_content(WEATHER, {"temperature": "hot"})
    assert (e.value.errors[0].pointer, e.value.errors[0].rule) == ("/temperature", "TOOL-4")
    # Without an outputSchema any structured content is accepted.
    mcpgen.validate_structured_content(tool("t"), {"anything": [1, 2]})
    # Arguments are an instance like any other: `None` is not `{}`.
    with pytest.raises(mcpgen.ValidationError):
        mcpgen.validate_tool_arguments(tool("t"), None)
    # Instance data that is not JSON data is refused as everywhere in the package.
    with pytest.raises(mcpgen.ParseError, match="`set` is not JSON data"):
        mcpgen.validate_tool_arguments(WEATHER, {"city": {1}})
    with pytest.raises(mcpgen.ParseError):
        mcpgen.validate_tool_arguments(WEATHER, b'{"city":')
    with pytest.raises(mcpgen.ParseError):
        mcpgen.check_tool(b'{"name":"t",')


def test_limit_exceeded() -> None:
    deep: Any = 1
    for _ in range(5):
        deep = {"a": deep}
    mcpgen.validate_tool_arguments(tool("t"), deep)
    with pytest.raises(mcpgen.LimitExceededError) as e:
        mcpgen.validate_tool_arguments(tool("t"), deep, limits={"max_instance_depth": 3})
    err = e.value
    assert isinstance(err, mcpgen.ValidationError) and err.kind == "limit_exceeded"
    assert err.errors[0].rule == "JSCHEMA-8" and err.errors[0].pointer.startswith("/a/a/a")
    # Back-references without nested repetition pass the static check, but this one needs
    # more backtracking than allowed.
    backrefs = tool("p", s={"type": "string", "pattern": "^(.*)(.*)\\2\\1x$"})
    mcpgen.validate_tool_arguments(backrefs, {"s": "aax"})
    checker = mcpgen.ToolChecker(limits={"backtrack_limit": 10})
    with pytest.raises(mcpgen.LimitExceededError) as e:
        checker.validate_arguments(backrefs, {"s": "a" * 200 + "b"})
    assert e.value.errors[0].keyword == "pattern" and e.value.errors[0].rule == "JSCHEMA-8"


def test_tool_schema_error_fields() -> None:
    both = {"name": "t", "inputSchema": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}, "outputSchema": {"$ref": "https://example.com/o.json"}}
    with pytest.raises(mcpgen.ToolSchemaError) as e:
        mcpgen.check_tool(both)
    err = e.value
    assert err.tool == "t"
    assert [(p.kind, p.pointer, p.rule) for p in err.errors] == [
        ("unsupported_dialect", "/inputSchema/$schema", "JSCHEMA-3"),
        ("network_ref", "/outputSchema/$ref", "JSCHEMA-5"),
    ]
    assert err.errors[0].uri == "http://json-schema.org/draft-04/schema#"
    assert str(err).startswith("tool `t`: ") and "/outputSchema/$ref" in str(err.errors[1])
    # A tool with an unusable schema cannot validate anything.
    calls: List[Callable[[], None]] = [
        lambda: mcpgen.validate_tool_arguments(both, {}),
        lambda: mcpgen.ToolChecker().validate_structured_content(both, {}),
    ]
    for call in calls:
        with pytest.raises(mcpgen.ToolSchemaError) as e2:
            call()
        assert e2.value.errors == err.errors
    with pytest.raises(mcpgen.ToolSchemaError) as e:
        mcpgen.check_tool([1])
    assert (e.value.tool, e.value.errors[0].kind) == ("", "invalid_tool")


def test_network_ref_is_refused_without_any_connection() -> None:
    # A listening socket that nothing must connect to: a connection attempt would complete in
    # the kernel's backlog and be visible to a non-blocking accept().
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        uri = "http://127.0.0.1:%d/schema.json" % listener.getsockname()[1]
        local = {"name": "t", "inputSchema": {"type": "object", "properties": {"x": {"$ref": uri}}}}
        calls: List[Callable[[], None]] = [
            lambda: mcpgen.check_tool(local),
            lambda: mcpgen.check_tool(local, validate_formats=True),
            lambda: mcpgen.ToolChecker().validate_arguments(local, {}),
        ]
        for call in calls:
            with pytest.raises(mcpgen.ToolSchemaError) as e:
                call()
            assert [(p.kind, p.uri, p.pointer) for p in e.value.errors] == [("network_ref", uri, "/inputSchema/properties/x/$ref")]
        reports = mcpgen.check_tools({"tools": [local]})
        assert reports[0].errors[0].kind == "network_ref"
        with pytest.raises(BlockingIOError):
            listener.accept()
    with pytest.raises(mcpgen.ToolSchemaError) as e:
        mcpgen.check_tool(REMOTE_REF_TOOL)
    assert [(p.kind, p.uri, p.rule) for p in e.value.errors] == [("network_ref", NETWORK_REF, "JSCHEMA-5")]


def test_check_tools_documents() -> None:
    bad = dict(REMOTE_REF_TOOL, name="bad")
    listing = {"tools": [WEATHER, bad, tool("ok")]}
    reports = mcpgen.check_tools(listing)
    assert [(r.pointer, r.name, [p.kind for p in r.errors]) for r in reports] == [
        ("/tools/0", "get_weather", []),
        ("/tools/1", "bad", ["network_ref"]),
        ("/tools/2", "ok", []),
    ]
    assert isinstance(reports[1].errors, tuple) and isinstance(reports[1].errors[0], mcpgen.SchemaProblem)
    response = {"jsonrpc": "2.0", "id": 1, "result": listing}
    assert mcpgen.check_tools(json.dumps(response).encode()) == [r._replace(pointer="/result" + r.pointer) for r in reports]
    assert mcpgen.check_tools(WEATHER) == [mcpgen.ToolReport("", "get_weather", ())]
    assert mcpgen.check_tools({"tools": []}) == []
    # Documents that cannot be checked: typed, by variant (kind, pointer; no rule applies).
    with pytest.raises(mcpgen.ToolDocumentError, match="expected a Tool object") as e:
        mcpgen.check_tools({"jsonrpc": "2.0", "id": 1, "result": {}})
    assert (e.value.kind, e.value.pointer, e.value.rule) == ("not_a_tool_document", "", None)
    assert isinstance(e.value, ValueError) and isinstance(e.value, mcpgen.McpgenError)
    with pytest.raises(mcpgen.ToolDocumentError, match="^/tools must be an array$") as e:
        mcpgen.check_tools({"tools": {}})
    assert (e.value.kind, e.value.pointer, e.value.message) == ("tools_not_an_array", "/tools", "/tools must be an array")
    with pytest.raises(mcpgen.ParseError, match=r"^invalid JSON at line 1 column 2 \(byte 1\): unexpected end of input, expected a key$"):
        mcpgen.check_tools(b"{")


def test_checker_is_shared_across_threads() -> None:
    checker = mcpgen.ToolChecker()
    results: List[Tuple[bool, bool]] = []

    def accepts(arguments: Any) -> bool:
        try:
            checker.validate_arguments(json.dumps(WEATHER), arguments)
        except mcpgen.ValidationError:
            return False
        return True

    def work() -> None:
        for i in range(50):
            results.append((accepts({"city": str(i)}), accepts({"city": i})))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [(True, False)] * 200
    assert checker.cached == 1


# ---- the icon API ---------------------------------------------------------------------------

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII=")
JPEG = base64.b64decode("/9j/4AAQSkZJRgABAQAAAQABAAD/2Q==")
GIF = base64.b64decode("R0lGODlhAQABAAAAADs=")
WEBP = base64.b64decode("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'


def data_uri(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def test_icon_policy() -> None:
    p = mcpgen.IconPolicy()
    assert (p.allow_http, p.allow_svg, p.allow_webp, p.allow_gif, p.max_bytes, p.trusted_origins) == (False, False, True, False, 1048576, ())
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.allow_svg = True  # type: ignore[misc]
    listed = mcpgen.IconPolicy(trusted_origins=["https://cdn.example.com"])  # type: ignore[arg-type]
    assert listed.trusted_origins == ("https://cdn.example.com",)
    assert listed == mcpgen.IconPolicy(trusted_origins=("https://cdn.example.com",)) and hash(listed)
    with pytest.raises(ValueError, match="max_bytes"):
        mcpgen.IconPolicy(max_bytes=-1)
    with pytest.raises(TypeError, match="allow_svg"):
        mcpgen.IconPolicy(allow_svg="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="trusted_origins"):
        mcpgen.IconPolicy(trusted_origins="https://cdn.example.com")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="policy must be an mcpgen.IconPolicy, found `dict`"):
        mcpgen.check_icon("https://example.com/i.png", policy={"allow_http": True})  # type: ignore[arg-type]

    # Each option changes the core's verdict.
    with pytest.raises(mcpgen.IconError) as e:
        mcpgen.check_icon("http://example.com/i.png")
    assert (e.value.kind, e.value.rule) == ("http_not_allowed", "ICON-3")
    assert mcpgen.check_icon("http://example.com/i.png", policy=mcpgen.IconPolicy(allow_http=True)).origin == "http://example.com"
    assert mcpgen.check_icon_bytes(WEBP) == "image/webp"
    with pytest.raises(mcpgen.IconError, match="WebP") as e:
        mcpgen.check_icon_bytes(WEBP, policy=mcpgen.IconPolicy(allow_webp=False))
    assert e.value.kind == "mime_not_allowed"
    with pytest.raises(mcpgen.IconError):
        mcpgen.check_icon_bytes(GIF)
    assert mcpgen.check_icon_bytes(GIF, "image/gif", policy=mcpgen.IconPolicy(allow_gif=True)) == "image/gif"
    with pytest.raises(mcpgen.IconError) as e:
        mcpgen.check_icon(data_uri("image/png", PNG), policy=mcpgen.IconPolicy(max_bytes=16))
    assert (e.value.kind, e.value.rule) == ("too_large", "ICON-7")
    # A data: URI is measured on its Base64 length before decoding (92 characters: about 69
    # bytes); the decoded bytes are measured exactly.
    assert len(PNG) == 68
    assert mcpgen.check_icon(data_uri("image/png", PNG), policy=mcpgen.IconPolicy(max_bytes=69)).mime == "image/png"
    with pytest.raises(mcpgen.IconError, match="about 69 bytes"):
        mcpgen.check_icon(data_uri("image/png", PNG), policy=mcpgen.IconPolicy(max_bytes=68))
    assert mcpgen.check_icon_bytes(PNG, policy=mcpgen.IconPolicy(max_bytes=68)) == "image/png"
    with pytest.raises(mcpgen.IconError, match="68 bytes exceeds the 67-byte limit"):
        mcpgen.check_icon_bytes(PNG, policy=mcpgen.IconPolicy(max_bytes=67))
    cdn = "https://cdn.example.net/a.png"
    with pytest.raises(mcpgen.IconError) as e:
        mcpgen.check_icon(cdn, server="https://mcp.example.com/mcp")
    assert (e.value.kind, e.value.rule) == ("cross_origin", "ICON-6")
    trusting = mcpgen.IconPolicy(trusted_origins=("https://cdn.example.net",))
    assert mcpgen.check_icon(cdn, server="https://mcp.example.com/mcp", policy=trusting).origin == "https://cdn.example.net"


def test_icon_info() -> None:
    remote = mcpgen.check_icon("HTTPS://Example.COM:443/icon.png", "image/png", server="https://example.com/mcp")
    assert remote == mcpgen.IconInfo("remote", None, "https://example.com", False)
    inline = mcpgen.check_icon(data_uri("image/png", PNG))
    assert inline == mcpgen.IconInfo("data", "image/png", None, False)
    # A data: icon needs no server origin.
    assert mcpgen.check_icon(data_uri("image/jpeg", JPEG), server="https://example.com/").mime == "image/jpeg"
    with pytest.raises(mcpgen.IconError) as e:
        mcpgen.check_icon("javascript:alert(1)")
    assert (e.value.kind, e.value.rule) == ("scheme_not_allowed", "ICON-3")
    assert e.value.message in str(e.value) and "[scheme_not_allowed; ICON-3]" in str(e.value)


def test_png_labelled_as_jpeg_is_refused() -> None:
    for call in (
        lambda: mcpgen.check_icon_bytes(PNG, "image/jpeg"),
        lambda: mcpgen.check_icon(data_uri("image/jpeg", PNG)),
        lambda: mcpgen.check_icon(data_uri("image/png", PNG), "image/jpeg"),
    ):
        with pytest.raises(mcpgen.IconError) as e:
            call()
        assert (e.value.kind, e.value.rule) == ("type_mismatch", "ICON-8")
    assert mcpgen.check_icon_bytes(PNG, "image/png") == mcpgen.check_icon_bytes(PNG) == "image/png"
    assert mcpgen.check_icon_bytes(JPEG, "image/jpg") == "image/jpeg"


def test_svg_only_when_allowed() -> None:
    for call in (
        lambda p: mcpgen.check_icon(data_uri("image/svg+xml", SVG), policy=p),
        lambda p: mcpgen.check_icon("https://example.com/i.svg", "image/svg+xml", policy=p),
        lambda p: mcpgen.check_icon_bytes(SVG, policy=p),
    ):
        with pytest.raises(mcpgen.IconError) as e:
            call(None)
        assert (e.value.kind, e.value.rule) == ("mime_not_allowed", "ICON-1")
        assert "allow_svg" in e.value.message
        call(mcpgen.IconPolicy(allow_svg=True))
    svg = mcpgen.IconPolicy(allow_svg=True)
    assert mcpgen.check_icon(data_uri("image/svg+xml", SVG), policy=svg) == mcpgen.IconInfo("data", "image/svg+xml", None, True)
    assert mcpgen.check_icon("https://example.com/i.svg", "image/svg+xml", policy=svg).active_content is True
    assert mcpgen.check_icon("https://example.com/i", policy=svg).active_content is False
    assert mcpgen.check_icon_bytes(SVG, policy=svg) == "image/svg+xml"


def test_same_origin() -> None:
    assert mcpgen.same_origin("https://Example.com/a.png", "https://example.com:443/mcp")
    assert not mcpgen.same_origin("https://example.com/a.png", "https://cdn.example.com/")
    assert not mcpgen.same_origin("https://example.com:8443/a.png", "https://example.com/")
    assert not mcpgen.same_origin("http://example.com/a.png", "https://example.com/")
    assert not mcpgen.same_origin("data:image/png;base64,AAAA", "https://example.com/")
    assert not mcpgen.same_origin("not a uri", "not a uri")


def test_sniff_image() -> None:
    assert [mcpgen.sniff_image(b) for b in (PNG, JPEG, GIF, WEBP, SVG)] == ["image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml"]
    assert mcpgen.sniff_image(b"") is None
    assert mcpgen.sniff_image(b"<html><svg></svg></html>") is None
    assert mcpgen.sniff_image(bytearray(PNG)) == mcpgen.sniff_image(memoryview(PNG)) == "image/png"
    assert mcpgen.check_icon_bytes(bytearray(PNG)) == mcpgen.check_icon_bytes(memoryview(PNG)) == "image/png"
    with pytest.raises(TypeError, match="expected bytes"):
        mcpgen.sniff_image("\x89PNG")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected bytes"):
        mcpgen.check_icon_bytes("\x89PNG")  # type: ignore[arg-type]


# ---- exceptions -----------------------------------------------------------------------------


def test_exception_hierarchy() -> None:
    assert issubclass(mcpgen.ToolSchemaError, mcpgen.McpgenError) and issubclass(mcpgen.ToolSchemaError, ValueError)
    assert not issubclass(mcpgen.ToolSchemaError, mcpgen.ValidationError)
    assert issubclass(mcpgen.LimitExceededError, mcpgen.ValidationError)
    assert issubclass(mcpgen.LimitExceededError, mcpgen.McpgenError) and issubclass(mcpgen.LimitExceededError, ValueError)
    assert issubclass(mcpgen.IconError, mcpgen.McpgenError) and issubclass(mcpgen.IconError, ValueError)
    assert not issubclass(mcpgen.IconError, mcpgen.ValidationError)
    # The classes can be built by hand too (for tests of code that catches them).
    e = mcpgen.ToolSchemaError("tool `x`: bad", tool="x", errors=[mcpgen.SchemaProblem("network_ref", "/inputSchema/$ref", "https://a/b", "JSCHEMA-5", "no")])
    assert e.errors[0].uri == "https://a/b" and str(e) == "tool `x`: bad"
    assert mcpgen.LimitExceededError("deep").kind == "limit_exceeded"
    assert mcpgen.IconError("x [too_large; ICON-7]", kind="too_large", rule="ICON-7", message="x").message == "x"
    for cls in (mcpgen.MetaKeyError, mcpgen.LimitError, mcpgen.ToolDocumentError):
        assert issubclass(cls, mcpgen.McpgenError) and issubclass(cls, ValueError)
        assert not issubclass(cls, mcpgen.ValidationError)
    assert mcpgen.MetaKeyError("m", kind="empty_key").rule == "META-1"
    limit = mcpgen.LimitError("m", kind="unknown_limit", name="x")
    assert (limit.kind, limit.rule, limit.pointer, limit.name, limit.message) == ("unknown_limit", None, None, "x", "m")
    doc = mcpgen.ToolDocumentError("m", kind="tools_not_an_array", pointer="/tools")
    assert (doc.kind, doc.rule, doc.pointer) == ("tools_not_an_array", None, "/tools")


def nested_tool(levels: int) -> str:
    """A tool whose inputSchema `default` is `levels` nested arrays (level 3 and down)."""
    return '{"name":"deep","inputSchema":{"type":"object","default":' + "[" * levels + "0" + "]" * levels + "}}"


def test_nesting_past_the_parser_limit_is_a_tool_problem() -> None:
    # 126 arrays under the tool and its inputSchema make 128 levels: fine, from text and data.
    mcpgen.check_tool(nested_tool(126))
    mcpgen.check_tool(json.loads(nested_tool(126)))
    pointer = "/inputSchema/default" + "/0" * 126
    for data in (nested_tool(127), nested_tool(300).encode(), json.loads(nested_tool(300)), nested_tool(100_000)):
        with pytest.raises(mcpgen.ToolSchemaError) as e:
            mcpgen.check_tool(data)
        assert [(p.kind, p.rule, p.pointer) for p in e.value.errors] == [("too_deep", "JSCHEMA-8", pointer)]
        with pytest.raises(mcpgen.ToolSchemaError):
            mcpgen.ToolChecker().validate_arguments(data, {})
    # Not JSON, however deep: a parse error.
    with pytest.raises(mcpgen.ParseError):
        mcpgen.check_tool(nested_tool(300)[:-1])
    reports = mcpgen.check_tools('{"tools":[' + nested_tool(300) + "]}")
    assert [(r.pointer, [(p.kind, p.pointer) for p in r.errors]) for r in reports] == [("/tools/0", [("too_deep", pointer)])]


def test_unknown_limit_is_a_limit_error() -> None:
    with pytest.raises(mcpgen.LimitError) as e:
        mcpgen.ToolChecker(limits={"max_dept": 3})
    assert (e.value.kind, e.value.name, e.value.rule) == ("unknown_limit", "max_dept", None)
    assert str(e.value).startswith("unknown limit `max_dept` (known: max_depth, ")
