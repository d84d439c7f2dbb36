"""Shared helpers for the Python test suite: where the inputs are, JSON that keeps number text,
and the flattening of union-arm errors (as the Rust runners do)."""

import json
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import mcpgen

ROOT = Path(__file__).resolve().parents[3]
"""The repository root (this file is bindings/python/tests/support.py)."""

VECTORS = ROOT / "vectors"


PULL_HINT = "run `cargo xtask schema pull` (add --from DIR for a mirror)"


def examples_dir() -> Path:
    """The git-ignored cache that `cargo xtask schema pull` fills (as the Rust tests)."""
    return ROOT / "schema" / "2026-07-28" / "examples"


def official_examples() -> List[Tuple[str, Path]]:
    """(definition, file) for every official 2026-07-28 example; empty when missing (the
    caller turns that into a failing test, never a skip)."""
    d = examples_dir()
    if not d.is_dir():
        return []
    return [(sub.name, f) for sub in sorted(d.iterdir()) if sub.is_dir() for f in sorted(sub.glob("*.json"))]


def expected_example_failures(check: str) -> Dict[str, str]:
    """The official examples expected to fail `check` ("decode" or "protocol"), as
    {"<Def>/<name>": reason}: the lists of vectors/official-examples.json, which every surface
    reads. A listed example that passes fails the run."""
    data = json.loads((VECTORS / "official-examples.json").read_bytes())
    return {entry["example"]: entry["reason"] for entry in data["expected_failures"][check]}


def _num(text: str) -> Any:
    return ("#num", text)


def loads_lossless(text: "str | bytes") -> Any:
    """JSON with numbers as ("#num", text): compared by text, as the Rust runners do."""
    return json.loads(text, parse_float=_num, parse_int=_num)


def dumps_lossless(v: Any) -> str:
    """Compact JSON from `loads_lossless` data, number text unchanged."""
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "#num":
        return str(v[1])
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + dumps_lossless(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(dumps_lossless(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def flatten(errors: "List[mcpgen.ErrorDetail]") -> Iterator["mcpgen.ErrorDetail"]:
    """Every error, with the errors inside union arms."""
    for e in errors:
        yield e
        for arm in e.arms:
            yield from flatten(list(arm.errors))


def error_matches(pattern: Dict[str, Any], e: "mcpgen.ErrorDetail") -> bool:
    """An `expect.errors` pattern `{pointer?, keyword?, rule?, message?}` (`rule` None: no rule)
    holds for the one error."""
    return all(getattr(e, f) == pattern[f] for f in ("pointer", "keyword", "rule", "message") if f in pattern)


def error_kind(e: BaseException) -> str:
    if isinstance(e, mcpgen.ValidationError):
        return e.kind
    if isinstance(e, mcpgen.UnknownDefinitionError):
        return "unknown_definition"
    return "internal"


def typed_error(e: BaseException) -> Dict[str, Any]:
    """A typed error as the vectors' `expect.error` states it: kind, rule, pointer, message."""
    if isinstance(e, mcpgen.ParseError):
        return {"kind": "parse", "rule": None, "pointer": None, "message": str(e)}
    if isinstance(e, (mcpgen.MetaKeyError, mcpgen.LimitError, mcpgen.ToolDocumentError)):
        assert str(e) == e.message, "the exception's text is the core's message"
        return {"kind": e.kind, "rule": e.rule, "pointer": e.pointer, "message": e.message}
    raise AssertionError(f"not a typed error: {e!r}")
