"""Reading back the DDL text of a DataHub ``ddl.ddlMeta``: base64 of a Java-serialized object.

DataHub (DataWorks real-time sync) writes, next to a DDL record's ``ddl.text``, the parsed
statement as ``ddlMeta``: "the SQLStatement object FastSQL parses the DDL into, serialized to
binary and stored as base64" (seed 004). The real value in the seed is a
``com.alibaba.di.plugin.center.meta.DDLMeta`` whose field ``ddlText`` holds the statement text
and whose field ``statement`` holds the FastSQL syntax tree.

:func:`decode_ddl_meta` base64-decodes the value, checks the stream magic ``0xACED`` and
version ``5``, and walks the stream by the grammar of the Java Object Serialization Stream
Protocol (objects, class descriptors with their fields and superclasses, strings, long
strings, enums, arrays, classes, proxy class descriptors, null, back references, block data,
``writeObject`` annotations, resets) without knowing any of the classes. It keeps every string
value with the class and field that hold it, then picks the DDL text and describes it with
:func:`describe_ddl`. It never raises: a value that cannot be read gives a :class:`DdlMeta`
whose ``error`` is a short code (``empty``, ``invalid_base64``, ``not_java_serialization``,
``truncated_stream``, ``invalid_stream``, ``no_ddl_text``) and ``error_detail`` says more.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
from dataclasses import asdict, dataclass, field
from typing import Any

STREAM_MAGIC = 0xACED
STREAM_VERSION = 5
BASE_WIRE_HANDLE = 0x7E0000

TC_NULL = 0x70
TC_REFERENCE = 0x71
TC_CLASSDESC = 0x72
TC_OBJECT = 0x73
TC_STRING = 0x74
TC_ARRAY = 0x75
TC_CLASS = 0x76
TC_BLOCKDATA = 0x77
TC_ENDBLOCKDATA = 0x78
TC_RESET = 0x79
TC_BLOCKDATALONG = 0x7A
TC_EXCEPTION = 0x7B
TC_LONGSTRING = 0x7C
TC_PROXYCLASSDESC = 0x7D
TC_ENUM = 0x7E

SC_WRITE_METHOD = 0x01
SC_SERIALIZABLE = 0x02
SC_EXTERNALIZABLE = 0x04
SC_BLOCK_DATA = 0x08

# primitive field type code -> (struct format, size)
_PRIMITIVES = {
    "B": (">b", 1), "C": (">H", 2), "D": (">d", 8), "F": (">f", 4),
    "I": (">i", 4), "J": (">q", 8), "S": (">h", 2), "Z": (">?", 1),
}
_OBJECT_TYPES = ("L", "[")
MAX_DEPTH = 200  # objects nested deeper than this are taken as a damaged stream

# Field names that say "this string is the statement text", tried before stream order.
_DDL_FIELD_NAMES = ("ddltext", "ddl", "ddlsql", "sql", "sqltext", "text", "query")
_DDL_KEYWORDS = ("ALTER", "CREATE", "DROP", "RENAME", "TRUNCATE", "COMMENT")
_DDL_START = re.compile(r"\s*(?:/\*.*?\*/\s*)*(?:" + "|".join(_DDL_KEYWORDS) + r")\s+[\w`\"\[]",
                        re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class DdlMeta:
    """What a ddlMeta holds.

    ``text`` is the DDL statement read back; ``operation`` (upper case), ``table``,
    ``added_columns`` (``{"name", "type"}`` each, type as written or None), ``dropped_columns``
    and ``renamed_to`` describe it (see :func:`describe_ddl`). ``class_name`` is the class of
    the stream's first object; ``strings`` every string value as ``(class, field, value)``
    (field None for array elements and ``writeObject`` data). ``error`` is None or a short code,
    with ``error_detail`` saying what is wrong.
    """

    text: str | None = None
    operation: str | None = None
    table: str | None = None
    added_columns: tuple[dict, ...] = ()
    dropped_columns: tuple[str, ...] = ()
    renamed_to: str | None = None
    class_name: str | None = None
    strings: tuple[tuple[str | None, str | None, str], ...] = field(default=(), repr=False)
    error: str | None = None
    error_detail: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "added_columns": list(self.added_columns),
                "dropped_columns": list(self.dropped_columns), "strings": [list(s) for s in self.strings]}


def decode_ddl_meta(b64: Any) -> DdlMeta:
    """base64 ddlMeta -> :class:`DdlMeta`; never raises.

    The DDL text is chosen among the stream's string values that look like a DDL statement
    (they start, after any ``/* */`` comments, with ALTER, CREATE, DROP, RENAME, TRUNCATE or
    COMMENT followed by whitespace and a name): the value of a field named ``ddlText`` (or
    ``ddl``, ``ddlSql``, ``sql``, ``sqlText``, ``text``, ``query``; any case) if there is one,
    else the first such string in stream order. The real stream also holds names (``mysql``,
    ``holo``, ``text``, ``t_shiyu_nopk``) that are not statements.
    """
    try:
        return _decode(b64)
    except Exception as exc:  # noqa: BLE001 - the contract is: never raise
        return DdlMeta(error="invalid_stream", error_detail=f"{type(exc).__name__}: {exc}"[:500])


def _decode(b64: Any) -> DdlMeta:
    if b64 is None or (isinstance(b64, str) and not b64.strip()):
        return DdlMeta(error="empty", error_detail="the ddlMeta is null or empty")
    if not isinstance(b64, str):
        return DdlMeta(error="invalid_base64", error_detail=f"the ddlMeta is a {type(b64).__name__}, not text")
    try:
        data = base64.b64decode("".join(b64.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        return DdlMeta(error="invalid_base64", error_detail=f"the ddlMeta is not base64 ({exc})")
    if len(data) < 4 or struct.unpack(">HH", data[:4]) != (STREAM_MAGIC, STREAM_VERSION):
        return DdlMeta(error="not_java_serialization",
                       error_detail=f"the stream does not start with ACED0005 (starts {data[:4].hex().upper()})")
    reader = _Reader(data)
    try:
        reader.read_stream()
    except _Truncated as exc:
        return _described(reader, "truncated_stream", f"{exc} (stream of {len(data)} bytes)")
    except _Invalid as exc:
        return _described(reader, "invalid_stream", str(exc))
    return _described(reader, None, None)


def _described(reader: _Reader, error: str | None, detail: str | None) -> DdlMeta:
    """The result: the strings read so far, the DDL picked among them, and any error.

    A stream that breaks off keeps its error even when the DDL text was read before the break.
    """
    strings = tuple(reader.strings)
    text = pick_ddl_text(strings)
    if text is None and error is None:
        error, detail = "no_ddl_text", f"none of the {len(strings)} strings in the stream is a DDL statement"
    described = describe_ddl(text) if text is not None else {}
    return DdlMeta(text=text, class_name=reader.first_class, strings=strings, error=error,
                   error_detail=None if detail is None else detail[:500], **described)


DDL_SUMMARY_FIELDS = ("decoded_text", "decode_error", "matches_text", "operation", "table", "added_columns",
                      "dropped_columns", "renamed_to", "meta_class")


def ddl_summary(ddl_meta: Any, text: str | None) -> dict:
    """What a DDL record's ``ddl.ddlMeta`` (read back by decode_ddl_meta) and ``ddl.text`` say:
    the control record's content but its op and text. The SQL flattening of DataHub calls it through
    the Python function cdc_decode_ddl (python_udfs/registration.py), its Python parser directly."""
    meta = decode_ddl_meta(ddl_meta)
    decoded = meta.text
    # what the statement does: from the decoded text, else from ddl.text
    described = (describe_ddl(decoded) if decoded is not None else describe_ddl(text))
    return {
        "decoded_text": decoded,
        "decode_error": None if meta.error is None else f"{meta.error}: {meta.error_detail}",
        "matches_text": None if decoded is None or text is None else _normalised(decoded) == _normalised(text),
        "operation": described["operation"],
        "table": described["table"],
        "added_columns": list(described["added_columns"]),
        "dropped_columns": list(described["dropped_columns"]),
        "renamed_to": described["renamed_to"],
        "meta_class": meta.class_name,
    }


def _normalised(text: str) -> str:
    return " ".join(text.split())


def pick_ddl_text(strings: tuple[tuple[str | None, str | None, str], ...]) -> str | None:
    """The DDL statement among ``(class, field, value)`` strings (see :func:`decode_ddl_meta`)."""
    statements = [(owner, name, value) for owner, name, value in strings if _DDL_START.match(value)]
    for wanted in _DDL_FIELD_NAMES:
        for _owner, name, value in statements:
            if name is not None and name.lower() == wanted:
                return value
    return statements[0][2] if statements else None


# ---------------------------------------------------------------------------------------------
# The stream reader


class _Truncated(Exception):
    """The stream ends inside an item."""


class _Invalid(Exception):
    """The stream breaks the protocol's grammar."""


