"""The project's test vectors (vectors/README.md), with the verdicts the Rust runners give
(generated/tests/examples.rs for decode/, generated/tests/protocol_vectors.rs for protocol/).

Decode vectors run from JSON bytes (every check, number text included) and, when the input is
JSON, again from the parsed Python data (verdict, variant, errors, output by value: Python
floats do not keep number text)."""

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

import mcpgen
from support import VECTORS, dumps_lossless, error_kind, error_matches, flatten, loads_lossless, typed_error

# Every vector directory and the test module that runs it.
RUNNERS = {
    "decode": "test_vectors.py",
    "protocol": "test_vectors.py",
    "tools": "test_tools.py",
    "icons": "test_tools.py",
    "conversations": "test_conversations.py",
    "ext": "test_vectors.py",
}

# Vector directories of features the Python package does not bind, with the reason. A new
# directory in neither table fails the run: it needs a runner or a reason here.
NOT_BOUND: Dict[str, str] = {}


def vector_files(sub: str) -> List[Path]:
    """The vectors of a directory (`ext/` holds one directory per extension)."""
    return sorted((VECTORS / sub).rglob("*.json"))


def test_every_vector_directory_has_a_runner() -> None:
    dirs = {p.name for p in VECTORS.iterdir() if p.is_dir()}
    unknown = dirs - set(RUNNERS) - set(NOT_BOUND)
    assert not unknown, f"vectors/{sorted(unknown)} have no Python runner (add one, or a reason to NOT_BOUND)"
    assert not set(RUNNERS) & set(NOT_BOUND), "a directory is either run or not bound"
    here = Path(__file__).parent
    for sub, runner in RUNNERS.items():
        assert vector_files(sub), f"no vectors in vectors/{sub}"
        source = (here / runner).read_text()
        assert f'VECTORS / "{sub}"' in source or f'vector_files("{sub}")' in source, f"{runner} does not read vectors/{sub}"


# ---- decode/ --------------------------------------------------------------------------------


def load_vector(path: Path) -> Dict[str, Any]:
    v = loads_lossless(path.read_bytes())
    assert isinstance(v, dict), path
    return v


def plain(v: Any) -> Any:
    """Lossless-loaded data back to ordinary Python values."""
    return json.loads(dumps_lossless(v))


def input_text(v: Dict[str, Any]) -> Optional[bytes]:
    if "input" in v:
        return dumps_lossless(v["input"]).encode()
    if "input_text" in v:
        text = v["input_text"]
        assert isinstance(text, str), "input_text must be a string"
        return text.encode()
    return None


def run_decode(v: Dict[str, Any], data: Any) -> Tuple[str, str, Any, Optional[List[mcpgen.SkippedItem]]]:
    """(variant, compact JSON text, Python value, skipped items with `skip_invalid_items`) of
    the vector's decode."""
    revision = v["revision"]
    policy = v.get("policy", "lossless")
    decode = v["decode"]
    if "def" in decode:
        text = mcpgen.decode_json(data, decode["def"], revision=revision, policy=policy)
        value = mcpgen.decode(data, decode["def"], revision=revision, policy=policy)
        return decode["def"], text, value, None
    if "result_for_method" in decode:
        method = decode["result_for_method"]
        if decode.get("skip_invalid_items", False):
            r, skipped = mcpgen.decode_result(data, method, revision=revision, policy=policy, skip_invalid_items=True)
            return r.variant, r.json, r.value, skipped
        r = mcpgen.decode_result(data, method, revision=revision, policy=policy)
        return r.variant, r.json, r.value, None
    raise AssertionError("decode needs `def` or `result_for_method`")


def check_skipped(want: Optional[List[Dict[str, Any]]], got: Optional[List[mcpgen.SkippedItem]]) -> None:
    """`expect.skipped`: exactly these items in order; each listed error matches one of the
    item's errors (as mcpgen/tests/examples.rs)."""
    if got is None:
        assert want is None, "`expect.skipped` needs `decode.skip_invalid_items`"
        return
    assert want is not None, "a skip_invalid_items vector needs `expect.skipped`"
    pointers = [s.pointer for s in got]
    assert pointers == [w["pointer"] for w in want], f"skipped {pointers}"
    for w, g in zip(want, got):
        assert isinstance(g, mcpgen.SkippedItem) and g.errors, g
        for e in w.get("errors", []):
            assert any(
                e.get("pointer", x.pointer) == x.pointer and e.get("keyword", x.keyword) == x.keyword for x in g.errors
            ), f"{g.pointer}: no error matches {e}; got {g.errors}"


