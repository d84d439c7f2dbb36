"""Every official 2026-07-28 example, as the Rust suite runs them (mcpgen/tests/examples.rs
and mcpgen/tests/protocol_vectors.rs), twice: from JSON bytes and from the parsed Python
data (read in place through the binding's JSON view). Verdicts must match Rust's."""

import json
from pathlib import Path

import pytest

import mcpgen
from support import (
    PULL_HINT,
    dumps_lossless,
    examples_dir,
    expected_example_failures,
    loads_lossless,
    official_examples,
)

REVISION = "2026-07-28"

# Expected failures, with their reasons, from vectors/official-examples.json (the list every
# surface reads). A listed example that passes fails the run (strict xfail).
EXPECTED_FAILURES = expected_example_failures("decode")
EXPECTED_PROTOCOL_FAILURES = expected_example_failures("protocol")

EXAMPLES = official_examples()


def cases():
    for def_name, path in EXAMPLES:
        key = f"{def_name}/{path.stem}"
        marks = []
        if key in EXPECTED_FAILURES:
            marks.append(pytest.mark.xfail(strict=True, raises=mcpgen.ValidationError, reason=EXPECTED_FAILURES[key]))
        yield pytest.param(def_name, path, id=key, marks=marks)


def test_examples_are_present() -> None:
    assert EXAMPLES, f"official examples not found at {examples_dir()}; {PULL_HINT}"
    assert len(EXAMPLES) >= 100


@pytest.mark.parametrize("def_name,path", list(cases()))
def test_example_from_bytes(def_name: str, path: Path) -> None:
    data = path.read_bytes()
    out = mcpgen.decode_json(data, def_name, revision=REVISION)
    # Re-encodes to equal JSON: objects as member sets, numbers by their text.
    assert loads_lossless(out) == loads_lossless(data)
    mcpgen.decode(data, def_name, revision=REVISION, policy="lenient")
    mcpgen.validate(data, def_name, revision=REVISION)
    assert mcpgen.is_valid(data, def_name, revision=REVISION)
    # str input is the same JSON text.
    mcpgen.validate(data.decode(), def_name, revision=REVISION)


@pytest.mark.parametrize("def_name,path", list(cases()))
def test_example_from_python_data(def_name: str, path: Path) -> None:
    data = json.loads(path.read_bytes())
    mcpgen.validate(data, def_name, revision=REVISION)
    assert mcpgen.is_valid(data, def_name, revision=REVISION)
    # Same decoded value as from the bytes (Python values: 1.50 and 1.5 are equal).
    assert mcpgen.decode(data, def_name, revision=REVISION) == mcpgen.decode(path.read_bytes(), def_name, revision=REVISION)
    assert mcpgen.decode(data, def_name, revision=REVISION) == data


def message_cases():
    for def_name, path in EXAMPLES:
        try:
            is_message = "jsonrpc" in json.loads(path.read_bytes())
        except ValueError:
            is_message = False
        if is_message:
            key = f"{def_name}/{path.stem}"
            marks = []
            if key in EXPECTED_PROTOCOL_FAILURES:
                marks.append(pytest.mark.xfail(strict=True, reason=EXPECTED_PROTOCOL_FAILURES[key]))
            yield pytest.param(def_name, path, id=key, marks=marks)


METHODS = mcpgen.methods(REVISION)


@pytest.mark.parametrize("def_name,path", list(message_cases()))
def test_example_message_protocol_checks(def_name: str, path: Path) -> None:
    """As protocol_vectors.rs: whole messages pass validate_message; client requests pass
    check_request; result responses pass check_response for their method."""
    data = path.read_bytes()
    for source in (data, json.loads(data)):
        mcpgen.validate_message(source, revision=REVISION)
        mcpgen.validate(source, revision=REVISION)
        assert mcpgen.is_valid(source, revision=REVISION)
    info = next((m for m in METHODS if m.request_def == def_name), None)
    if info is not None and info.kind == "request" and info.direction == "client_to_server":
        accepted = mcpgen.check_request(data)
        assert accepted.method == info.method
    if def_name.endswith("Response"):
        result_def = def_name[: -len("Response")]
        method = next(m.method for m in METHODS if m.result_defs[:1] == (result_def,))
        checked = mcpgen.check_response(data, method, revision=REVISION)
        assert isinstance(checked, mcpgen.ResultResponse)
        assert checked.variant in (result_def, "InputRequiredResult")
