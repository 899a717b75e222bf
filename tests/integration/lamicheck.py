"""A validator of LAMI 1.0 output, written from the protocol (lttng/lami-spec
lami.adoc 1.0.1) and from what Trace Compass's LAMI reader demands of it
(analysis.lami.core: LamiAnalysis, LamiData): required keys, the type of
every property, the data object of each class, and table class references.

Each check_* function raises LamiInvalid with a path to the bad value.
"""

import numbers
import re


class LamiInvalid(Exception):
    pass


# Data object classes of LAMI 1.0 (the `class` of a column may also be
# `mixed`, any object).
DATA_CLASSES = {"unknown", "bool", "number", "string", "ratio", "timestamp",
                "duration", "size", "bitrate", "time-range", "syscall", "process",
                "path", "fd", "irq", "cpu", "disk", "part", "netif"}
# Number objects; Trace Compass reads these three as 64-bit integers.
NUMBER_CLASSES = {"number", "ratio", "timestamp", "duration", "size", "bitrate"}
INTEGER_CLASSES = {"timestamp", "duration", "size"}
INT64 = (-(1 << 63), (1 << 63) - 1)


def _fail(path, message):
    raise LamiInvalid("%s: %s" % (path, message))


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _require(obj, key, kind, path):
    if not isinstance(obj, dict) or key not in obj:
        _fail(path, "missing required property `%s`" % key)
    value = obj[key]
    checks = {"string": lambda v: isinstance(v, str), "int": _is_int,
              "object": lambda v: isinstance(v, dict),
              "array": lambda v: isinstance(v, list)}
    if not checks[kind](value):
        _fail("%s.%s" % (path, key), "expected %s, got %r" % (kind, value))
    return value


def _optional(obj, key, kind, path):
    if key in obj:
        return _require(obj, key, kind, path)
    return None


def check_mi_version_output(text):
    """--mi-version: one line MAJOR.MINOR (Trace Compass: \\d{1,3}\\.\\d{1,3})."""
    if not re.fullmatch(r"\d{1,3}\.\d{1,3}\n?", text):
        _fail("--mi-version", "not one MAJOR.MINOR line: %r" % text)
    return tuple(int(p) for p in text.strip().split("."))


def check_version_object(obj, path):
    if not isinstance(obj, dict):
        _fail(path, "a version object must be an object")
    for key in ("major", "minor", "patch"):
        _optional(obj, key, "int", path)
    _optional(obj, "extra", "string", path)
    if "minor" in obj and "major" not in obj:
        _fail(path, "`minor` without `major`")
    if "patch" in obj and "minor" not in obj:
        _fail(path, "`patch` without `minor`")


def check_column(column, path):
    if not isinstance(column, dict):
        _fail(path, "a column description must be an object")
    _optional(column, "title", "string", path)
    cls = _optional(column, "class", "string", path)
    if cls is not None and cls not in DATA_CLASSES | {"mixed"}:
        _fail(path + ".class", "unknown data object class %r" % cls)
    if "unit" in column:
        _require(column, "unit", "string", path)
        if cls not in NUMBER_CLASSES:
            _fail(path + ".unit", "a unit on a column of class %r" % cls)
    return cls or "mixed"


def check_table_class(obj, path, known=None):
    """A table class object; returns its column classes (None: inherited)."""
    if not isinstance(obj, dict):
        _fail(path, "a table class must be an object")
    # Trace Compass needs a title (getString) and, without `inherit`, the
    # column descriptions (getJSONArray).
    _require(obj, "title", "string", path)
    if "inherit" in obj:
        parent = _require(obj, "inherit", "string", path)
        if known is None or parent not in known:
            _fail(path + ".inherit", "inherits %r, not a table class of the "
                  "metadata" % parent)
        if "column-descriptions" not in obj:
            return known[parent]
    columns = _require(obj, "column-descriptions", "array", path)
    return [check_column(c, "%s.column-descriptions[%d]" % (path, i))
            for i, c in enumerate(columns)]


def check_metadata(obj):
    """The metadata object; returns {table class name: [column classes]}."""
    path = "metadata"
    if not isinstance(obj, dict):
        _fail(path, "not an object")
    version = _require(obj, "mi-version", "object", path)
    check_version_object(version, path + ".mi-version")
    if (version.get("major"), version.get("minor")) != (1, 0):
        _fail(path + ".mi-version", "not LAMI 1.0: %r" % version)
    if "version" in obj:
        check_version_object(obj["version"], path + ".version")
    for key in ("title", "description", "url"):
        _optional(obj, key, "string", path)
    for key in ("authors", "tags"):
        values = _optional(obj, key, "array", path)
        for i, value in enumerate(values or []):
            if not isinstance(value, str):
                _fail("%s.%s[%d]" % (path, key, i), "not a string: %r" % value)
    classes = _require(obj, "table-classes", "object", path)
    if not classes:
        _fail(path + ".table-classes", "at least one table class is required")
    return {name: check_table_class(cls, "%s.table-classes.%s" % (path, name))
            for name, cls in classes.items()}


