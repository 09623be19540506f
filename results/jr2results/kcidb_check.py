# SPDX-License-Identifier: GPL-2.0-only
"""Checks a KCIDB v5.3 document the way KCIDB checks it, then more strictly.

Layer 1, the schema: kcidb-io's own JSON schema (draft 7), validated by
Debian's python3-jsonschema with a format checker, as kcidb-io does.  Debian
12's jsonschema (4.10) has no RFC 3339 checker and would let any `date-time`
pass: a strict one is registered here.  The schema is test data, not part
of this tree: it is found through $JR2_KCIDB_SCHEMA, else beside the
checkout at ../shared/kcidb/ (see find_schema()).

Layer 2, the links (this project's own, stricter than KCIDB, which accepts
links to objects sent in other submissions): every refusal is named.
  duplicate-id       an id twice among the checkouts, the builds, ... of the file
  dangling-checkout  a build's checkout_id names no checkout of the file
  dangling-build     a test's (or incident's) build_id names no build of the file
  dangling-test      an incident's test_id names no test of the file
  dangling-issue     an incident's issue_id names no issue of the file
  missing-parent     a test's path has a parent ("a.b" of "a.b.c") that no test
                     of the same build and environment is: KernelCI's tree views
                     show no node for it
"""
import datetime
import json
import os
import pathlib
import re
from typing import Any

SCHEMA_NAME = "kcidb-v5.3.schema.json"
SCHEMA_ENV = "JR2_KCIDB_SCHEMA"
REPO = pathlib.Path(__file__).resolve().parents[2]
LINK_RULES = ("duplicate-id", "dangling-checkout", "dangling-build", "dangling-test",
              "dangling-issue", "missing-parent")
# RFC 3339, section 5.6: date-time = full-date "T" full-time; the offset is
# mandatory; "T" and "Z" may be lower case; a leap second is :60.
DATE_TIME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?"
                       r"([Zz]|[+-](\d{2}):(\d{2}))$")


class SchemaMissing(Exception):
    """The schema file or python3-jsonschema is not there: the message says
    what to install or name."""


def is_date_time(text: object) -> bool:
    """A strict RFC 3339 date-time: a real calendar date, hours < 24,
    minutes < 60, seconds <= 60, an offset of at most 23:59."""
    if not isinstance(text, str):
        return True  # the schema's "type" speaks to that
    m = DATE_TIME.match(text)
    if not m:
        return False
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    try:
        datetime.date(year, month, day)
    except ValueError:
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    if m.group(9) is not None and (int(m.group(9)) > 23 or int(m.group(10)) > 59):
        return False
    return True


def find_schema() -> pathlib.Path | None:
    """The schema's path: $JR2_KCIDB_SCHEMA, else ../shared/kcidb/ beside the
    checkout; None where neither is."""
    named = os.environ.get(SCHEMA_ENV)
    if named:
        return pathlib.Path(named)
    path = REPO.parent / "shared" / "kcidb" / SCHEMA_NAME
    return path if path.is_file() else None


def load_schema(named: str | pathlib.Path | None = None) -> dict[str, Any]:
    """The schema as a dict; SchemaMissing names what is missing."""
    path = named or find_schema()
    if path is None:
        raise SchemaMissing(
            f"no KCIDB v5.3 schema: name kcidb-io's {SCHEMA_NAME} with {SCHEMA_ENV}=FILE "
            "(or --kcidb-schema FILE), or put it at ../shared/kcidb/ beside the checkout")
    try:
        schema: dict[str, Any] = json.loads(pathlib.Path(path).read_text())
        return schema
    except (OSError, ValueError) as e:
        raise SchemaMissing(f"cannot read the KCIDB schema '{path}': {e}: name kcidb-io's "
                            f"{SCHEMA_NAME} with {SCHEMA_ENV}=FILE")


