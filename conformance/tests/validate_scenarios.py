#!/usr/bin/env python3
"""validate_scenarios.py: checks every scenario file against scenarios/scenario.schema.json.

Usage: validate_scenarios.py SCHEMA DIR. Exits 77 (CTest's skip code) when the jsonschema
module is not installed, 1 when a file does not validate.
"""
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema (python3-jsonschema) is not installed: skipped")
    sys.exit(77)

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0; n = 0
for p in sorted(pathlib.Path(sys.argv[2]).rglob("*.json")):
    if p.name == "scenario.schema.json": continue
    n += 1
    errs = list(v.iter_errors(json.load(open(p))))
    for e in errs[:3]:
        print(f"{p}: {list(e.absolute_path)}: {e.message[:300]}")
    bad += bool(errs)
print(f"{n} files, {bad} invalid")
sys.exit(1 if bad else 0)
