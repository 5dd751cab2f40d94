# SPDX-License-Identifier: MIT
"""gpurent.idle and the IdleReport it returns (docs/python.md)."""
from __future__ import annotations

import json
import os
from datetime import datetime
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _args, _core
from ._errors import Error
from ._fleet import Duration, _duration

PathLike = Union[str, "os.PathLike[str]"]
DEFAULT_METRIC = "DCGM_FI_DEV_GPU_UTIL"


def samples_frame(columns: Dict[str, Any]) -> Any:
    """The library's sample columns as a DataFrame `gpu` (categorical), `t` (UNIX seconds),
    `value` (percent): the arrays as NumPy holds them, no Python object per sample."""
    import pandas as pd

    return pd.DataFrame({"gpu": pd.Categorical.from_codes(columns["gpu"], categories=columns["gpus"]),
                         "t": columns["t"], "value": columns["value"]})


def unix(text: str) -> float:
    """An RFC 3339 instant of the report as UNIX seconds."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def idle_periods(idle: Dict[str, Any]) -> Any:
    """One row per idle period of the report: `gpu`, `start`, `end` (UNIX seconds), `seconds`
    (pandas only: gpurent.report's charts use it, and IdleReport.periods without matplotlib)."""
    import pandas as pd

    rows = [(g["gpu"], unix(p["start"]), unix(p["end"]), int(p["seconds"]))
            for g in idle["gpus"] for p in g["periods"]]
    return pd.DataFrame(rows, columns=["gpu", "start", "end", "seconds"])


class IdleReport:
    """An idle analysis: the tool's report in every format, its samples, charts and an HTML page."""

    def __init__(self, core: _core.IdleReport, inputs: Dict[str, Any]) -> None:
        self._core = core
        self.inputs = inputs
        self._columns = core.samples()
        self._data: Optional[Dict[str, Any]] = None

    def to_json(self) -> str:
        """The bytes `gpurent idle --format json` prints."""
        return self._core.to_json()

    def to_csv(self) -> str:
        """The bytes `gpurent idle --format csv` prints."""
        return self._core.to_csv()

    def to_table(self) -> str:
        """The bytes `gpurent idle --format table` prints."""
        return self._core.to_table()

    @property
    def data(self) -> Dict[str, Any]:
        """The report JSON as a dict."""
        if self._data is None:
            self._data = json.loads(self.to_json())
        return self._data

    @property
    def warnings(self) -> List[str]:
        """What the analysis assumed or let pass (the tool says them on stderr)."""
        return list(self._core.warnings)

    @property
    def gpus(self) -> Any:
        """One row per GPU: `gpu`, `observed_s`, `idle_s`, `idle_share` (DataFrame)."""
        import pandas as pd

        keys = ("gpu", "observed_s", "idle_s", "idle_share")
        return pd.DataFrame([{k: g[k] for k in keys} for g in self.data["gpus"]], columns=list(keys))

    @property
    def periods(self) -> Any:
        """One row per idle period: `gpu`, `start`, `end` (UNIX seconds), `seconds` (DataFrame)."""
        return idle_periods(self.data)

    @property
    def samples(self) -> Any:
        """The utilization samples the analysis read (DataFrame: `gpu`, `t`, `value`)."""
        return samples_frame(self._columns)

    def heatmap(self, bins: int = 240) -> Any:
        """GPUs x time: utilization and the idle periods (a matplotlib Figure; needs gpurent[plot])."""
        from .report import idle_heatmap

        return idle_heatmap(self.data, self.samples, bins=bins)

    def report(self, path: PathLike) -> None:
        """An idle report at `path` (gpurent.report, which needs matplotlib): the summary, what
        the idle time cost with usage, the heat map, and the input files' digests."""
        from . import report
        from .report.load import digests

        files = {f"metrics {i + 1}" if len(self.inputs["metrics"]) > 1 else "metrics": m for i, m in enumerate(self.inputs["metrics"])}
        files.update({k: self.inputs[k] for k in ("usage", "tariff") if self.inputs.get(k)})
        shown = {**digests(files), **{k: str(v) for k, v in self.inputs.items() if k not in ("metrics", "usage", "tariff") and v is not None}}
        report.write_idle_report(os.fspath(path), self.data, shown, self.samples)

    def __repr__(self) -> str:
        return f"<gpurent.IdleReport gpus={len(self.data['gpus'])} idle_s={self.data['idle_s']}>"


def idle(
    metrics: Union[PathLike, Sequence[PathLike]],
    metric: str = DEFAULT_METRIC,
    threshold: Union[str, int, float] = 5,
    min_idle: Duration = "30min",
    max_gap: Duration = "5min",
    usage: Optional[PathLike] = None,
    tariff: Optional[PathLike] = None,
    period: Optional[str] = None,
    allow_unmatched: bool = False,
) -> IdleReport:
    """`gpurent idle`: idle GPUs from utilization files (Prometheus query_range JSON or DCGM
    exporter text) and, with `usage`, `tariff` and `period` (all three), what their billed idle
    time cost. The options are the tool's; `threshold` is a percentage."""
    paths = [_args.path(m, "metrics") for m in ([metrics] if isinstance(metrics, (str, os.PathLike)) else metrics)]
    if not paths:
        raise Error("field 'metrics': no utilization file", field="metrics", message="no utilization file")
    billing = {"usage": usage, "tariff": tariff, "period": period}
    given = [k for k, v in billing.items() if v is not None]
    if given and len(given) != 3:
        missing = next(k for k, v in billing.items() if v is None)
        text = "usage, tariff and period go together"
        raise Error(f"field '{missing}': {text}", field=missing, message=text)
    if isinstance(threshold, bool) or not isinstance(threshold, (str, int, float)):
        raise TypeError(f"threshold: expected a percentage, got {type(threshold).__name__}")
    settings = {"metric": _args.text(metric, "metric"), "threshold": str(threshold), "min_idle": _duration(min_idle, "min_idle"),
                "max_gap": _duration(max_gap, "max_gap")}
    files = {k: (v if v is None else _args.text(v, k) if k == "period" else _args.path(v, k)) for k, v in billing.items()}
    core = _core.idle(paths, settings["metric"], settings["threshold"], settings["min_idle"], settings["max_gap"],
                      files["usage"], files["tariff"], files["period"], allow_unmatched)
    return IdleReport(core, {"metrics": paths, **settings, **files, "allow_unmatched": allow_unmatched or None})


__all__ = ["IdleReport", "idle", "idle_periods", "samples_frame", "unix"]
