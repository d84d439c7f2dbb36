"""Python data that is not JSON gets the verdict its closest JSON text gets (issue 38): a
`ParseError` with the parser's entry (pointer "", keyword "parse", no rule), wherever the value
is, including the parts the schema leaves open (tool `arguments`, `_meta`)."""

import json
from typing import Any, Callable, Dict, List, Tuple

import pytest

import mcpgen

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
HOLE = "@@value@@"
"""Where a message template holds the value under test (replaced in the data and the text)."""


def call_tool() -> Dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"_meta": dict(META), "name": "get_weather", "arguments": {"city": "Paris"}},
    }


def in_arguments(v: Any) -> Dict[str, Any]:
    m = call_tool()
    m["params"]["arguments"]["x"] = v
    return m


def in_meta(v: Any) -> Dict[str, Any]:
    m = call_tool()
    m["params"]["_meta"]["com.example/x"] = v
    return m


def deep_in_arguments(v: Any) -> Dict[str, Any]:
    m = call_tool()
    m["params"]["arguments"]["list"] = [1, {"y": v}]
    return m


PLACES: List[Tuple[str, Callable[[Any], Dict[str, Any]], str]] = [
    ("arguments", in_arguments, "/params/arguments/x"),
    ("meta", in_meta, "/params/_meta/com.example~1x"),
    ("nested", deep_in_arguments, "/params/arguments/list/1/y"),
]


def nested(levels: int) -> Any:
    v: Any = 0
    for _ in range(levels):
        v = [v]
    return v


def cycle() -> Any:
    loop: List[Any] = []
    loop.append(loop)
    return loop


DEEP = "deep"
"""`below` of the too-deep cases: the error points at the first container inside 128 others."""

# (id, the Python value, the closest JSON text, where the data error points below the value)
CASES: List[Tuple[str, Callable[[], Any], str, str]] = [
    ("nan", lambda: float("nan"), "NaN", ""),
    ("inf", lambda: float("inf"), "Infinity", ""),
    ("-inf", lambda: float("-inf"), "-Infinity", ""),
    ("set", lambda: {1, 2}, "{1, 2}", ""),
    ("bytes", lambda: b"raw", 'b"raw"', ""),
    ("object", object, "<object>", ""),
    ("int key", lambda: {"a": 1, 2: "b"}, '{"a":1,2:"b"}', ""),
    ("surrogate", lambda: "\ud800", '"\\ud800"', ""),
    ("surrogate key", lambda: {"\udc00": 1}, '{"\\udc00":1}', ""),
    ("deep", lambda: nested(200), "[" * 200 + "0" + "]" * 200, DEEP),
    ("cycle", cycle, "[" * 200 + "0" + "]" * 200, DEEP),
]


def text_of(place: Callable[[Any], Dict[str, Any]], fragment: str) -> bytes:
    return json.dumps(place(HOLE), separators=(",", ":")).replace(json.dumps(HOLE), fragment).encode()


def refusal(fn: Callable[[], Any]) -> mcpgen.ParseError:
    with pytest.raises(mcpgen.ParseError) as e:
        fn()
    return e.value


def entries(e: mcpgen.ValidationError) -> List[Tuple[str, str, Any]]:
    return [(d.pointer, d.keyword, d.rule) for d in e.errors]


@pytest.mark.parametrize("place,make_data,pointer", PLACES, ids=[p[0] for p in PLACES])
def test_the_places_accept_json_values(place: str, make_data: Callable[[Any], Dict[str, Any]], pointer: str) -> None:
    # The refusals below come from the value alone: the same place with a JSON value is valid.
    for value in (1.5, "text", [0], nested(100), {"k": None}):
        mcpgen.validate(make_data(value))
        mcpgen.validate(text_of(make_data, json.dumps(value)))


@pytest.mark.parametrize("place,make_data,pointer", PLACES, ids=[p[0] for p in PLACES])
@pytest.mark.parametrize("case,value,fragment,below", CASES, ids=[c[0] for c in CASES])
def test_data_that_is_not_json_gets_the_verdict_of_its_text(
    case: str,
    value: Callable[[], Any],
    fragment: str,
    below: str,
    place: str,
    make_data: Callable[[Any], Dict[str, Any]],
    pointer: str,
) -> None:
    data, text = make_data(value()), text_of(make_data, fragment)
    if below == DEEP:
        below = "/0" * (128 - pointer.count("/"))
    checks: List[Callable[[Any], Any]] = [
        mcpgen.validate,
        lambda d: mcpgen.validate(d, "CallToolRequest"),
        mcpgen.validate_message,
        lambda d: mcpgen.decode(d, "CallToolRequest"),
        lambda d: mcpgen.decode_json(d, "JSONRPCRequest"),
    ]
    for check in checks:
        from_text = refusal(lambda: check(text))
        from_data = refusal(lambda: check(data))
        assert type(from_data) is type(from_text) is mcpgen.ParseError
        assert from_data.kind == from_text.kind == "parse"
        assert entries(from_data) == entries(from_text) == [("", "parse", None)]
        # Where: the message names the value (its dict for a key), as text errors name a byte.
        assert str(from_data).startswith(f"not JSON data at `{pointer}{below}`: ")
        assert (from_data.offset, from_data.line, from_data.column) == (0, 0, 0)
    assert mcpgen.is_valid(text) is False and mcpgen.is_valid(data) is False
    assert mcpgen.is_valid(text, "CallToolRequest") is False
    assert mcpgen.is_valid(data, "CallToolRequest") is False