@dataclass
class _ClassDesc:
    name: str
    flags: int = 0
    fields: list[tuple[str, str, str | None]] = field(default_factory=list)  # (type code, name, class)
    superclass: _ClassDesc | None = None


@dataclass
class _Object:
    desc: _ClassDesc | None
    values: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Enum:
    class_name: str | None
    constant: str


_ANY = object()  # a handle slot that is reserved but not filled yet


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 4  # after magic and version
        self.handles: list[Any] = []
        self.strings: list[tuple[str | None, str | None, str]] = []
        self.first_class: str | None = None

    # -- bytes -------------------------------------------------------------------------------

    def take(self, size: int) -> bytes:
        if size < 0:
            raise _Invalid(f"negative length {size} at byte {self.pos}")
        if self.pos + size > len(self.data):
            raise _Truncated(f"needs {size} bytes at byte {self.pos}, {len(self.data) - self.pos} left")
        chunk = self.data[self.pos:self.pos + size]
        self.pos += size
        return chunk

    def unpack(self, fmt: str, size: int) -> Any:
        return struct.unpack(fmt, self.take(size))[0]

    def u1(self) -> int:
        return self.take(1)[0]

    def peek(self) -> int:
        if self.pos >= len(self.data):
            raise _Truncated(f"the stream ends at byte {self.pos} where an item should start")
        return self.data[self.pos]

    def utf(self, long: bool = False) -> str:
        length = self.unpack(">q", 8) if long else self.unpack(">H", 2)
        return decode_modified_utf8(self.take(length))

    # -- handles -----------------------------------------------------------------------------

    def new_handle(self, value: Any) -> int:
        self.handles.append(value)
        return len(self.handles) - 1

    def reference(self) -> Any:
        handle = self.unpack(">i", 4)
        index = handle - BASE_WIRE_HANDLE
        if not 0 <= index < len(self.handles):
            raise _Invalid(f"reference to unknown handle 0x{handle & 0xFFFFFFFF:08X} at byte {self.pos - 4}")
        value = self.handles[index]
        if value is _ANY:
            raise _Invalid(f"reference to handle 0x{handle:08X} before its object is complete")
        return value

    # -- grammar -----------------------------------------------------------------------------

    def read_stream(self) -> None:
        """stream: magic version contents"""
        while self.pos < len(self.data):
            self.content(None, None, 0)

    def content(self, owner: str | None, field_name: str | None, depth: int) -> Any:
        """content: object | blockdata; a string value is recorded with its owner and field."""
        if depth > MAX_DEPTH:
            raise _Invalid(f"objects nested more than {MAX_DEPTH} deep")
        tc = self.u1()
        if tc in (TC_STRING, TC_LONGSTRING):
            value = self.utf(long=tc == TC_LONGSTRING)
            self.new_handle(value)
            self.strings.append((owner, field_name, value))
            return value
        if tc == TC_REFERENCE:
            value = self.reference()
            if isinstance(value, str):
                self.strings.append((owner, field_name, value))
            return value
        if tc == TC_NULL:
            return None
        if tc == TC_OBJECT:
            return self.new_object(depth)
        if tc == TC_CLASSDESC:
            return self.new_class_desc(depth)
        if tc == TC_PROXYCLASSDESC:
            return self.new_proxy_class_desc(depth)
        if tc == TC_ARRAY:
            return self.new_array(depth)
        if tc == TC_CLASS:
            desc = self.class_desc(depth)
            self.new_handle(desc)
            return desc
        if tc == TC_ENUM:
            return self.new_enum(depth)
        if tc == TC_BLOCKDATA:
            return self.take(self.u1())
        if tc == TC_BLOCKDATALONG:
            return self.take(self.unpack(">i", 4))
        if tc == TC_RESET:
            self.handles.clear()
            return self.content(owner, field_name, depth)
        if tc == TC_EXCEPTION:
            raise _Invalid(f"the stream holds an exception (TC_EXCEPTION at byte {self.pos - 1})")
        if tc == TC_ENDBLOCKDATA:
            raise _Invalid(f"unexpected TC_ENDBLOCKDATA at byte {self.pos - 1}")
        raise _Invalid(f"unknown type code 0x{tc:02X} at byte {self.pos - 1}")

    def type_string(self, depth: int) -> str:
        """className1 of an object field: a string object (usually a back reference)."""
        tc = self.u1()
        if tc in (TC_STRING, TC_LONGSTRING):
            value = self.utf(long=tc == TC_LONGSTRING)
            self.new_handle(value)
            return value
        if tc == TC_REFERENCE:
            value = self.reference()
            if isinstance(value, str):
                return value
        raise _Invalid(f"a field type is not a string (type code 0x{tc:02X} at byte {self.pos - 1})")

    def class_desc(self, depth: int) -> _ClassDesc | None:
        """classDesc: newClassDesc | nullReference | (ClassDesc)prevObject"""
        tc = self.u1()
        if tc == TC_CLASSDESC:
            return self.new_class_desc(depth)
        if tc == TC_PROXYCLASSDESC:
            return self.new_proxy_class_desc(depth)
        if tc == TC_NULL:
            return None
        if tc == TC_REFERENCE:
            value = self.reference()
            if isinstance(value, _ClassDesc):
                return value
            raise _Invalid(f"a class descriptor reference points to a {type(value).__name__}")
        raise _Invalid(f"expected a class descriptor, found type code 0x{tc:02X} at byte {self.pos - 1}")

    def new_class_desc(self, depth: int) -> _ClassDesc:
        """TC_CLASSDESC className serialVersionUID newHandle classDescInfo"""
        desc = _ClassDesc(self.utf())
        self.take(8)  # serialVersionUID
        self.new_handle(desc)
        desc.flags = self.u1()
        for _ in range(self.unpack(">H", 2)):
            code = chr(self.u1())
            name = self.utf()
            if code in _OBJECT_TYPES:
                desc.fields.append((code, name, self.type_string(depth)))
            elif code in _PRIMITIVES:
                desc.fields.append((code, name, None))
            else:
                raise _Invalid(f"field {name!r} of {desc.name} has unknown type code {code!r}")
        self.annotation(desc.name, depth)
        desc.superclass = self.class_desc(depth + 1)
        return desc

    def new_proxy_class_desc(self, depth: int) -> _ClassDesc:
        """TC_PROXYCLASSDESC newHandle proxyClassDescInfo"""
        desc = _ClassDesc("<proxy>")
        self.new_handle(desc)
        interfaces = [self.utf() for _ in range(self.unpack(">i", 4))]
        desc.name = "<proxy " + ",".join(interfaces) + ">"
        desc.flags = SC_SERIALIZABLE
        self.annotation(desc.name, depth)
        desc.superclass = self.class_desc(depth + 1)
        return desc

    def annotation(self, owner: str | None, depth: int) -> list:
        """classAnnotation / objectAnnotation: contents up to TC_ENDBLOCKDATA."""
        items = []
        while self.peek() != TC_ENDBLOCKDATA:
            items.append(self.content(owner, None, depth + 1))
        self.pos += 1
        return items

    def new_object(self, depth: int) -> _Object:
        """TC_OBJECT classDesc newHandle classdata[]"""
        desc = self.class_desc(depth)
        if desc is None:
            raise _Invalid(f"an object without a class (byte {self.pos - 1})")
        obj = _Object(desc)
        self.new_handle(obj)
        if self.first_class is None:
            self.first_class = desc.name
        hierarchy = []
        current: _ClassDesc | None = desc
        while current is not None:
            if len(hierarchy) > MAX_DEPTH:
                raise _Invalid("a class hierarchy deeper than the nesting limit")
            hierarchy.append(current)
            current = current.superclass
        for level in reversed(hierarchy):  # superclass data first
            self.class_data(obj, level, depth)
        return obj

    def class_data(self, obj: _Object, desc: _ClassDesc, depth: int) -> None:
        if desc.flags & SC_SERIALIZABLE:
            for code, name, _type in desc.fields:
                if code in _PRIMITIVES:
                    fmt, size = _PRIMITIVES[code]
                    obj.values[name] = self.unpack(fmt, size)
                else:
                    obj.values[name] = self.content(desc.name, name, depth + 1)
            if desc.flags & SC_WRITE_METHOD:
                self.annotation(desc.name, depth)
        elif desc.flags & SC_EXTERNALIZABLE:
            if not desc.flags & SC_BLOCK_DATA:
                raise _Invalid(f"{desc.name} is externalizable in protocol version 1 (no block data)")
            self.annotation(desc.name, depth)

    def new_array(self, depth: int) -> list:
        """TC_ARRAY classDesc newHandle (int)<size> values[size]"""
        desc = self.class_desc(depth)
        if desc is None or not desc.name.startswith("[") or len(desc.name) < 2:
            raise _Invalid(f"an array whose class is not an array class (byte {self.pos})")
        values: list = []
        self.new_handle(values)
        size = self.unpack(">i", 4)
        if size < 0:
            raise _Invalid(f"an array of negative size {size}")
        code = desc.name[1]
        if code in _PRIMITIVES:
            fmt, width = _PRIMITIVES[code]
            if size * width > len(self.data) - self.pos:
                raise _Truncated(f"an array of {size} {code} values does not fit in the stream")
            values.extend(self.unpack(fmt, width) for _ in range(size))
        elif code in _OBJECT_TYPES:
            if size > len(self.data) - self.pos:
                raise _Truncated(f"an array of {size} objects does not fit in the stream")
            values.extend(self.content(desc.name, None, depth + 1) for _ in range(size))
        else:
            raise _Invalid(f"array class {desc.name!r} has an unknown element type")
        return values

    def new_enum(self, depth: int) -> _Enum:
        """TC_ENUM classDesc newHandle enumConstantName"""
        desc = self.class_desc(depth)
        slot = self.new_handle(_ANY)
        name = self.content(None if desc is None else desc.name, "<enum constant>", depth + 1)
        if not isinstance(name, str):
            raise _Invalid("an enum constant name is not a string")
        value = _Enum(None if desc is None else desc.name, name)
        self.handles[slot] = value
        return value


