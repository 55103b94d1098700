"""An Arrow schema serialized as pyarrow stores it in a Parquet file's ``ARROW:schema`` metadata,
without pyarrow: a sweep's results table (:mod:`aqmlab.sweeptable`) is written by the native
module, and this tells pyarrow that its text columns are ``large_string`` (as pandas' string
columns become) where Parquet alone says only UTF-8.

The bytes are an encapsulated IPC message (Arrow's columnar format, "Encapsulated message
format": the continuation marker ``0xFFFFFFFF``, the flatbuffer's length, the flatbuffer padded
to 8 bytes) holding a ``Message`` whose header is a ``Schema`` (``format/Message.fbs``,
``format/Schema.fbs``), base64-encoded. The flatbuffer is laid out front to back here: each
table's vtable just before it, each table's children (strings, vectors, tables) after it, every
offset pointing forward as flatbuffers requires.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from typing import Any

#: ``Type`` union members (Schema.fbs) of the kinds a table holds; an empty tuple is a table
#: without fields, otherwise the fields ``(format, value)`` in order.
_TYPES: dict[str, tuple[int, list[tuple[str, Any]]]] = {
    "null": (1, []),
    "int64": (2, [("i", 64), ("?", True)]),  # Int { bitWidth, is_signed }
    "float64": (3, [("h", 2)]),  # FloatingPoint { precision: DOUBLE }
    "bool": (6, []),
    "large_string": (20, []),  # LargeUtf8
}
_V5 = 4  # MetadataVersion.V5
_SCHEMA_HEADER = 1  # MessageHeader.Schema


class _Table:
    """A flatbuffer table: its fields by slot, each ``(format, value)`` for a scalar or
    ``("offset", child)`` for a string (``str``), a vector of tables (``list``) or a table.
    A ``shared`` table (a type, which many fields name) is written once, after everything
    else, so that every offset to it points forward."""

    def __init__(self, fields: list[tuple[str, Any] | None], shared: bool = False) -> None:
        self.fields = fields
        self.shared = shared


_STRUCTS: dict[str, struct.Struct] = {}


def _struct(fmt: str) -> struct.Struct:
    s = _STRUCTS.get(fmt)
    if s is None:
        s = _STRUCTS[fmt] = struct.Struct("<" + fmt)
    return s


class _Builder:
    def __init__(self) -> None:
        self.buf = bytearray(4)  # the root offset, patched at the end
        #: Where each shared table is named from, by table.
        self.shared: dict[int, tuple[_Table, list[int]]] = {}

    def finish(self) -> None:
        """Writes the shared tables and points their referrers at them."""
        for t, refs in self.shared.values():
            t.shared = False
            pos = self.table(t)
            for at in refs:
                self.patch(at, pos)

    def align(self, n: int) -> None:
        self.buf += bytes(-len(self.buf) % n)

    def patch(self, at: int, target: int) -> None:
        _struct("I").pack_into(self.buf, at, target - at)

    def child(self, value: Any) -> int:
        """Writes a string, a vector of tables or a table; returns where its offsets point."""
        if isinstance(value, str):
            data = value.encode()
            self.align(4)
            pos = len(self.buf)
            self.buf += _struct("I").pack(len(data)) + data + b"\0"
            return pos
        if isinstance(value, _Fields):
            return self.fields(value)
        if isinstance(value, list):
            self.align(4)
            pos = len(self.buf)
            self.buf += _struct("I").pack(len(value)) + bytes(4 * len(value))
            for i, t in enumerate(value):
                at = pos + 4 + 4 * i
                self.patch(at, self.table(t))
            return pos
        return self.table(value)

    def fields(self, fields: _Fields) -> int:
        """The schema's vector of fields, each laid out at once (a table of thousands of
        columns would otherwise take tens of milliseconds): one vtable for all, then each
        field's table followed by its name and its empty vector of children."""
        self.align(4)
        pos = len(self.buf)
        self.buf += _struct("I").pack(len(fields.items)) + bytes(4 * len(fields.items))
        self.align(2)
        vt = len(self.buf)
        # Field { name @4, nullable @8, type_type @9, type @12, dictionary, children @16 }: 20 B.
        self.buf += _struct("8H").pack(16, 20, 4, 8, 9, 12, 0, 16)
        head, slot = _struct("iIBBxxII"), _struct("I")
        for i, (name, kind) in enumerate(fields.items):
            self.align(4)
            start = len(self.buf)
            data = name.encode()
            name_at = start + 20
            pad = -(4 + len(data) + 1) % 4
            children_at = name_at + 4 + len(data) + 1 + pad
            type_id = _TYPES[kind][0]
            self.buf += head.pack(start - vt, 16, 1, type_id, 0, children_at - (start + 16))
            self.buf += slot.pack(len(data)) + data + bytes(1 + pad) + slot.pack(0)
            self.patch(pos + 4 + 4 * i, start)
            typ = fields.types[kind]
            self.shared.setdefault(id(typ), (typ, []))[1].append(start + 12)
        return pos

    def table(self, t: _Table) -> int:
        # The inline part: the vtable's offset, then each field aligned to its size.
        size = 4
        vtable = [0] * len(t.fields)
        scalars, children = [], []
        for i, f in enumerate(t.fields):
            if f is None:
                continue
            fmt, value = f
            n = 4 if fmt == "offset" else _struct(fmt).size
            size += -size % n
            vtable[i] = size
            (children if fmt == "offset" else scalars).append((size, fmt, value))
            size += n
        self.align(2)
        vt = len(self.buf)
        self.buf += _struct(f"HH{len(vtable)}H").pack(4 + 2 * len(vtable), size, *vtable)
        self.align(8)
        start = len(self.buf)
        self.buf += bytes(size)
        _struct("i").pack_into(self.buf, start, start - vt)
        for at, fmt, value in scalars:
            _struct(fmt).pack_into(self.buf, start + at, value)
        for at, _, value in children:
            if isinstance(value, _Table) and value.shared:
                self.shared.setdefault(id(value), (value, []))[1].append(start + at)
            else:
                self.patch(start + at, self.child(value))
        return start


class _Fields:
    """A schema's fields: name and kind of each, and the type tables they share."""

    def __init__(self, columns: Sequence[tuple[str, str]]) -> None:
        self.items = list(columns)
        self.types = {
            kind: _Table(list(_TYPES[kind][1]), shared=True) for kind in {k for _, k in columns}
        }


def schema_message(columns: Sequence[tuple[str, str]], metadata: dict[str, str]) -> str:
    """``ARROW:schema`` for ``columns`` (name and kind: ``int64``, ``float64``, ``bool``,
    ``large_string``, ``null``), every field nullable, with the schema's ``metadata``."""
    kv = [_Table([("offset", k), ("offset", v)]) for k, v in metadata.items()]
    # Schema { endianness: Little, fields, custom_metadata, features }
    schema = _Table([None, ("offset", _Fields(columns)), ("offset", kv)])
    # Message { version, header_type, header, bodyLength, custom_metadata }
    message = _Table([("h", _V5), ("B", _SCHEMA_HEADER), ("offset", schema), ("q", 0)])
    b = _Builder()
    root = b.table(message)
    b.finish()
    struct.pack_into("<I", b.buf, 0, root)
    b.align(8)
    flat = bytes(b.buf)
    return base64.b64encode(struct.pack("<Ii", 0xFFFFFFFF, len(flat)) + flat).decode()