def check_decode(v: Dict[str, Any], data: Any, text_checks: bool) -> None:
    expect = v["expect"]
    want_ok = expect["ok"]
    assert isinstance(want_ok, bool), "expect.ok must be a boolean"
    try:
        variant, out, value, skipped = run_decode(v, data)
    except (mcpgen.ValidationError, mcpgen.UnknownDefinitionError) as e:
        assert not want_ok, f"expected success, got:\n{e}"
        errors = list(flatten(getattr(e, "errors", [])))
        if "pointer" in expect:
            assert any(x.pointer == expect["pointer"] for x in errors), f"expected an error at {expect['pointer']!r}, got {e}"
        if "keyword" in expect:
            assert any(x.keyword == expect["keyword"] for x in errors), f"expected keyword {expect['keyword']!r}, got {e}"
        if "rule" in expect:
            assert any(x.rule == expect["rule"] for x in errors), f"expected rule {expect['rule']!r}, got {e}"
        for pattern in expect.get("errors", []):
            assert any(error_matches(pattern, x) for x in errors), f"no error matches {pattern!r}; got {errors}"
        if "error" in expect:
            assert error_kind(e) == expect["error"], f"expected a {expect['error']} error, got {error_kind(e)}: {e}"
        return
    assert want_ok, f"expected a failure, but it decoded as {variant}: {out}"
    if "variant" in expect:
        assert variant == expect["variant"]
    # The Python value and the JSON text describe the same data.
    assert json.loads(out) == value
    if "output" in expect:
        if text_checks:
            assert loads_lossless(out) == expect["output"], f"output differs\n   got: {out}"
        else:
            assert value == plain(expect["output"])
    if text_checks:
        for s in expect.get("output_contains", []):
            assert s in out, f"output lacks {s!r}: {out}"
        for s in expect.get("output_lacks", []):
            assert s not in out, f"output should not contain {s!r}: {out}"
    check_skipped(expect.get("skipped"), skipped)


@pytest.mark.parametrize("path", vector_files("decode"), ids=lambda p: p.stem)
def test_decode_vector_from_bytes(path: Path) -> None:
    v = load_vector(path)
    data = input_text(v)
    assert data is not None, "vector needs `input` or `input_text`"
    check_decode(v, data, text_checks=True)


@pytest.mark.parametrize("path", [p for p in vector_files("decode") if "input" in load_vector(p)], ids=lambda p: p.stem)
def test_decode_vector_from_python_data(path: Path) -> None:
    v = load_vector(path)
    check_decode(v, plain(v["input"]), text_checks=False)


# ---- protocol/ ------------------------------------------------------------------------------


class Outcome:
    """What an operation produced, in the terms `expect` speaks (as protocol_vectors.rs)."""

    def __init__(self) -> None:
        self.accept = False
        self.code: Optional[int] = None
        self.http_status: Optional[int] = None
        self.rule: Optional[str] = None
        self.has_id_field = False
        self.id: Any = None
        self.data: Any = None
        self.message = ""
        self.legacy: Optional[bool] = None
        self.legacy_initialize: Optional[bool] = None
        self.method: Optional[str] = None
        self.revision: Optional[str] = None
        self.kind: Optional[str] = None
        self.variant: Optional[str] = None
        self.errors: List[mcpgen.ErrorDetail] = []
        self.era: Optional[str] = None
        self.supported: Optional[List[str]] = None
        self.reserved: Optional[bool] = None
        self.prefix: Any = "<unset>"
        self.name: Optional[str] = None
        self.error: Optional[Dict[str, Any]] = None

    def set_id(self, present: bool, value: Any) -> None:
        self.has_id_field = True
        self.id = value if present else None

    def __repr__(self) -> str:
        return f"Outcome({self.__dict__})"