def decode_modified_utf8(data: bytes) -> str:
    """Java's modified UTF-8: NUL as C0 80, characters beyond U+FFFF as two 3-byte surrogates."""
    try:
        return data.decode("utf-8")  # what almost every string is; C0 80 and surrogates fail here
    except UnicodeDecodeError:
        pass
    units: list[int] = []
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            units.append(b)
            i += 1
        elif b & 0xE0 == 0xC0 and i + 1 < n and data[i + 1] & 0xC0 == 0x80:
            units.append(((b & 0x1F) << 6) | (data[i + 1] & 0x3F))
            i += 2
        elif b & 0xF0 == 0xE0 and i + 2 < n and data[i + 1] & 0xC0 == 0x80 and data[i + 2] & 0xC0 == 0x80:
            units.append(((b & 0x0F) << 12) | ((data[i + 1] & 0x3F) << 6) | (data[i + 2] & 0x3F))
            i += 3
        else:
            raise _Invalid(f"invalid modified UTF-8 byte 0x{b:02X} in a string")
    # UTF-16 decoding pairs the surrogates; a lone one becomes U+FFFD
    return b"".join(unit.to_bytes(2, "big") for unit in units).decode("utf-16-be", errors="replace")


# ---------------------------------------------------------------------------------------------
# What the DDL says


