"""Python validation benchmark: one message mix, every validator, messages per second.

The mix is every official 2026-07-28 example that is a whole JSON-RPC message (request,
notification, result or error response), each validated as the definition its folder names.
Every validator must accept every message of the mix (checked before timing), so all of them
do the same, complete work.

Rows (from bytes = JSON text in, verdict out; from dicts = already-parsed data in):
- ``orjson.loads``: parsing alone, the floor for "from bytes";
- ``mcpgen`` from bytes (parsed and checked in Rust, GIL released) and from dicts (read in
  place, no JSON round trip);
- ``jsonschema-rs`` (compiled validator per definition; from bytes = ``orjson.loads`` + check);
- ``fastjsonschema`` (compiled per definition; from bytes = ``orjson.loads`` + check);
- ``mcp-types`` pydantic models (``model_validate_json`` / ``model_validate``).

Run with a release build of mcpgen installed (``pip install ./bindings/python`` builds one)
and ``pip install -r bindings/python/bench/requirements.txt``, after ``cargo xtask schema pull``
(the examples and schema are read from its cache, ``schema/2026-07-28/``)::

    python bindings/python/bench/bench.py

Goals: from bytes ≥ 2× jsonschema-rs and ≥ 5× mcp-types (issue 5); from dicts ≥ 1.2×
jsonschema-rs (issue 36).
"""

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import mcpgen

REVISION = "2026-07-28"
ROOT = Path(__file__).resolve().parents[3]


CACHE = ROOT / "schema" / REVISION
"""What `cargo xtask schema pull` fills: schema.json and examples/."""


def load_mix() -> List[Tuple[str, bytes, Any]]:
    examples = CACHE / "examples"
    if not examples.is_dir():
        sys.exit(f"official examples not found at {examples}; run `cargo xtask schema pull`")
    mix = []
    for d in sorted(examples.iterdir()):
        for f in sorted(d.glob("*.json")):
            data = f.read_bytes()
            obj = json.loads(data)
            if isinstance(obj, dict) and "jsonrpc" in obj:
                mix.append((d.name, data, obj))
    return mix


# CPU time of this thread, not wall time: on a shared machine the wall clock also counts the
# time other processes hold the cores. (Every row runs on this one thread; the GIL release of
# mcpgen's bytes path does not move work elsewhere.)
clock = time.thread_time


def calibrate(fn: Callable[[], None], min_time: float) -> int:
    """Loops of `fn` that take about `min_time` seconds."""
    fn()  # warm up
    loops = 1
    while True:
        t = clock()
        for _ in range(loops):
            fn()
        dt = clock() - t
        if dt >= min_time / 4:
            return max(1, int(loops * min_time / max(dt, 1e-9)))
        loops *= 2


