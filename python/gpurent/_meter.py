# SPDX-License-Identifier: MIT
"""gpurent.meter and the Invoice it returns (docs/python.md)."""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import _args, _core

PathLike = Union[str, "os.PathLike[str]"]
TariffLike = Union[PathLike, Mapping[str, Any], _core.Tariff]

# The keys of the invoice JSON whose values are amounts or exact quantities: read as
# decimal.Decimal (never float).
_DECIMAL_KEYS = frozenset({
    "amount", "total", "credit_applied", "due", "credit_remaining", "exact_total", "exact", "waste_amount", "rounding",
    "carry_in", "carry_out", "units", "tflops_hours", "opening_tflops_hours", "drawn_tflops_hours", "expired_tflops_hours",
    "closing_tflops_hours",
})
# The source named in errors about records given in memory.
RECORDS_SOURCE = "<records>"


def _decimals(value: Any, key: str = "") -> Any:
    """The invoice JSON with every amount a Decimal (an exact fraction "1/3" stays text)."""
    if isinstance(value, dict):
        return {k: _decimals(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_decimals(v, key) for v in value]
    if key in _DECIMAL_KEYS and isinstance(value, str) and "/" not in value:
        return Decimal(value)
    return value


def json_value(value: Any) -> str:
    """json.dumps' `default`: a Decimal as its exact text in fixed point ("0.0000001", never
    "1E-7", which the library's readers refuse); any other object is not JSON."""
    if isinstance(value, Decimal):
        return format(value, "f")
    raise TypeError(f"a {type(value).__name__} is not JSON: give text, numbers or decimal.Decimal")


def load_tariff(tariff: TariffLike) -> _core.Tariff:
    """A tariff from a JSON file's path, a dict shaped like that JSON, or a Tariff."""
    if isinstance(tariff, _core.Tariff):
        return tariff
    if isinstance(tariff, Mapping):
        # Decimal prices go in as their exact text, the way the tariff JSON writes them.
        return _core.Tariff.parse(json.dumps(tariff, default=json_value), "<tariff>")
    if isinstance(tariff, (str, os.PathLike)):
        return _core.Tariff.load(_args.path(tariff, "tariff"))
    raise TypeError(f"tariff: expected a path, a dict or a gpurent.Tariff, got {type(tariff).__name__}")


class Invoice:
    """An invoice: the library's, with the tool's bytes in every format and amounts as Decimal."""

    def __init__(self, core: _core.Invoice) -> None:
        self._core = core
        self._data: Optional[Dict[str, Any]] = None

    def to_json(self, detail: bool = False) -> str:
        """The bytes `gpurent meter --format json` prints (`--detail` when detail)."""
        return self._core.to_json(detail)

    def to_csv(self, detail: bool = False) -> str:
        """The bytes `gpurent meter --format csv` prints."""
        return self._core.to_csv(detail)

    def to_focus(self) -> str:
        """The bytes `gpurent meter --format focus` prints: a FOCUS 1.0 CSV."""
        return self._core.to_focus()

    @property
    def data(self) -> Dict[str, Any]:
        """The invoice JSON as a dict, every amount a decimal.Decimal."""
        if self._data is None:
            self._data = _decimals(json.loads(self.to_json()))
        return self._data

    @property
    def currency(self) -> str:
        return str(self.data["currency"])

    @property
    def period(self) -> str:
        return str(self.data["period"])

    @property
    def accounts(self) -> List[Dict[str, Any]]:
        """Each account: its lines, total, credit applied and amount due (Decimals)."""
        return list(self.data["accounts"])

    @property
    def lines(self) -> List[Dict[str, Any]]:
        """Every line of every account, each with its "account"."""
        return [{"account": a["account"], **line} for a in self.data["accounts"] for line in a["lines"]]

    @property
    def total(self) -> Decimal:
        """The sum of the accounts' totals."""
        return sum((a["total"] for a in self.data["accounts"]), Decimal(0))

    @property
    def due(self) -> Decimal:
        """The sum of the accounts' amounts due."""
        return sum((a["due"] for a in self.data["accounts"]), Decimal(0))

    def to_pandas(self) -> Any:
        """The lines as a pandas DataFrame: account, resource, mode, records, billed_seconds,
        amount (Decimal objects, exact)."""
        import pandas as pd

        columns = ["account", "resource", "mode", "records", "billed_seconds", "amount"]
        return pd.DataFrame([{c: line[c] for c in columns} for line in self.lines], columns=columns)

    def report(self, path: PathLike) -> None:
        """An invoice report at `path` (gpurent.report, which needs matplotlib: pip install gpurent[plot])."""
        from . import report

        report.write_invoice_report(os.fspath(path), self.data)

    def __repr__(self) -> str:
        return f"<gpurent.Invoice {self.period} {self.currency}: {len(self.data['accounts'])} accounts, total {self.total}>"


def _is_dataframe(x: Any) -> bool:
    return type(x).__module__.startswith("pandas") and type(x).__name__ == "DataFrame"


# What a usage instant without a time zone, or with a fraction of a second, is told (records
# and DataFrames alike; the usage CSV's instants are RFC 3339 with an offset, in seconds).
NAIVE = "a datetime without a time zone (give an aware one, e.g. tz_localize(\"UTC\"))"
FRACTION = "not a whole second (usage instants are in seconds)"


def _first(mask: Any) -> int:
    """The position of the first True of a boolean Series or array."""
    import numpy as np

    return int(np.flatnonzero(np.asarray(mask))[0])


def _frame_column(name: str, s: Any) -> "tuple[str, Any]":
    """A DataFrame column as the module takes it: integers and instants as int64 arrays, the
    rest as objects (str, Decimal, int: their text; a float or a missing value is an error)."""
    import numpy as np

    kind = s.dtype.kind
    if kind in "iuM" and s.isna().any():
        raise _core_error(name, _first(s.isna()), "missing value")
    if kind == "u" and len(s) and s.max() > np.iinfo(np.int64).max:  # past int64: the ints' text
        return ("text", np.array(s.tolist(), dtype=object))
    if kind in "iu":
        return ("int", np.ascontiguousarray(s.to_numpy(dtype=np.int64)))
    if kind == "M" or str(s.dtype).startswith("datetime64"):
        if getattr(s.dt, "tz", None) is None:
            if len(s):
                raise _core_error(name, 0, NAIVE)
        else:
            s = s.dt.tz_convert("UTC").dt.tz_localize(None)
        ns = s.to_numpy(dtype="datetime64[ns]").astype(np.int64)
        if (ns % 1_000_000_000).any():
            raise _core_error(name, _first(ns % 1_000_000_000), FRACTION)
        return ("seconds", np.ascontiguousarray(ns // 1_000_000_000))
    if kind == "f":
        raise _core_error(name, 0, "a float column is not exact: give text, integers or decimal.Decimal (read CSVs with dtype=str)")
    return ("text", s.to_numpy(dtype=object))  # read by the module through its array interface, no copy


def _core_error(field: str, row: int, message: str) -> Exception:
    from ._errors import Error

    where = f"{RECORDS_SOURCE}:{row + 1}"
    return Error(f"{where}: field '{field}': {message}", where=where, field=field, message=message, code="invalid_argument")


def _record_cell(v: Any, row: int, field: str) -> Any:
    """A record's value as the module takes it: a datetime as RFC 3339 text in UTC (an aware
    one, in whole seconds), anything else as it is (the module reads or refuses it)."""
    if not isinstance(v, datetime) or type(v).__name__ == "NaTType":
        return v
    if v.utcoffset() is None:
        raise _core_error(field, row, NAIVE)
    if v.microsecond or getattr(v, "nanosecond", 0):
        raise _core_error(field, row, FRACTION)
    return v.astimezone(timezone.utc).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def _records_columns(records: Sequence[Mapping[str, Any]]) -> "tuple[List[str], List[Any]]":
    """The records' keys (in order of appearance) and their columns; a key a record lacks is
    an empty cell there, as in a CSV line (a None is a missing value, an error)."""
    names: List[str] = []
    for r in records:
        for k in r:
            if k not in names:
                names.append(k)
    columns = [("text", [_record_cell(r.get(n, ""), i, n) for i, r in enumerate(records)]) for n in names]
    return [_args.text(str(n), "usage") for n in names], columns


def meter(tariff: TariffLike, usage: Any, period: str, jobs: int = 1) -> Invoice:
    """The invoice of `usage` under `tariff` for the calendar month `period` ("2026-11").

    usage: a usage CSV's path, a list of paths (metered as one stream), a list of dicts (the
    CSV's columns as keys) or a pandas DataFrame with those columns; on `jobs` threads. The
    invoice is the one `gpurent meter` prints for the same records, errors included, for any
    `jobs` (docs/performance.md has the speed).
    """
    t = load_tariff(tariff)
    period = _args.text(period, "period")
    jobs = _args.jobs(jobs)
    if isinstance(usage, (str, os.PathLike)):
        usage = [usage]
    if _is_dataframe(usage):
        names = [_args.text(str(c), "usage") for c in usage.columns]
        columns = [_frame_column(n, usage.iloc[:, i]) for i, n in enumerate(names)]  # by position: a name twice is the header's error
        return Invoice(_core.meter_columns(t, period, names, columns, RECORDS_SOURCE, jobs))
    if not isinstance(usage, Iterable):
        raise TypeError(f"usage: expected paths, a list of dicts or a pandas DataFrame, got {type(usage).__name__}")
    usage = list(usage)
    if usage and all(isinstance(u, Mapping) for u in usage):
        names, columns = _records_columns(usage)
        return Invoice(_core.meter_columns(t, period, names, columns, RECORDS_SOURCE, jobs))
    if all(isinstance(u, (str, os.PathLike)) for u in usage):
        return Invoice(_core.meter_files(t, period, [_args.path(u, "usage") for u in usage], jobs))
    raise TypeError("usage: expected paths, a list of dicts or a pandas DataFrame, not a mix")
