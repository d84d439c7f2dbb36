"""How Python data is read (bindings/python/src/view.rs): exact built-in types take a fast
path, subclasses the general one, and both give the verdict and errors of the JSON text. The
expectations are written out: pointers, keywords and values, not another reading of the data."""

import json
from typing import Any, Dict, List, Tuple

import pytest

import mcpgen

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def call_tool(**params: Any) -> Dict[str, Any]:
    p: Dict[str, Any] = {"_meta": dict(META), "name": "get_weather", "arguments": {"city": "Paris"}}
    p.update(params)
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": p}


def progress(token: Any, value: Any = 1) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": value}}


def errors(data: Any, name: str) -> List[Tuple[str, str]]:
    with pytest.raises(mcpgen.ValidationError) as e:
        mcpgen.validate(data, name)
    return [(d.pointer, d.keyword) for d in e.value.errors]


def not_json(data: Any) -> str:
    with pytest.raises(mcpgen.ParseError) as e:
        mcpgen.validate(data, "CallToolRequest")
    assert mcpgen.is_valid(data, "CallToolRequest") is False
    return str(e.value)


class Dict2(dict):  # type: ignore[type-arg]
    pass


class List2(list):  # type: ignore[type-arg]
    pass


class Str2(str):
    pass


class Int2(int):
    pass


class Float2(float):
    pass


def test_subclasses_read_as_their_base() -> None:
    data = Dict2(call_tool(name=Str2("get_weather"), arguments=Dict2(xs=List2([Int2(1), Float2(2.5)]))))
    data["id"] = Int2(7)
    assert mcpgen.is_valid(data, "CallToolRequest") is True
    out = mcpgen.decode(data, "CallToolRequest")
    assert out["id"] == 7 and out["params"]["name"] == "get_weather"
    assert out["params"]["arguments"] == {"xs": [1, 2.5]}


def test_subclass_values_of_the_wrong_kind_are_reported_where_they_are() -> None:
    # name must be a string, arguments an object, progressToken a string or an integer (`type`).
    assert errors(call_tool(name=Int2(5)), "CallToolRequest") == [("/params/name", "type")]
    assert errors(Dict2(call_tool(arguments=List2([1]))), "CallToolRequest") == [("/params/arguments", "type")]
    assert errors(progress(Float2(1.5)), "ProgressNotification") == [("/params/progressToken", "type")]
    # A float with an integral value is an integer (JSON Schema), subclass or not.
    assert mcpgen.is_valid(progress(Float2(1.0)), "ProgressNotification") is True
    assert mcpgen.is_valid(progress(1.0), "ProgressNotification") is True
    assert mcpgen.is_valid(progress(1.5), "ProgressNotification") is False


def test_bool_is_never_an_integer() -> None:
    assert errors(progress(True), "ProgressNotification") == [("/params/progressToken", "type")]
    assert errors(progress("t", False), "ProgressNotification") == [("/params/progress", "type")]
    assert mcpgen.is_valid(progress(0), "ProgressNotification") is True


def test_integers_beyond_64_bits() -> None:
    for big in (2**64, -(2**80), 10**40):
        assert mcpgen.is_valid(progress(big, big), "ProgressNotification") is True
        assert mcpgen.is_valid(progress(big, big), "ProgressNotification") == mcpgen.is_valid(
            json.dumps(progress(big, big)), "ProgressNotification"
        )
    assert mcpgen.decode(progress(2**80), "ProgressNotification")["params"]["progressToken"] == 2**80


def test_floats_keep_their_value() -> None:
    data = call_tool(arguments={"x": [1.5, -0.0, 1e300, Float2(0.25)]})
    assert mcpgen.decode(data, "CallToolRequest")["params"]["arguments"]["x"] == [1.5, -0.0, 1e300, 0.25]
    # `progress` is a number: a float is checked as one.
    assert mcpgen.is_valid(progress("t", 0.5), "ProgressNotification") is True


def test_strings_are_compared_by_their_utf8() -> None:
    # The const "2.0" against non-ASCII look-alikes, and non-ASCII strings read back exactly.
    bad = call_tool()
    bad["jsonrpc"] = "2.０"
    assert errors(bad, "CallToolRequest") == [("/jsonrpc", "const")]
    bad["jsonrpc"] = Str2("2.0")
    assert mcpgen.is_valid(bad, "CallToolRequest") is True
    data = call_tool(name="météo 天気 🌦", arguments={"ville": Str2("Besançon")})
    out = mcpgen.decode(data, "CallToolRequest")
    assert out["params"]["name"] == "météo 天気 🌦"
    assert out["params"]["arguments"] == {"ville": "Besançon"}


def test_non_str_keys_and_str_subclass_keys() -> None:
    assert mcpgen.is_valid(call_tool(arguments={Str2("k"): 1}), "CallToolRequest") is True
    message = not_json(call_tool(arguments={"a": 1, 2: "b"}))
    assert message.startswith("not JSON data at `/params/arguments`: dict keys must be str, found `int`")


def test_a_bad_key_wins_over_a_bad_value_in_the_same_dict() -> None:
    # The keys are the dict's own: a bad key anywhere in a dict is reported at the dict, even
    # after a value before it that is not JSON either (as deep as it is).
    for value in (float("nan"), {1}, [0, {"y": float("inf")}], Float2("nan")):
        message = not_json(call_tool(arguments={"x": value, "ok": 1, 3: "b"}))
        assert message.startswith("not JSON data at `/params/arguments`: dict keys must be str, found `int`"), message
    message = not_json(call_tool(arguments={"x": [0, {"y": float("inf")}], "ok": 1}))
    assert message == "not JSON data at `/params/arguments/x/1/y`: inf is not a JSON number"
    message = not_json(call_tool(arguments={"x": 1, "y": Float2("-inf")}))
    assert message == "not JSON data at `/params/arguments/y`: -inf is not a JSON number"
    # The first bad value in order wins among values.
    message = not_json(call_tool(arguments={"a": [1, 2, {3}], "b": float("nan")}))
    assert message == "not JSON data at `/params/arguments/a/2`: `set` is not JSON data " \
        "(expected dict, list, tuple, str, int, float, bool or None)"


def test_a_shared_value_is_read_at_each_place() -> None:
    shared = {"k": [1, 2, 3]}
    data = call_tool(arguments={"a": shared, "b": shared, "c": [shared, shared]})
    assert mcpgen.decode(data, "CallToolRequest")["params"]["arguments"]["c"] == [shared, shared]


def test_many_calls_reuse_the_tables() -> None:
    # The tables are kept from call to call on a thread; a large call frees them, and each
    # call sees only its own data.
    big = call_tool(arguments={"xs": list(range(100_000))})
    small = call_tool(arguments={"k": "v"})
    for data in (small, big, small):
        assert mcpgen.decode(data, "CallToolRequest")["params"]["arguments"] == data["params"]["arguments"]
    assert errors(call_tool(name=1), "CallToolRequest") == [("/params/name", "type")]