def measure(rows: List[Tuple[str, Callable[[], None]]], n_msgs: int, min_time: float, repeats: int) -> Dict[str, float]:
    """Best messages/s of each row. Rows are interleaved (round after round), so a change of
    machine load affects every row alike instead of whichever row ran at that moment."""
    loops = {name: calibrate(fn, min_time) for name, fn in rows}
    best = {name: float("inf") for name, _ in rows}
    for _ in range(repeats):
        for name, fn in rows:
            n = loops[name]
            t = clock()
            for _ in range(n):
                fn()
            best[name] = min(best[name], (clock() - t) / n)
    return {name: n_msgs / best[name] for name in best}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--min-time", type=float, default=0.3, help="seconds per measurement (default 0.3)")
    ap.add_argument("--repeats", type=int, default=10, help="rounds over all rows, best kept (default 10)")
    ap.add_argument("--only", help="run only rows whose name contains this")
    args = ap.parse_args()

    import fastjsonschema
    import jsonschema_rs
    import orjson
    from mcp_types import _v2026_07_28 as mcp_types_models

    mix = load_mix()
    schema = json.loads((CACHE / "schema.json").read_bytes())
    defs = sorted({d for d, _, _ in mix})
    skipped = [d for d in defs if not hasattr(mcp_types_models, d)]
    mix = [m for m in mix if m[0] not in skipped]
    defs = [d for d in defs if d not in skipped]

    def sub_schema(name: str) -> Dict[str, Any]:
        return {"$schema": schema.get("$schema"), "$ref": f"#/$defs/{name}", "$defs": schema["$defs"]}

    jrs = {d: jsonschema_rs.validator_for(sub_schema(d)) for d in defs}
    fjs = {d: fastjsonschema.compile(sub_schema(d)) for d in defs}
    models = {d: getattr(mcp_types_models, d) for d in defs}

    # Every validator must accept the whole mix: same, complete work.
    problems = []
    for d, b, o in mix:
        checks = {
            "mcpgen bytes": lambda: mcpgen.is_valid(b, d),
            "mcpgen dicts": lambda: mcpgen.is_valid(o, d),
            "jsonschema-rs": lambda: jrs[d].is_valid(o),
            "fastjsonschema": lambda: fjs[d](o) is not None or True,
            "mcp-types": lambda: models[d].model_validate_json(b) is not None,
        }
        for name, check in checks.items():
            try:
                ok = check()
            except Exception as e:  # noqa: BLE001 - a rejection, reported below
                ok, why = False, f"{type(e).__name__}: {str(e)[:120]}"
            else:
                why = "rejected"
            if not ok:
                problems.append(f"{name} {why}: {d}")
    if problems:
        sys.exit("validators disagree with the examples:\n  " + "\n  ".join(problems))

    n = len(mix)
    is_valid, validate = mcpgen.is_valid, mcpgen.validate
    loads = orjson.loads
    # One list per row, holding exactly what the row's loop needs.
    just_bytes = [b for _, b, _ in mix]
    def_bytes = [(d, b) for d, b, _ in mix]
    def_objs = [(d, o) for d, _, o in mix]
    jrs_bytes = [(jrs[d].is_valid, b) for d, b, _ in mix]
    jrs_objs = [(jrs[d].is_valid, o) for d, _, o in mix]
    fjs_bytes = [(fjs[d], b) for d, b, _ in mix]
    fjs_objs = [(fjs[d], o) for d, _, o in mix]
    pyd_bytes = [(models[d].model_validate_json, b) for d, b, _ in mix]
    pyd_objs = [(models[d].model_validate, o) for d, _, o in mix]

    def r_orjson() -> None:
        for b in just_bytes:
            loads(b)

    def r_mcpgen_bytes() -> None:
        for d, b in def_bytes:
            validate(b, d)

    def r_mcpgen_bytes_is_valid() -> None:
        for d, b in def_bytes:
            is_valid(b, d)

    def r_mcpgen_message() -> None:
        for b in just_bytes:
            validate(b)

    def r_mcpgen_dicts() -> None:
        for d, o in def_objs:
            validate(o, d)

    def r_jrs_bytes() -> None:
        for v, b in jrs_bytes:
            v(loads(b))

    def r_jrs_dicts() -> None:
        for v, o in jrs_objs:
            v(o)

    def r_fjs_bytes() -> None:
        for f, b in fjs_bytes:
            f(loads(b))

    def r_fjs_dicts() -> None:
        for f, o in fjs_objs:
            f(o)

    def r_mcp_types_bytes() -> None:
        for m, b in pyd_bytes:
            m(b)

    def r_mcp_types_dicts() -> None:
        for m, o in pyd_objs:
            m(o)

    table: List[Tuple[str, str, Callable[[], None]]] = [
        ("orjson.loads (parse only)", "bytes", r_orjson),
        ("mcpgen.validate(bytes, def)", "bytes", r_mcpgen_bytes),
        ("mcpgen.is_valid(bytes, def)", "bytes", r_mcpgen_bytes_is_valid),
        ("mcpgen.validate(bytes) by method", "bytes", r_mcpgen_message),
        ("jsonschema-rs (orjson.loads + is_valid)", "bytes", r_jrs_bytes),
        ("fastjsonschema (orjson.loads + validate)", "bytes", r_fjs_bytes),
        ("mcp-types model_validate_json", "bytes", r_mcp_types_bytes),
        ("mcpgen.validate(dict, def)", "dicts", r_mcpgen_dicts),
        ("jsonschema-rs is_valid(dict)", "dicts", r_jrs_dicts),
        ("fastjsonschema validate(dict)", "dicts", r_fjs_dicts),
        ("mcp-types model_validate(dict)", "dicts", r_mcp_types_dicts),
    ]
    if args.only:
        table = [t for t in table if args.only in t[0]]

    from importlib.metadata import version

    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus")
    print(
        "versions: mcpgen {} | jsonschema-rs {} | fastjsonschema {} | mcp-types {} | pydantic {} | orjson {}".format(
            mcpgen.__version__, version("jsonschema-rs"), version("fastjsonschema"), version("mcp-types"), version("pydantic"), version("orjson")
        )
    )
    sizes = sorted(len(b) for _, b, _ in mix)
    print(f"mix: {n} messages ({len(defs)} definitions), {sum(sizes)} bytes, median {sizes[n // 2]} B, max {sizes[-1]} B")
    if skipped:
        print(f"left out (no mcp-types model): {', '.join(skipped)}")
    print()
    results = measure([(name, fn) for name, _, fn in table], n, args.min_time, args.repeats)
    for name, kind, _ in table:
        r = results[name]
        print(f"{kind:5}  {name:42} {r:12,.0f} msg/s  {1e6 / r:7.2f} µs/msg (CPU)")

    def ratio(a: str, b: str) -> Optional[float]:
        return results[a] / results[b] if a in results and b in results else None

    print()
    goals = [
        ("from bytes vs jsonschema-rs", "mcpgen.validate(bytes, def)", "jsonschema-rs (orjson.loads + is_valid)", 2.0),
        ("from bytes vs mcp-types", "mcpgen.validate(bytes, def)", "mcp-types model_validate_json", 5.0),
        ("from dicts vs jsonschema-rs", "mcpgen.validate(dict, def)", "jsonschema-rs is_valid(dict)", 1.2),
        ("from bytes vs orjson.loads alone", "mcpgen.validate(bytes, def)", "orjson.loads (parse only)", None),
    ]
    for label, a, b, goal in goals:
        x = ratio(a, b)
        if x is None:
            continue
        verdict = "" if goal is None else (f"  goal ≥ {goal:g}×: " + ("met" if x >= goal else "NOT met"))
        print(f"{label:34} {x:6.2f}×{verdict}")


if __name__ == "__main__":
    main()
