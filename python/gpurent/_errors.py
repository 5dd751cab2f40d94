# SPDX-License-Identifier: MIT
"""gpurent.Error: a library error (bad input), with where it was found."""
from __future__ import annotations

from typing import Optional


def _split_where(where: str) -> "tuple[Optional[str], Optional[int]]":
    """'file:line' as (file, line); a where without a line number as (where, None)."""
    if not where:
        return None, None
    head, sep, tail = where.rpartition(":")
    if sep and tail.isdigit():
        return head, int(tail)
    return where, None


class Error(ValueError):
    """Invalid input, as the library reports it (the tool's exit status 2 or 3).

    ``str(e)`` is the tool's message ("usage.csv:3: field 'quantity': ...");
    ``file`` and ``line`` say where (a usage file's line; for records given in memory, the
    source named "<records>" and the record's position counted from 1), ``field`` the
    field, ``code`` the library's error code ("parse_error", "not_found", ...) and
    ``message`` the text without its place.
    """

    def __init__(self, text: str, *, where: str = "", field: str = "", message: str = "", code: str = "invalid_argument") -> None:
        super().__init__(text)
        self.file, self.line = _split_where(where)
        self.field: Optional[str] = field or None
        self.message: str = message or text
        self.code: str = code


class ArgumentTypeError(Error, TypeError):
    """An argument of the wrong type: a gpurent.Error (naming the argument in ``field``) that
    is also a TypeError."""