def _check_number_object(obj, cls, path):
    bounds = {}
    for key in ("value", "low", "high"):
        if key not in obj:
            continue
        value = obj[key]
        if key != "value" and value in ("-inf", "+inf"):
            continue
        if not _is_number(value):
            _fail("%s.%s" % (path, key), "not a number: %r" % value)
        if cls in INTEGER_CLASSES:
            if not _is_int(value) or not INT64[0] <= value <= INT64[1]:
                _fail("%s.%s" % (path, key), "a %s must be a 64-bit integer: %r"
                      % (cls, value))
        bounds[key] = value
    if "value" not in obj and ("low" not in obj or "high" not in obj):
        _fail(path, "a number object needs `value`, or `low` and `high`")
    if ("low" in obj) != ("high" in obj):
        _fail(path, "`low` and `high` go together")
    if "low" in bounds and "value" in bounds and bounds["value"] < bounds["low"]:
        _fail(path, "value below low")
    if "high" in bounds and "value" in bounds and bounds["value"] > bounds["high"]:
        _fail(path, "value above high")


def check_data_object(obj, path):
    """One data object; returns its class."""
    cls = _require(obj, "class", "string", path)
    if cls not in DATA_CLASSES:
        _fail(path + ".class", "unknown data object class %r" % cls)
    if cls in NUMBER_CLASSES:
        _check_number_object(obj, cls, path)
    elif cls == "bool":
        if not isinstance(obj.get("value"), bool):
            _fail(path, "a bool object needs a boolean `value`")
    elif cls == "string":
        _require(obj, "value", "string", path)
    elif cls == "time-range":
        begin = _require(obj, "begin", "object", path)
        end = _require(obj, "end", "object", path)
        for key, ts in (("begin", begin), ("end", end)):
            if check_data_object(ts, "%s.%s" % (path, key)) != "timestamp":
                _fail("%s.%s" % (path, key), "not a timestamp object")
        if "value" in begin and "value" in end and end["value"] < begin["value"]:
            _fail(path, "ends before it begins")
    elif cls == "process":
        _optional(obj, "name", "string", path)
        _optional(obj, "pid", "int", path)
        _optional(obj, "tid", "int", path)
    elif cls in ("syscall", "disk", "part", "netif"):
        _require(obj, "name", "string", path)
    elif cls == "path":
        _require(obj, "path", "string", path)
    elif cls == "fd":
        _require(obj, "fd", "int", path)
    elif cls == "cpu":
        _require(obj, "id", "int", path)
    elif cls == "irq":
        _require(obj, "nr", "int", path)
        _optional(obj, "name", "string", path)
        if "hard" in obj and not isinstance(obj["hard"], bool):
            _fail(path + ".hard", "not a boolean")
    return cls


def check_cell(cell, column_class, path):
    if cell is None:
        return  # an empty cell
    if not isinstance(cell, dict):
        # Plain JSON values: LAMI allows them, but only as pre-1.0 leftovers.
        _fail(path, "a plain JSON value %r where a data object is expected" % (cell,))
    cls = check_data_object(cell, path)
    if cls != "unknown" and column_class != "mixed" and cls != column_class:
        _fail(path, "a %s object in a column of class %s" % (cls, column_class))


def check_results(obj, table_classes):
    """The analysis results object, against the metadata's table classes;
    returns [(class name, time range, rows)]."""
    path = "results"
    if not isinstance(obj, dict):
        _fail(path, "not an object")
    results = _require(obj, "results", "array", path)
    tables = []
    for i, table in enumerate(results):
        where = "results[%d]" % i
        time_range = _require(table, "time-range", "object", where)
        if check_data_object(time_range, where + ".time-range") != "time-range":
            _fail(where + ".time-range", "not a time-range object")
        cls = table.get("class")
        if isinstance(cls, str):
            if cls not in table_classes:
                _fail(where + ".class", "table class %r is not in the metadata" % cls)
            name, columns = cls, table_classes[cls]
        elif isinstance(cls, dict):
            name = cls.get("inherit")
            columns = check_table_class(cls, where + ".class", table_classes)
        else:
            _fail(where, "missing `class` (a name or a table class object)")
        rows = _require(table, "data", "array", where)
        for j, row in enumerate(rows):
            if not isinstance(row, list):
                _fail("%s.data[%d]" % (where, j), "a row must be an array")
            if len(row) != len(columns):
                _fail("%s.data[%d]" % (where, j), "%d cells for %d columns" % (
                    len(row), len(columns)))
            for k, cell in enumerate(row):
                check_cell(cell, columns[k], "%s.data[%d][%d]" % (where, j, k))
        tables.append((name, (time_range["begin"].get("value"),
                              time_range["end"].get("value")), rows))
    return tables


def check_error(obj):
    """An error object: `error-message` (string), optional `error-code`."""
    if not isinstance(obj, dict):
        _fail("error", "not an object")
    message = _require(obj, "error-message", "string", "error")
    if "error-code" in obj and not (_is_int(obj["error-code"]) or
                                    isinstance(obj["error-code"], str)):
        _fail("error.error-code", "not a string or a number")
    return message


PROGRESS = re.compile(r"(?P<value>\*|\d+(?:\.\d+)?)(?: (?P<message>.*))?")


def split_progress(text):
    """(progress values, JSON text): progress lines come before the object."""
    lines = text.split("\n")
    values = []
    while lines and not lines[0].lstrip().startswith("{"):
        line = lines.pop(0)
        match = PROGRESS.fullmatch(line)
        if not match:
            _fail("progress", "not a progress line: %r" % line)
        value = match.group("value")
        if value != "*":
            if not 0 <= float(value) <= 1:
                _fail("progress", "value out of [0, 1]: %r" % line)
        values.append(value)
    return values, "\n".join(lines)
