# SPDX-License-Identifier: MIT
"""The utilization samples behind a `gpurent idle` report, for its heat map only.

`gpurent idle` outputs the idle periods, not the samples, so the heat map reads the same
metrics file the tool read: a Prometheus `query_range` answer (JSON) or DCGM exporter text
(docs/monitoring.md). This reader draws; it decides nothing: which time was idle, and what it
cost, always comes from the tool's JSON. A value that is no number, or outside 0 to 100 once
scaled, is left out of the picture (DCGM's blank sentinels among them).
"""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd

from .load import ReportInputError

DEFAULT_METRIC = "DCGM_FI_DEV_GPU_UTIL"
_TEXT_LINE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})?\s+(\S+)(?:\s+(\S+))?\s*$')
_LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')


def gpu_name(labels: dict) -> str:
    """docs/monitoring.md: the `UUID`, else `Hostname:gpu`; a MIG instance adds `/GPU_I_ID`."""
    name = labels.get("UUID") or f"{labels.get('Hostname', '')}:{labels.get('gpu', '')}"
    return f"{name}/{labels['GPU_I_ID']}" if labels.get("GPU_I_ID") else name


def load_metrics(path, metric: str = DEFAULT_METRIC, unit: str | None = None) -> pd.DataFrame:
    """Samples as columns `gpu`, `t` (UNIX seconds), `value` (percent). `unit` is the idle JSON's
    `unit` member: "ratio" scales by 100, as the tool did."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except OSError as e:
        raise ReportInputError(path, f"cannot be read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ReportInputError(path, "is not UTF-8 text") from None
    rows = _from_json(path, text, metric) if text.lstrip().startswith("{") else _from_text(path, text, metric)
    frame = pd.DataFrame(rows, columns=["gpu", "t", "value"])
    if frame.empty:
        raise ReportInputError(path, f"no sample of {metric}")
    frame["t"] = frame["t"].astype(float)
    frame["value"] = pd.to_numeric(frame["value"], errors="coerce") * (100.0 if unit == "ratio" else 1.0)
    frame.loc[~frame["value"].between(0, 100), "value"] = np.nan
    # Two samples of one GPU at one instant: the busier, as the tool keeps.
    return frame.groupby(["gpu", "t"], as_index=False)["value"].max()


def _from_json(path, text: str, metric: str) -> list:
    try:
        answer = json.loads(text)
        series = answer["data"]["result"]
    except json.JSONDecodeError as e:
        raise ReportInputError(path, f"line {e.lineno}: not JSON ({e.msg})") from None
    except (KeyError, TypeError):
        raise ReportInputError(path, "is not a Prometheus query_range answer: no 'data.result'") from None
    rows = []
    for s in series:
        labels = s.get("metric", {})
        if labels.get("__name__", metric) != metric:
            continue
        name = gpu_name(labels)
        rows.extend((name, float(t), v) for t, v in s.get("values", []))
    return rows


def _from_text(path, text: str, metric: str) -> list:
    lines = text.splitlines()
    seconds = bool(lines) and lines[-1].strip() == "# EOF"  # OpenMetrics: seconds, not ms
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        match = _TEXT_LINE.match(line)
        if not match:
            raise ReportInputError(path, f"line {number}: not a sample line")
        if match.group(1) != metric:
            continue
        if match.group(5) is None:
            raise ReportInputError(path, f"line {number}: a sample without a timestamp")
        labels = dict(_LABEL.findall(match.group(3) or ""))
        t = float(match.group(5)) if seconds else float(match.group(5)) / 1000.0
        rows.append((gpu_name(labels), t, match.group(4)))
    return rows