def need_jsonschema() -> Any:
    """Debian's python3-jsonschema, or SchemaMissing saying how to get it."""
    try:
        import jsonschema  # type: ignore[import]  # Debian 12 ships no type hints for it
    except ImportError:
        raise SchemaMissing("python3-jsonschema is not installed: apt-get install "
                            "python3-jsonschema (`make test-results` installs it)")
    return jsonschema


def _validator(schema: dict[str, Any]) -> Any:
    jsonschema = need_jsonschema()
    checker = jsonschema.FormatChecker()  # this instance's own table of checks
    checker.checks("date-time")(is_date_time)
    return jsonschema.Draft7Validator(schema, format_checker=checker)


def _where(error: Any) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}"
                         for p in error.absolute_path)


def schema_errors(data: Any, schema: dict[str, Any]) -> list[str]:
    """The schema's refusals, one line each ("$.tests[3].status: ...")."""
    validator = _validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{_where(e)}: {e.message}"[:500] for e in errors]


def _objects(data: Any, kind: str) -> list[dict[str, Any]]:
    items = data.get(kind) if isinstance(data, dict) else None
    return [o for o in items if isinstance(o, dict)] if isinstance(items, list) else []


def link_errors(data: Any) -> list[tuple[str, str]]:
    """(rule, line) for each refusal of the stricter layer (LINK_RULES)."""
    errors: list[tuple[str, str]] = []
    ids: dict[str, set[Any]] = {}
    for kind in ("checkouts", "builds", "tests", "issues", "incidents"):
        seen: dict[Any, int] = {}
        for i, o in enumerate(_objects(data, kind)):
            key = (o.get("id"), o.get("version")) if kind == "issues" else o.get("id")
            if key in seen:
                errors.append(("duplicate-id", f"$.{kind}[{i}]: id {o.get('id')!r} is also "
                                               f"$.{kind}[{seen[key]}]'s"))
            seen.setdefault(key, i)
        ids[kind] = {o.get("id") for o in _objects(data, kind)}

    def link(kind: str, i: int, o: dict[str, Any], field: str, target: str, rule: str) -> None:
        if field in o and o[field] not in ids[target]:
            errors.append((rule, f"$.{kind}[{i}]: {field} {o[field]!r} names no "
                                 f"{target[:-1]} of this file"))

    for i, o in enumerate(_objects(data, "builds")):
        link("builds", i, o, "checkout_id", "checkouts", "dangling-checkout")
    for i, o in enumerate(_objects(data, "tests")):
        link("tests", i, o, "build_id", "builds", "dangling-build")
    for i, o in enumerate(_objects(data, "incidents")):
        link("incidents", i, o, "build_id", "builds", "dangling-build")
        link("incidents", i, o, "test_id", "tests", "dangling-test")
        link("incidents", i, o, "issue_id", "issues", "dangling-issue")
    return errors + parent_errors(data)


def parent_errors(data: Any) -> list[tuple[str, str]]:
    """(missing-parent, line) for each path whose parent is no test of the
    same build and environment, once per parent."""
    tests = [t for t in _objects(data, "tests") if isinstance(t.get("path"), str)]

    def where(t: dict[str, Any]) -> tuple[Any, str]:
        return t.get("build_id"), json.dumps(t.get("environment"), sort_keys=True)

    have = {(where(t), t["path"]) for t in tests}
    errors: list[tuple[str, str]] = []
    told: set[tuple[tuple[Any, str], str]] = set()
    for i, t in enumerate(tests):
        if "." not in t["path"]:
            continue
        parent = t["path"].rsplit(".", 1)[0]
        key = (where(t), parent)
        if key not in have and key not in told:
            told.add(key)
            errors.append(("missing-parent", f"$.tests[{i}]: path {t['path']!r} has no "
                                             f"parent test {parent!r} in its build and "
                                             "environment"))
    return errors


def check(data: Any, schema: dict[str, Any] | None) -> list[str]:
    """Every refusal, the schema's first: [] when the document is good.
    schema None: the links only (the caller says that the schema was absent)."""
    errors = schema_errors(data, schema) if schema is not None else []
    return errors + [f"{line} ({rule})" for rule, line in link_errors(data)]