def run_operation(v: Dict[str, Any], data: Any) -> Outcome:
    op = v["operation"]
    o = Outcome()
    if op == "check_request":
        supported = v.get("supported_versions")
        try:
            a = mcpgen.check_request(data, supported_versions=supported, extensions=v.get("extensions"))
        except mcpgen.ProtocolError as e:
            resp = e.to_response()
            # The rendered response must itself be a JSON-RPC error response.
            mcpgen.validate(resp, "JSONRPCErrorResponse", revision="2026-07-28")
            o.code, o.http_status, o.rule = e.code, e.http_status, e.rule
            o.set_id("id" in resp, resp.get("id"))
            o.data, o.message, o.legacy_initialize, o.errors = e.data, e.message, e.legacy_initialize, e.errors
        else:
            o.accept = True
            o.set_id(a.id is not None, a.id)
            o.legacy, o.method, o.revision = a.legacy, a.method, a.revision
    elif op == "validate_message":
        try:
            m = mcpgen.validate_message(
                data,
                revision=v["revision"],
                policy=v.get("policy"),
                strict_formats=v.get("strict_formats") is True,
                extensions=v.get("extensions"),
            )
        except mcpgen.ValidationError as e:
            o.message = str(e)
            o.errors = list(flatten(e.errors))
            if isinstance(e, mcpgen.ParseError):
                o.rule = "parse"
        else:
            o.accept = True
            o.kind, o.method, o.code = m.kind, m.method, m.code
    elif op == "check_response":
        try:
            r = mcpgen.check_response(
                data,
                v["request_method"],
                revision=v["revision"],
                extension_result_types=v.get("extension_result_types"),
            )
        except mcpgen.ResponseError as e:
            o.rule, o.message, o.errors = e.rule, e.message, list(flatten(e.errors))
        else:
            o.accept = True
            if isinstance(r, mcpgen.ResultResponse):
                o.kind, o.variant = "result", r.variant
                o.set_id(True, r.id)
            else:
                o.kind = "error"
                o.set_id(r.id is not None, r.id)
                o.code, o.message, o.data = r.code, r.message, r.data
    elif op in ("detect_era_probe", "detect_era_http_400"):
        if op == "detect_era_probe":
            era = mcpgen.detect_era(data)
        else:
            assert data is not None, "detect_era_http_400 needs an input (may be empty text)"
            era = mcpgen.detect_era(http_400_body=data)
        o.accept = True
        o.era = "modern" if era.modern else "legacy"
        if era.modern:
            o.supported = list(era.supported)
    elif op == "negotiate_version":
        try:
            mcpgen.negotiate_version(v["requested"], v["supported_versions"])
        except mcpgen.ProtocolError as e:
            o.code, o.http_status, o.rule, o.data, o.message = e.code, e.http_status, e.rule, e.data, e.message
        else:
            o.accept = True
    elif op == "check_http_headers":
        headers = [(name, value) for name, value in v["headers"]]
        try:
            mcpgen.check_http_headers(headers, data)
        except mcpgen.ProtocolError as e:
            resp = e.to_response()
            mcpgen.validate(resp, "JSONRPCErrorResponse", revision="2026-07-28")
            o.code, o.http_status, o.rule, o.message = e.code, e.http_status, e.rule, e.message
            o.set_id("id" in resp, resp.get("id"))
        else:
            o.accept = True
    elif op == "check_meta_key":
        key = v["input"]
        assert isinstance(key, str), "check_meta_key needs a string `input`"
        try:
            k = mcpgen.check_meta_key(key)
        except mcpgen.MetaKeyError as e:
            o.message = str(e)
            o.error = typed_error(e)
        else:
            o.accept, o.reserved, o.prefix, o.name = True, k.reserved, k.prefix, k.name
    else:
        raise AssertionError(f"unknown operation {op!r}")
    return o


def check_expect(o: Outcome, expect: Dict[str, Any]) -> None:
    assert "accept" in expect, "expect.accept is required"
    ctx = f"\n{o!r}"
    for k, want in expect.items():
        w = plain(want)
        if k == "accept":
            assert o.accept is w, f"accept: expected {w}, got {o.accept}{ctx}"
        elif k == "code":
            assert o.code == w, f"code: expected {w}, got {o.code}{ctx}"
        elif k == "http_status":
            assert o.http_status == w, f"http_status: expected {w}, got {o.http_status}{ctx}"
        elif k == "rule":
            assert o.rule == w or any(e.rule == w for e in o.errors), f"expected rule {w}{ctx}"
        elif k == "has_id":
            assert (o.has_id_field and o.id is not None) is w, f"has_id: expected {w}{ctx}"
        elif k == "id":
            assert o.has_id_field and o.id == w, f"id: expected {w!r}, got {o.id!r}{ctx}"
        elif k == "data":
            assert isinstance(o.data, dict), f"data: expected members {w!r}, got {o.data!r}{ctx}"
            for dk, dv in w.items():
                assert dk in o.data and o.data[dk] == dv, f"data.{dk}: expected {dv!r}, got {o.data.get(dk)!r}{ctx}"
        elif k == "message_contains":
            assert w in o.message, f"message lacks {w!r}{ctx}"
        elif k in ("legacy", "legacy_initialize", "reserved"):
            assert getattr(o, k) is w, f"{k}: expected {w}, got {getattr(o, k)}{ctx}"
        elif k in ("method", "revision", "kind", "variant", "era", "name"):
            assert getattr(o, k) == w, f"{k}: expected {w!r}, got {getattr(o, k)!r}{ctx}"
        elif k == "prefix":
            assert o.prefix == w, f"prefix: expected {w!r}, got {o.prefix!r}{ctx}"
        elif k == "supported":
            assert o.supported == w, f"supported: expected {w!r}, got {o.supported!r}{ctx}"
        elif k == "errors":
            for pattern in w:
                assert any(error_matches(pattern, e) for e in o.errors), f"no error matches {pattern!r}{ctx}"
        elif k == "error":
            assert o.error == w, f"error: expected {w!r}, got {o.error!r}{ctx}"
        elif k == "error_count":
            assert len(o.errors) == w, f"expected {w} errors, got {len(o.errors)}{ctx}"
        else:
            raise AssertionError(f"unknown expect key {k!r} (see vectors/README.md)")