_TOKEN = re.compile(
    r"""(?P<space>\s+|--[^\n]*|/\*.*?\*/)
      |(?P<ident>`(?:[^`]|``)*`|"(?:[^"]|"")*"|\[[^\]]*\])
      |(?P<string>'(?:[^'\\]|\\.|'')*')
      |(?P<punct>[(),.;])
      |(?P<word>[^\s(),.;'"`\[]+)""",
    re.VERBOSE | re.DOTALL,
)
# Words that end a column's type in a column definition.
_COLUMN_ATTRIBUTES = frozenset({
    "NOT", "NULL", "DEFAULT", "COMMENT", "PRIMARY", "UNIQUE", "KEY", "AUTO_INCREMENT", "COLLATE",
    "CHARACTER", "CHARSET", "AFTER", "FIRST", "REFERENCES", "CHECK", "GENERATED", "AS", "ON",
    "CONSTRAINT", "INVISIBLE", "VISIBLE", "STORED", "VIRTUAL", "SRID", "COLUMN_FORMAT", "STORAGE",
    "IDENTITY", "ENCODE", "CASCADE", "RESTRICT",
})
# After ADD / DROP without COLUMN, these words mean the clause is not about a column.
_NOT_A_COLUMN = frozenset({
    "INDEX", "KEY", "PRIMARY", "UNIQUE", "CONSTRAINT", "FOREIGN", "FULLTEXT", "SPATIAL", "PARTITION",
    "CHECK", "PERIOD", "SYSTEM", "DEFAULT",
})
_TABLE_PREFIXES = {  # words that may stand between the operation and TABLE
    "ALTER": ("ONLINE", "OFFLINE", "IGNORE"),
    "CREATE": ("OR", "REPLACE", "TEMPORARY", "GLOBAL", "LOCAL", "EXTERNAL", "UNLOGGED"),
    "DROP": ("TEMPORARY",),
    "RENAME": (),
    "TRUNCATE": (),
}


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    start: int
    end: int

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""


