"""Checks messages against a definition of an MCP revision's official JSON schema,
with the Python `jsonschema` package: the independent check of the proxy's own
messages (tests/cli/proxy.rs).

    python check_schema.py SCHEMA_FILE < CHECKS

Each line of CHECKS is a JSON array [DEFINITION, VALUE]; each line of the output
says `valid` or `INVALID` for it, in order.
"""

import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1], encoding="utf-8"))
defs = "$defs" if "$defs" in schema else "definitions"
for line in sys.stdin:
    definition, value = json.loads(line)
    rooted = dict(schema)
    rooted["$ref"] = "#/%s/%s" % (defs, definition)
    cls = jsonschema.validators.validator_for(schema)
    errors = list(cls(rooted).iter_errors(value))
    print("valid" if not errors else "INVALID")