def protocol_cases():
    for path in vector_files("protocol"):
        yield pytest.param(path, id=path.stem)


@pytest.mark.parametrize("path", list(protocol_cases()))
def test_protocol_vector_from_bytes(path: Path) -> None:
    v = load_vector(path)
    assert isinstance(v.get("description"), str), "vector lacks `description`"
    check_expect(run_operation(v, input_text(v)), v["expect"])


# Operations whose Python API takes Python data in place of JSON text; input_text vectors are
# about the text itself (invalid JSON, number lexemes, duplicate keys), so they run from bytes.
DATA_OPERATIONS = {"check_request", "validate_message", "check_response", "check_http_headers"}


@pytest.mark.parametrize(
    "path",
    [p for p in vector_files("protocol") if "input" in load_vector(p) and load_vector(p)["operation"] in DATA_OPERATIONS],
    ids=lambda p: p.stem,
)
def test_protocol_vector_from_python_data(path: Path) -> None:
    v = load_vector(path)
    check_expect(run_operation(v, plain(v["input"])), v["expect"])


# ---- ext/ -----------------------------------------------------------------------------------
# As mcpgen/tests/ext_tasks.rs: a valid case validates and decodes back to its input, an invalid
# one fails with an error at `expect.pointer` / `expect.keyword`; from JSON bytes and from the
# parsed Python data alike.


@pytest.mark.parametrize("path", vector_files("ext"), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_extension_vector(path: Path) -> None:
    v = json.loads(path.read_bytes())
    ext, name, data, expect = v["extension"], v["def"], v["input"], v["expect"]
    for source in (json.dumps(data).encode(), data):
        if expect["ok"]:
            mcpgen.validate(source, name, extension=ext)
            assert mcpgen.is_valid(source, name, extension=ext)
            assert json.loads(mcpgen.decode_json(source, name, extension=ext)) == data
        else:
            assert not mcpgen.is_valid(source, name, extension=ext)
            with pytest.raises(mcpgen.ValidationError) as raised:
                mcpgen.validate(source, name, extension=ext)
            errors = list(flatten(raised.value.errors))
            want = {k: expect[k] for k in ("pointer", "keyword") if k in expect}
            assert any(error_matches(want, e) for e in errors), (want, errors)
            with pytest.raises(mcpgen.ValidationError):
                mcpgen.decode(source, name, extension=ext)


def test_extension_arguments() -> None:
    get = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": "t"}}
    # The identifier and the short name name the same extension.
    mcpgen.validate(get, "GetTaskRequest", extension="tasks")
    mcpgen.validate(get, "GetTaskRequest", extension="io.modelcontextprotocol/tasks")
    with pytest.raises(mcpgen.UnknownDefinitionError):
        mcpgen.validate(get, "NoSuchThing", extension="tasks")
    with pytest.raises(mcpgen.UnknownDefinitionError):
        mcpgen.is_valid(get, "NoSuchThing", extension="tasks")
    # The extension's definitions are not the core's.
    with pytest.raises(mcpgen.UnknownDefinitionError):
        mcpgen.validate(get, "GetTaskRequest", revision="2026-07-28")
    for bad in (
        lambda: mcpgen.validate(get, "GetTaskRequest", extension="io.example/none"),
        lambda: mcpgen.validate(get, "GetTaskRequest", extension="tasks", revision="2026-07-28"),
        lambda: mcpgen.validate(get, extension="tasks"),
        lambda: mcpgen.validate_message(get, extensions=["io.example/none"]),
        lambda: mcpgen.check_request(get, extensions=["nope"]),
    ):
        with pytest.raises(ValueError) as raised:
            bad()
        assert not isinstance(raised.value, mcpgen.ValidationError), raised.value
