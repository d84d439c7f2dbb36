"""One Python line of `cargo xtask bench` (the External protocol of bench/src/report.rs).

    python3 bindings/python/bench/mix.py --line LINE MIX.tsv

reads the generated mix (one message per line: ``definition<TAB>valid|invalid<TAB>json``),
computes a verdict for every message (checked by the runner against the mix's own), times
whole passes over the mix with this thread's CPU time, and prints on its last line::

    {"seconds_per_pass": ..., "passes": N, "invalid": [indices]}

Lines (``--line``):
- ``mcpgen-bytes``: ``mcpgen.is_valid(bytes, def)`` (parse + validate in Rust, GIL released);
- ``mcpgen-dicts``: ``mcpgen.is_valid(dict, def)`` on data parsed beforehand (``orjson``);
- ``jsonschema-rs-bytes``: ``orjson.loads`` + ``jsonschema_rs`` ``is_valid`` (validator per
  definition, compiled from the errata-patched schema, as the Rust comparison);
- ``jsonschema-rs-dicts``: the same validators on the pre-parsed data.

The Python running it needs mcpgen (a release build: ``pip install ./bindings/python``) and
``bindings/python/bench/requirements.txt``: ``cargo xtask bench`` installs both into
``target/bench-venv`` and puts that environment's ``python3`` first on ``PATH``.
"""

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, List, Tuple

ROOT = Path(__file__).resolve().parents[3]
REVISION = "2026-07-28"


def patched_schema() -> Any:
    """schema/<rev>/schema.json with schema/errata/<rev>.json applied (expect asserted)."""
    schema = json.loads((ROOT / "schema" / REVISION / "schema.json").read_bytes())
    ledger = json.loads((ROOT / "schema" / "errata" / f"{REVISION}.json").read_bytes())
    for e in ledger["errata"]:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in e["pointer"].split("/")[1:]]
        parent = schema
        for p in parts[:-1]:
            parent = parent[int(p)] if isinstance(parent, list) else parent[p]
        last: Any = int(parts[-1]) if isinstance(parent, list) else parts[-1]
        if parent[last] != e["expect"]:
            sys.exit(f"erratum {e['pointer']}: schema holds {parent[last]!r}, ledger expects {e['expect']!r}")
        parent[last] = e["replace"]
    return schema


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--line", required=True, choices=["mcpgen-bytes", "mcpgen-dicts", "jsonschema-rs-bytes", "jsonschema-rs-dicts"])
    ap.add_argument("--min-time", type=float, default=2.0, help="CPU seconds to spend timing (default 2)")
    ap.add_argument("--passes", type=int, help="exactly this many timed passes (for a profiler: the "
                    "instructions of N passes minus those of 0 passes are N passes' own)")
    ap.add_argument("tsv")
    args = ap.parse_args()

    try:
        import orjson

        import mcpgen
    except ImportError as e:
        sys.exit(f"{e}: install the package and its benchmark tools into this python3 ({sys.executable}): "
                 "pip install ./bindings/python -r bindings/python/bench/requirements.txt")

    mix: List[Tuple[str, bytes]] = []
    for raw in Path(args.tsv).read_bytes().splitlines():
        d, _verdict, msg = raw.split(b"\t", 2)
        mix.append((d.decode(), msg))

    verdicts: List[bool] = [False] * len(mix)
    pass_fn: Callable[[], None]
    if args.line.startswith("mcpgen"):
        is_valid = mcpgen.is_valid
        items: List[Tuple[str, Any]] = mix if args.line == "mcpgen-bytes" else [(d, orjson.loads(b)) for d, b in mix]

        def pass_fn() -> None:
            for i, (d, x) in enumerate(items):
                verdicts[i] = is_valid(x, d)
    else:
        import jsonschema_rs

        schema = patched_schema()
        compiled = {}
        for d in sorted({d for d, _ in mix}):
            doc = dict(schema)
            doc["$ref"] = f"#/$defs/{d}"
            compiled[d] = jsonschema_rs.validator_for(doc, validate_formats=False).is_valid
        loads = orjson.loads
        if args.line == "jsonschema-rs-bytes":
            checks = [(compiled[d], b) for d, b in mix]

            def pass_fn() -> None:
                for i, (check, b) in enumerate(checks):
                    verdicts[i] = check(loads(b))
        else:
            checks = [(compiled[d], loads(b)) for d, b in mix]

            def pass_fn() -> None:
                for i, (check, o) in enumerate(checks):
                    verdicts[i] = check(o)

    pass_fn()  # warm up, and the verdicts the runner checks
    invalid = [i for i, ok in enumerate(verdicts) if not ok]
    clock = time.thread_time
    passes, spent = 0, 0.0
    best = float("inf")
    while (spent < args.min_time or passes < 3) if args.passes is None else passes < args.passes:
        t = clock()
        pass_fn()
        dt = clock() - t
        best = min(best, dt)
        spent += dt
        passes += 1
    print(json.dumps({"seconds_per_pass": best if passes else None, "passes": passes, "invalid": invalid}))


if __name__ == "__main__":
    main()
