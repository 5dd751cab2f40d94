# SPDX-License-Identifier: MIT
"""The GPU x time chart of a `gpurent idle` report: utilization and the idle periods.

The idle periods and their cost come from the tool's JSON; the utilization behind them is
the metrics file the tool read (`metrics.load_metrics`), when the caller has it.
"""
from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pandas as pd
from matplotlib import colormaps

from .._idle import idle_periods
from .invoice_charts import money
from .style import IDLE, Figure, new_figure, plain

DAY = 86_400.0
HOUR = 3_600.0


def utilization_grid(samples: pd.DataFrame, gpus: list, edges: np.ndarray, hold_s: float) -> np.ndarray:
    """Utilization per GPU (rows, in `gpus` order) and time bin: the mean of the bin's samples,
    or in a bin without one the value in force at its middle (a sample holds at most `hold_s`,
    the report's `max_gap_s`); NaN where nothing holds. For the eye only: the idle periods are
    the tool's."""
    bins = len(edges) - 1
    grid = np.full((len(gpus), bins), np.nan)
    middles = (edges[:-1] + edges[1:]) / 2
    known = samples[samples["value"].notna()]
    for row, (_, mine) in enumerate((g, known[known["gpu"] == g].sort_values("t")) for g in gpus):
        t, v = mine["t"].to_numpy(), mine["value"].to_numpy()
        if t.size == 0:
            continue
        last = np.searchsorted(t, middles, side="right") - 1
        holds = (last >= 0) & (middles - t[np.maximum(last, 0)] <= hold_s)
        grid[row, holds] = v[last[holds]]
        col = np.clip(np.searchsorted(edges, t, side="right") - 1, 0, bins - 1)
        sums = np.bincount(col, weights=v, minlength=bins)
        counts = np.bincount(col, minlength=bins)
        grid[row, counts > 0] = sums[counts > 0] / counts[counts > 0]
    return grid


def time_unit(span_s: float):
    for size, name in ((DAY, "days"), (HOUR, "hours")):
        if span_s > 2 * size:
            return size, name
    return 60.0, "minutes"


def window(idle: dict, periods: pd.DataFrame, samples) -> tuple:
    starts = list(periods["start"]) + ([] if samples is None else [samples["t"].min()])
    ends = list(periods["end"]) + ([] if samples is None else
                                   [samples["t"].max() + max(g.get("scrape_interval_s", 60) for g in idle["gpus"])])
    return (min(starts), max(ends)) if starts else (0.0, 1.0)


def idle_heatmap(idle: dict, samples: pd.DataFrame | None = None, bins: int = 240) -> Figure:
    """GPUs (rows) x time: utilization as colour when `samples` are given (columns `gpu`, `t`,
    `value`: `metrics.load_metrics`), the tool's idle periods hatched over it, each GPU's idle
    share in its label and, with usage, the idle cost in the title."""
    gpus = [g["gpu"] for g in idle["gpus"]]
    periods = idle_periods(idle)
    t0, t1 = window(idle, periods, samples)
    unit, label = time_unit(t1 - t0)
    fig, axes = new_figure(height=min(9.0, 1.5 + 0.3 * len(gpus)), width=8.0)
    ax = axes[0, 0]
    ax.grid(False)
    if samples is not None:
        cmap = colormaps["Greens"].with_extremes(bad="#ffffff")
        grid = utilization_grid(samples, gpus, np.linspace(t0, t1, bins + 1), float(idle.get("max_gap_s", 300)))
        image = ax.imshow(grid, aspect="auto", interpolation="nearest", cmap=cmap, vmin=0, vmax=100,
                          extent=(0, (t1 - t0) / unit, len(gpus) - 0.5, -0.5))
        fig.colorbar(image, ax=ax, label="utilization (%)", fraction=0.04, pad=0.01)
    for row, gpu in enumerate(gpus):
        mine = periods[periods["gpu"] == gpu]
        spans = [((s - t0) / unit, (e - s) / unit) for s, e in zip(mine["start"], mine["end"])]
        ax.broken_barh(spans, (row - 0.4, 0.8), facecolors="none" if samples is not None else "#f4c7c3", edgecolors=IDLE, hatch="////",
                       linewidth=0.8, label="idle" if row == 0 else None)
    step = max(1, -(-len(gpus) // 40))  # at most 40 names on the axis
    names = [plain(f"{g['gpu']} (idle {100 * g['idle_share']:.0f}%)") for g in idle["gpus"][::step]]
    ax.set_yticks(range(0, len(gpus), step), names, fontsize=7)
    ax.set_ylim(len(gpus) - 0.5, -0.5)
    ax.set_xlim(0, (t1 - t0) / unit)
    start = datetime.fromtimestamp(t0, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    ax.set_xlabel(f"{label} since {start}")
    fig.suptitle(heatmap_title(idle), fontsize=10)
    return fig


def gpu_time(seconds: float) -> str:
    return f"{seconds / HOUR:,.1f} GPU-hours" if seconds >= 2 * HOUR else f"{seconds / 60:,.0f} GPU-minutes"


def heatmap_title(idle: dict) -> str:
    text = (f"Idle (below {idle['threshold']}% for over {idle['min_idle_s'] / 60:.0f} min):\n"
            f"{gpu_time(idle['idle_s'])} of {gpu_time(idle['observed_s'])} observed")
    billed = idle.get("billed_idle")
    if billed:
        text += f"; idle cost {money(billed['idle_amount']):,.2f} of {money(billed['amount']):,.2f} {billed['currency']}"
    return text
