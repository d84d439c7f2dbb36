"""The generated typing modules (`mcpgen.rev_*`): complete, importable, resolvable, and strict
enough that mypy rejects data the schema rejects."""

import importlib
import sys
import textwrap
import typing
from pathlib import Path

import pytest
from mypy import api as mypy_api

import mcpgen


@pytest.mark.parametrize("revision", mcpgen.REVISIONS)
def test_every_definition_has_a_type(revision: str) -> None:
    module = importlib.import_module("mcpgen.rev_" + revision.replace("-", "_"))
    assert module.REVISION == revision
    missing = [d for d in mcpgen.definitions(revision) if not hasattr(module, d)]
    assert not missing, f"definitions without a Python type: {missing}"
    assert set(mcpgen.definitions(revision)) <= set(module.__all__)
    for name in module.__all__:
        obj = getattr(module, name)
        if isinstance(obj, type) and hasattr(obj, "__required_keys__"):
            # Every annotation resolves (forward references included).
            typing.get_type_hints(obj)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="NotRequired is introspectable at runtime from 3.11")
def test_required_and_optional_keys_follow_the_schema() -> None:
    from mcpgen import rev_2026_07_28 as m

    assert m.CallToolRequestParams.__required_keys__ == {"_meta", "name"}
    assert m.CallToolRequestParams.__optional_keys__ == {"arguments", "inputResponses", "requestState"}
    meta = m.RequestMetaObject
    assert "io.modelcontextprotocol/protocolVersion" in meta.__required_keys__
    assert "io.modelcontextprotocol/clientInfo" in meta.__optional_keys__
    assert m.CallToolRequest.__doc__ and "tools/call" in m.CallToolRequest.__doc__ + str(m.CallToolRequestParams.__doc__)


def run_mypy(tmp_path: Path, code: str) -> "tuple[str, int]":
    src = tmp_path / "snippet.py"
    src.write_text(code)
    out, err, status = mypy_api.run(["--strict", "--no-error-summary", "--cache-dir", str(tmp_path / ".mypy_cache"), str(src)])
    return out + err, status


GOOD = textwrap.dedent(
    """
    import mcpgen
    from mcpgen.rev_2026_07_28 import CallToolRequest, ContentBlock, JSONValue

    request: CallToolRequest = {
        "jsonrpc": "2.0",
        "id": "a",
        "method": "tools/call",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
            },
            "name": "x",
        },
    }
    block: ContentBlock = {"type": "text", "text": "hi"}
    value: JSONValue = {"a": [1, 2.5, None, True, "s", {"b": []}]}
    mcpgen.validate(request, "CallToolRequest", revision="2026-07-28", policy="strict")
    ok: bool = mcpgen.is_valid(b"{}")
    result: mcpgen.DecodedResult = mcpgen.decode_result(b"{}", "tools/call")
    thinned, skipped = mcpgen.decode_result(b"{}", "tools/list", skip_invalid_items=True)
    kept: mcpgen.DecodedResult = thinned
    first: "list[mcpgen.SkippedItem]" = skipped

    tool = {"name": "t", "inputSchema": {"type": "object"}}
    limits: mcpgen.Limits = {"max_depth": 32, "max_errors": 10}
    checker = mcpgen.ToolChecker(limits=limits, validate_formats=True)
    checker.check_tool(tool)
    checker.validate_arguments(tool, {"x": 1})
    cached: int = checker.cached
    in_force: "dict[str, int]" = checker.limits
    mcpgen.validate_tool_arguments(b"{}", {}, limits={"max_steps": 10})
    mcpgen.validate_structured_content(tool, {})
    reports: "list[mcpgen.ToolReport]" = mcpgen.check_tools({"tools": [tool]})
    problems: "tuple[mcpgen.SchemaProblem, ...]" = reports[0].errors
    try:
        mcpgen.check_tool(tool)
    except mcpgen.ToolSchemaError as e:
        uri: "str | None" = e.errors[0].uri
    except mcpgen.LimitExceededError as e:
        detail: mcpgen.ErrorDetail = e.errors[0]
    policy = mcpgen.IconPolicy(allow_svg=True, trusted_origins=("https://cdn.example.com",))
    info: mcpgen.IconInfo = mcpgen.check_icon("https://example.com/i.png", "image/png", server="https://example.com", policy=policy)
    active: bool = info.active_content
    mime: str = mcpgen.check_icon_bytes(b"PNG", policy=policy)
    sniffed: "str | None" = mcpgen.sniff_image(bytearray(b""))
    same: bool = mcpgen.same_origin("https://a", "https://b")
    try:
        mcpgen.check_icon("x")
    except mcpgen.IconError as e:
        kind: str = e.kind
    """
)


def test_mypy_accepts_schema_valid_data(tmp_path: Path) -> None:
    out, status = run_mypy(tmp_path, GOOD)
    assert status == 0, out


@pytest.mark.parametrize(
    "bad,expected",
    [
        ('request["method"] = "tools/calll"', "Literal"),
        ('request["params"]["name"] = 5', "str"),
        ('del request["params"]["name"]', "name"),
        ('block = {"type": "image", "text": "hi"}', "typeddict-item"),
        ('mcpgen.validate(request, policy="loose")', "policy"),
        ("mcpgen.negotiate_version(1, [])", "negotiate_version"),
        ('mcpgen.ToolChecker(limits={"max_dept": 3})', "Limits"),
        ('mcpgen.check_tool(tool, limits={"max_depth": "3"})', "Limits"),
        ('mcpgen.check_icon_bytes("text")', "check_icon_bytes"),
        ('mcpgen.IconPolicy(max_bytes="1")', "IconPolicy"),
        ("checker.cached = 3", "cached"),
    ],
    ids=["const", "type", "required", "union-arm", "policy", "api", "limit-key", "limit-type", "icon-bytes", "icon-policy", "read-only"],
)
def test_mypy_rejects_schema_invalid_data(tmp_path: Path, bad: str, expected: str) -> None:
    out, status = run_mypy(tmp_path, GOOD + "\n" + bad + "\n")
    assert status == 1, f"mypy accepted: {bad}\n{out}"
    assert expected in out, out


def test_the_tasks_extension_has_a_typing_module() -> None:
    """`mcpgen.ext_tasks` (generated from the pinned ext-tasks schema): importable, resolvable,
    and it says which extension and revision it describes."""
    from mcpgen import ext_tasks as m

    assert m.EXTENSION_ID == "io.modelcontextprotocol/tasks"
    assert m.LAYERS_ON in mcpgen.REVISIONS
    assert typing.get_args(m.TaskStatus) == ("working", "input_required", "completed", "failed", "cancelled")
    for name in ["Task", "CreateTaskResult", "GetTaskRequest", "GetTaskResult", "UpdateTaskRequest", "CancelTaskRequest", "TaskStatusNotification"]:
        assert name in m.__all__, name
    for name in m.__all__:
        obj = getattr(m, name)
        if isinstance(obj, type) and hasattr(obj, "__required_keys__"):
            typing.get_type_hints(obj)
