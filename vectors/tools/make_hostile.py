#!/usr/bin/env python3
"""Writes the large hostile tool-schema vectors (hostile-*.json) of this directory.

They are committed; rerun this script after changing it: `python3 vectors/tools/make_hostile.py`.
Each must be rejected at compile time with the kind in `expect`, under the default limits.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, description, tool, kind, pointer=None):
    error = {"kind": kind}
    if pointer is not None:
        error["pointer"] = pointer
    case = {"description": description, "tool": tool, "expect": {"ok": False, "errors": [error]}}
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(case, f, separators=(",", ":"))
        f.write("\n")


def main():
    deep = {"type": "string"}
    for i in range(80):
        # Alternate anyOf and not: 80 subschema levels in ~110 JSON levels (parsers stop at 128).
        deep = {"anyOf": [deep]} if i % 3 == 0 else {"not": deep}
    write("hostile-deep-anyof",
          "80 nested anyOf/not subschemas: deeper than max_depth 64 (jsonschema alone overflows the stack "
          "at a few thousand levels).",
          {"name": "t", "inputSchema": {"type": "object", "properties": {"x": deep}}}, "too_deep")

    write("hostile-many-subschemas",
          "10 001 subschemas (booleans in one anyOf): more than max_subschemas 10 000.",
          {"name": "t", "inputSchema": {"type": "object", "properties": {"x": {"anyOf": [True] * 10001}}}},
          "too_many_subschemas")

    write("hostile-huge-enum",
          "An enum of 20 000 values: more than max_enum_values 10 000.",
          {"name": "t", "inputSchema": {"type": "object", "properties": {"x": {"enum": list(range(20000))}}}},
          "enum_too_large", "/inputSchema/properties/x/enum")

    defs = {"a0": {"type": "string"}}
    for k in range(1, 40):
        defs["a%d" % k] = {"anyOf": [{"$ref": "#/$defs/a%d" % (k - 1)}, {"$ref": "#/$defs/a%d" % (k - 1)}, {"minimum": 3}]}
    write("hostile-exponential-refs",
          "40 definitions, each an anyOf referencing the previous one twice: 80 references unfold into ~3^40 "
          "evaluations of a non-string (jsonschema alone takes half a second at 15 levels); over max_steps.",
          {"name": "t", "inputSchema": {"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/a39"}}}},
          "step_budget_exceeded")


if __name__ == "__main__":
    main()
