# SPDX-License-Identifier: MIT
"""The utilization samples behind a `gpurent idle` report, for its heat map only.

`gpurent idle` outputs the idle periods, not the samples, so the heat map reads the same
metrics file the tool read (a Prometheus `query_range` answer or DCGM exporter text,
docs/monitoring.md) with the tool's own readers, through the bindings: the same GPU names,
units (a ratio field scaled to percent), blanks and errors. This draws; it decides nothing:
which time was idle, and what it cost, always comes from the tool's JSON.
"""
from __future__ import annotations

import os

import pandas as pd

from .load import ReportInputError

DEFAULT_METRIC = "DCGM_FI_DEV_GPU_UTIL"


def load_metrics(path, metric: str = DEFAULT_METRIC) -> pd.DataFrame:
    """Samples as columns `gpu`, `t` (UNIX seconds), `value` (percent), as the tool read them;
    an unreadable file, or one without a sample of `metric`, is a ReportInputError."""
    from .. import _core
    from .._errors import Error
    from .._idle import samples_frame

    try:
        columns = _core.read_utilization([os.fspath(path)], metric)
    except Error as e:
        where = f"line {e.line}: " if e.line else ""
        field = f"field '{e.field}': " if e.field else ""
        raise ReportInputError(path, f"{where}{field}{e.message}") from None
    return samples_frame(columns)
