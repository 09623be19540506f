# SPDX-License-Identifier: GPL-2.0-only
"""The rules of KCIDB I/O schema v5.3, encoded by hand, and a checker.

Encoded from the schema's text (kernelci/kcidb-io, kcidb_io/schema/v05_03.py
and the patterns it inherits from v3.0 and v5.0): object types, required
properties, `additionalProperties: false`, string patterns, the status enum,
`maxLength` of log excerpts, date-time and uri formats, and "no property can
be null".  Only the parts our writer can produce are encoded in full
(checkouts, builds, tests); issues and incidents are checked for their
required properties.  `validate()` returns a list of errors, empty when valid.
"""
import re

ORIGIN = r"[a-z0-9_]+"
ORIGIN_ID = rf"^{ORIGIN}:.*$"
NO_NUL = r"^[^\0]*$"
SHA1 = r"[0-9a-f]{40}"
SHA256 = r"[0-9a-f]{64}"
TEST_PATH = r"^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$"
STATUS = ["FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"]
# RFC 3339 date-time (JSON Schema "date-time"): the offset is mandatory.
DATE_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$")

TEXT = {"type": "string", "pattern": NO_NUL}
TIME = {"type": "string", "format": "date-time"}
LINK = {"type": "string", "format": "uri"}
ID = {"type": "string", "pattern": ORIGIN_ID}
EXCERPT = {"type": "string", "pattern": NO_NUL, "maxLength": 16384}
RESOURCES = {"type": "array", "items": {
    "type": "object", "required": ["name", "url"], "additionalProperties": False,
    "properties": {"name": {"type": "string", "pattern": r"^[^/\0]+$"}, "url": LINK}}}
MISC = {"type": "object"}

CHECKOUT = {
    "type": "object", "required": ["id", "origin"], "additionalProperties": False,
    "properties": {
        "_timestamp": TIME, "id": ID, "origin": {"type": "string", "pattern": f"^{ORIGIN}$"},
        "tree_name": TEXT,
        "git_repository_url": {"type": "string", "format": "uri", "pattern": r"^https://.*$"},
        "git_commit_hash": {"type": "string", "pattern": f"^{SHA1}$"},
        "git_commit_name": TEXT, "git_commit_tags": {"type": "array", "items": TEXT},
        "git_commit_message": TEXT, "git_repository_branch": TEXT,
        "git_repository_branch_tip": {"type": "boolean"}, "patchset_files": RESOURCES,
        "patchset_hash": {"type": "string", "pattern": f"^$|^{SHA256}$"},
        "message_id": {"type": "string", "format": "email"}, "comment": TEXT,
        "start_time": TIME, "origin_builds_finish_time": TIME,
        "origin_tests_finish_time": TIME, "log_url": LINK, "log_excerpt": EXCERPT,
        "valid": {"type": "boolean"}, "misc": MISC}}

BUILD = {
    "type": "object", "required": ["checkout_id", "id", "origin"],
    "additionalProperties": False,
    "properties": {
        "_timestamp": TIME, "checkout_id": ID, "id": ID,
        "origin": {"type": "string", "pattern": f"^{ORIGIN}$"}, "comment": TEXT,
        "start_time": TIME, "duration": {"type": "number"},
        "architecture": {"type": "string", "pattern": r"^[a-z0-9_]*$"}, "command": TEXT,
        "compiler": TEXT, "input_files": RESOURCES, "output_files": RESOURCES,
        "config_name": TEXT, "config_url": LINK, "log_url": LINK, "log_excerpt": EXCERPT,
        "status": {"type": "string", "enum": STATUS}, "misc": MISC}}

TEST = {
    "type": "object", "required": ["build_id", "id", "origin"], "additionalProperties": False,
    "properties": {
        "_timestamp": TIME, "build_id": ID, "id": ID,
        "origin": {"type": "string", "pattern": f"^{ORIGIN}$"},
        "environment": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "compatible": {"type": "array", "items": {
                    "type": "string", "pattern": r"^[^ \0]+(,[^ \0]+)*$"}},
                "comment": TEXT, "misc": MISC}},
        "path": {"type": "string", "pattern": TEST_PATH}, "comment": TEXT,
        "log_url": LINK, "log_excerpt": EXCERPT,
        "status": {"type": "string", "enum": STATUS},
        "number": {"type": "object", "required": ["value"], "additionalProperties": False,
                   "properties": {"value": {"type": "number"}, "unit": TEXT,
                                  "prefix": {"type": "string", "enum": ["metric", "binary"]}}},
        "start_time": TIME, "duration": {"type": "number"},
        "input_files": RESOURCES, "output_files": RESOURCES, "misc": MISC}}