def _tokens(text: str) -> list[_Token]:
    tokens = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind != "space":
            tokens.append(_Token(kind, match.group(), match.start(), match.end()))
    return tokens


def _unquote(token: _Token) -> str:
    text = token.text
    if token.kind == "ident":
        if text[0] == "[":
            return text[1:-1]
        return text[1:-1].replace(text[0] * 2, text[0])
    return text


def _name(tokens: list[_Token], at: int) -> tuple[str | None, int]:
    """A possibly qualified name starting at ``tokens[at]`` -> (name, index after it)."""
    parts: list[str] = []
    while at < len(tokens) and tokens[at].kind in ("ident", "word"):
        parts.append(_unquote(tokens[at]))
        at += 1
        if at < len(tokens) and tokens[at].text == "." and at + 1 < len(tokens):
            at += 1
        else:
            break
    return (".".join(parts) if parts else None), at


def _skip_words(tokens: list[_Token], at: int, *words: str) -> int:
    """Skip the words (in that order, each optional)."""
    for word in words:
        if at < len(tokens) and tokens[at].upper == word:
            at += 1
    return at


def _split_top_level(tokens: list[_Token]) -> list[list[_Token]]:
    parts: list[list[_Token]] = [[]]
    depth = 0
    for token in tokens:
        if token.text == "(":
            depth += 1
        elif token.text == ")":
            depth = max(0, depth - 1)
        if token.text == "," and depth == 0 and token.kind == "punct":
            parts.append([])
        elif not (token.text == ";" and depth == 0):
            parts[-1].append(token)
    return [part for part in parts if part]


