# SPDX-License-Identifier: MIT
"""Checks of the package's own arguments (paths, text, thread counts) before they reach the
library: an error names the argument as its field, as the tool's errors name an option."""
from __future__ import annotations

import operator
import os
from typing import Any

from ._errors import ArgumentTypeError, Error

# The threads of gpurent.meter, as `gpurent meter --jobs` allows them.
MAX_JOBS = 4096


def fail(field: str, message: str, kind: type = Error) -> Exception:
    """The error "field 'FIELD': MESSAGE", the argument named as its field."""
    return kind(f"field '{field}': {message}", field=field, message=message)


def text(value: Any, field: str) -> str:
    """`value`, a str that UTF-8 can write (a lone surrogate cannot be)."""
    if not isinstance(value, str):
        raise fail(field, f"expected text, got {type(value).__name__}", ArgumentTypeError)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise fail(field, f"not UTF-8 text: a lone surrogate at character {e.start + 1}") from None
    return value


def path(value: Any, field: str) -> str:
    """A path (str or os.PathLike) as text; one with a NUL is refused, as open() refuses it
    (the library would open the file named by the part before the NUL)."""
    p = os.fspath(value)
    if isinstance(p, bytes):
        raise fail(field, "expected a str path, got bytes", ArgumentTypeError)
    if "\x00" in p:
        raise fail(field, "embedded null byte")
    return text(p, field)


def jobs(value: Any) -> int:
    """A thread count: a whole number from 1 to MAX_JOBS (a bool is none)."""
    try:
        n = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        n = None
    if n is None:
        raise fail("jobs", f"expected a whole number of threads from 1 to {MAX_JOBS}, got {type(value).__name__}", ArgumentTypeError)
    if not 1 <= n <= MAX_JOBS:
        raise fail("jobs", f"expected a whole number of threads from 1 to {MAX_JOBS}, got {n}")
    return n