ISSUE = {"type": "object", "required": ["id", "version", "origin"],
         "properties": {"id": ID, "version": {"type": "integer", "minimum": 0}}}
INCIDENT = {"type": "object", "required": ["id", "origin", "issue_id", "issue_version"],
            "properties": {"id": ID, "issue_id": ID}}

SCHEMA = {
    "type": "object", "required": ["version"], "additionalProperties": False,
    "properties": {
        "version": {"type": "object", "required": ["major"], "additionalProperties": False,
                    "properties": {"major": {"type": "integer", "const": 5},
                                   "minor": {"type": "integer", "minimum": 0, "maximum": 3}}},
        "checkouts": {"type": "array", "items": CHECKOUT},
        "builds": {"type": "array", "items": BUILD},
        "tests": {"type": "array", "items": TEST},
        "issues": {"type": "array", "items": ISSUE},
        "incidents": {"type": "array", "items": INCIDENT}}}

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def _check(value, rule, where, errors):
    if value is None:
        errors.append(f"{where}: is null (no property can be null)")
        return
    kind = rule.get("type")
    if kind and not TYPES[kind](value):
        errors.append(f"{where}: {value!r} is not of type {kind}")
        return
    if "const" in rule and value != rule["const"]:
        errors.append(f"{where}: {value!r} is not {rule['const']!r}")
    if "enum" in rule and value not in rule["enum"]:
        errors.append(f"{where}: {value!r} is not one of {rule['enum']}")
    if "minimum" in rule and value < rule["minimum"]:
        errors.append(f"{where}: {value!r} is below {rule['minimum']}")
    if "maximum" in rule and value > rule["maximum"]:
        errors.append(f"{where}: {value!r} is above {rule['maximum']}")
    if kind == "string":
        if "pattern" in rule and not re.search(rule["pattern"], value):
            errors.append(f"{where}: {value!r} does not match {rule['pattern']}")
        if "maxLength" in rule and len(value) > rule["maxLength"]:
            errors.append(f"{where}: longer than {rule['maxLength']} characters")
        fmt = rule.get("format")
        if fmt == "date-time" and not DATE_TIME.match(value):
            errors.append(f"{where}: {value!r} is not an RFC 3339 date-time")
        if fmt == "uri" and not URI.match(value):
            errors.append(f"{where}: {value!r} is not a URI")
        if fmt == "email" and "@" not in value:
            errors.append(f"{where}: {value!r} is not an e-mail address")
    if kind == "array":
        for i, item in enumerate(value):
            _check(item, rule.get("items", {}), f"{where}[{i}]", errors)
    if kind == "object":
        props = rule.get("properties", {})
        for key in rule.get("required", []):
            if key not in value:
                errors.append(f"{where}: lacks required '{key}'")
        for key, item in value.items():
            if key in props:
                _check(item, props[key], f"{where}.{key}", errors)
            elif rule.get("additionalProperties") is False:
                errors.append(f"{where}: unknown property '{key}'")
            elif item is None:
                errors.append(f"{where}.{key}: is null (no property can be null)")


def validate(data):
    """Errors against the v5.3 schema, then against the links between objects."""
    errors = []
    _check(data, SCHEMA, "$", errors)
    if errors:
        return errors
    for kind in ("checkouts", "builds", "tests"):
        ids = [o["id"] for o in data.get(kind, [])]
        for dup in sorted({i for i in ids if ids.count(i) > 1}):
            errors.append(f"$.{kind}: id '{dup}' is not unique")
    checkouts = {o["id"] for o in data.get("checkouts", [])}
    builds = {o["id"] for o in data.get("builds", [])}
    for i, b in enumerate(data.get("builds", [])):
        if b["checkout_id"] not in checkouts:
            errors.append(f"$.builds[{i}]: checkout_id '{b['checkout_id']}' names no checkout")
    for i, t in enumerate(data.get("tests", [])):
        if t["build_id"] not in builds:
            errors.append(f"$.tests[{i}]: build_id '{t['build_id']}' names no build")
    return errors