def _column_definition(text: str, tokens: list[_Token]) -> dict | None:
    """``name type [attributes]`` -> {"name", "type"}; the type is the text up to the first
    column attribute, whitespace-normalised (``varchar(16)``, ``int unsigned``, ``double precision``)."""
    if not tokens or tokens[0].kind not in ("ident", "word"):
        return None
    name = _unquote(tokens[0])
    end = None
    depth = 0
    last = None
    for token in tokens[1:]:
        if token.text == "(":
            depth += 1
        elif token.text == ")":
            depth -= 1
        elif depth == 0 and token.upper in _COLUMN_ATTRIBUTES:
            break
        last = token
        end = token.end
    column_type = None
    if last is not None and end is not None:
        column_type = " ".join(text[tokens[1].start:end].split())
        column_type = re.sub(r"\s*\(\s*", "(", column_type)
        column_type = re.sub(r"\s*\)", ")", column_type)
        column_type = re.sub(r"\s*,\s*", ",", column_type)
    return {"name": name, "type": column_type}


def _alter_clauses(text: str, tokens: list[_Token]) -> tuple[list[dict], list[str]]:
    added: list[dict] = []
    dropped: list[str] = []
    for clause in _split_top_level(tokens):
        head = clause[0].upper
        if head == "ADD":
            at = 1
            said_column = at < len(clause) and clause[at].upper == "COLUMN"
            at = _skip_words(clause, at, "COLUMN")
            at = _skip_words(clause, at, "IF", "NOT", "EXISTS")
            if at >= len(clause) or (not said_column and clause[at].upper in _NOT_A_COLUMN):
                continue
            if clause[at].text == "(":
                inner = clause[at + 1:-1] if clause[-1].text == ")" else clause[at + 1:]
                for part in _split_top_level(inner):
                    column = _column_definition(text, part)
                    if column and part[0].upper not in _NOT_A_COLUMN:
                        added.append(column)
            else:
                column = _column_definition(text, clause[at:])
                if column:
                    added.append(column)
        elif head == "DROP":
            at = 1
            said_column = at < len(clause) and clause[at].upper == "COLUMN"
            at = _skip_words(clause, at, "COLUMN")
            at = _skip_words(clause, at, "IF", "EXISTS")
            if at >= len(clause) or (not said_column and clause[at].upper in _NOT_A_COLUMN):
                continue
            name, _next = _name(clause, at)
            if name:
                dropped.append(name)
    return added, dropped