@pytest.mark.parametrize(
    "fragment",
    ["NaN", "Infinity", "-Infinity", '"\\ud800"', '{"\\udfff":1}'],
    ids=["nan", "inf", "-inf", "surrogate", "surrogate key"],
)
def test_validate_of_json_loads_agrees_with_validate_of_the_bytes(fragment: str) -> None:
    # The form: `json.loads` accepts these texts, mcpgen refuses them either way.
    for _, make_data, _ in PLACES:
        text = text_of(make_data, fragment)
        from_text = refusal(lambda: mcpgen.validate(text))
        from_data = refusal(lambda: mcpgen.validate(json.loads(text)))
        assert entries(from_data) == entries(from_text)


def test_depth_limit_is_the_parsers() -> None:
    # The parser refuses a container inside 128 others. The value sits 3 levels down
    # (message, params, arguments), so 125 nested lists reach the limit and 126 pass it.
    for levels, valid in ((125, True), (126, False)):
        data = in_arguments(nested(levels))
        text = json.dumps(data).encode()
        assert mcpgen.is_valid(data) is valid and mcpgen.is_valid(text) is valid
        if not valid:
            assert entries(refusal(lambda: mcpgen.validate(data))) == entries(refusal(lambda: mcpgen.validate(text)))
            assert "nested deeper than 128 levels" in str(refusal(lambda: mcpgen.validate(data)))


def test_an_unknown_name_wins_over_data_that_is_not_json() -> None:
    # As for text that is not JSON: the name is reported first.
    for data in (in_arguments(float("nan")), text_of(in_arguments, "NaN")):
        with pytest.raises(mcpgen.UnknownDefinitionError):
            mcpgen.validate(data, "NoSuchThing")
        with pytest.raises(mcpgen.UnknownDefinitionError):
            mcpgen.is_valid(data, "NoSuchThing")
        with pytest.raises(mcpgen.UnknownDefinitionError):
            mcpgen.decode(data, "NoSuchThing")


def test_not_json_wins_over_schema_errors() -> None:
    # The whole data is read before any check, as the whole text is parsed first.
    data = in_meta(float("nan"))
    data["params"]["name"] = 5
    assert type(refusal(lambda: mcpgen.validate(data))) is mcpgen.ParseError


def test_tuples_are_arrays() -> None:
    # A tuple has a JSON form (`json.dumps` writes an array), so it is read as one, everywhere.
    data = in_arguments((1, "a", (None,)))
    mcpgen.validate(data)
    assert mcpgen.decode(data, "CallToolRequest")["params"]["arguments"]["x"] == [1, "a", [None]]


def test_tool_arguments_and_tools_refuse_it_too() -> None:
    tool: Dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    for value, fragment in ((float("nan"), "NaN"), ({1}, "{1}"), (nested(200), "[" * 200 + "0" + "]" * 200)):
        from_text = refusal(lambda: mcpgen.validate_tool_arguments(tool, '{"x":' + fragment + "}"))
        from_data = refusal(lambda: mcpgen.validate_tool_arguments(tool, {"x": value}))
        assert entries(from_data) == entries(from_text)
    # In a tool, in a part no check reads (a tool past the parser's depth is a `too_deep` tool
    # instead, from text or data: test_tools.py).
    for value, fragment in ((float("nan"), "NaN"), ({1}, "{1}")):
        text = json.dumps({**tool, "annotations": {"x": HOLE}}).replace(json.dumps(HOLE), fragment)
        from_text = refusal(lambda: mcpgen.check_tool(text))
        from_data = refusal(lambda: mcpgen.check_tool({**tool, "annotations": {"x": value}}))
        assert entries(from_data) == entries(from_text)
        refusal(lambda: mcpgen.check_tools({"tools": [{**tool, "_meta": {"x": value}}]}))