def describe_ddl(text: str | None) -> dict[str, Any]:
    """operation, table, added_columns, dropped_columns and renamed_to of a DDL statement.

    ``operation`` is the statement's first word in upper case (ALTER, CREATE, DROP, RENAME,
    TRUNCATE, ...). ``table`` is the (unquoted, possibly qualified) table it names for
    ``ALTER TABLE``, ``CREATE TABLE``, ``DROP TABLE``, ``RENAME TABLE``, ``TRUNCATE [TABLE]``
    and ``CREATE/DROP INDEX … ON``. Columns are read for ``ALTER TABLE … ADD [COLUMN]`` (also
    the parenthesised list form) and ``DROP [COLUMN]``; ``ADD INDEX``, ``DROP PRIMARY KEY``
    and the like are not columns. Anything unrecognised leaves the field empty.
    """
    empty: dict[str, Any] = {"operation": None, "table": None, "added_columns": (), "dropped_columns": (),
                             "renamed_to": None}
    if not text:
        return empty
    tokens = _tokens(text)
    if not tokens or tokens[0].kind != "word":
        return empty
    operation = tokens[0].upper
    result = {**empty, "operation": operation}
    at = _skip_words(tokens, 1, *_TABLE_PREFIXES.get(operation, ()))
    if (at < len(tokens) and tokens[at].upper == "TABLE") or operation == "TRUNCATE":
        at = _skip_words(tokens, at, "TABLE")
        at = _skip_words(tokens, at, "IF", "NOT", "EXISTS") if operation == "CREATE" else _skip_words(
            tokens, at, "IF", "EXISTS")
        table, at = _name(tokens, at)
        result["table"] = table
        if operation == "ALTER":
            added, dropped = _alter_clauses(text, tokens[at:])
            result["added_columns"], result["dropped_columns"] = tuple(added), tuple(dropped)
        elif operation == "RENAME" and at < len(tokens) and tokens[at].upper == "TO":
            result["renamed_to"] = _name(tokens, at + 1)[0]
        return result
    # CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX name ON table / DROP INDEX name ON table
    for index in range(1, min(len(tokens), 6)):
        if tokens[index].upper == "INDEX":
            for on in range(index + 1, len(tokens)):
                if tokens[on].upper == "ON":
                    result["table"] = _name(tokens, on + 1)[0]
                    break
            break
    return result
