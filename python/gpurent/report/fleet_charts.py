# SPDX-License-Identifier: MIT
"""Charts of one `gpurent fleet run`: its --timeline, --jobs-out and --placements files.

Each function takes the tool's columns as pandas DataFrames (`load.py` reads them) and returns
a matplotlib Figure; nothing is recomputed that the tool outputs.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from .style import CLASS_COLOURS, FAILED, HP, SPOT, Figure, new_figure, plain

DAY = 86_400.0
HOUR = 3_600.0


def time_unit(end_s: float):
    """Days for runs longer than two days, hours otherwise: (seconds per unit, axis label)."""
    return (DAY, "days since the start") if end_s > 2 * DAY else (HOUR, "hours since the start")


def duration_text(seconds: float) -> str:
    """Seconds in the largest unit that keeps them readable: 30 s, 115 min, 4.8 h, 3.2 d."""
    for size, name in ((DAY, "d"), (HOUR, "h"), (60.0, "min")):
        if seconds >= 2 * size:
            return f"{seconds / size:.1f} {name}"
    return f"{seconds:.0f} s"


def fleet_allocation(timeline: pd.DataFrame) -> Figure:
    """Percent of the fleet's GPUs allocated over time (`allocation_pct`)."""
    unit, label = time_unit(float(timeline["t_s"].max()))
    fig, axes = new_figure(height=2.8)
    ax = axes[0, 0]
    ax.plot(timeline["t_s"] / unit, timeline["allocation_pct"], color=HP, lw=1, label="allocated")
    ax.set_ylim(0, 105)
    ax.set_xlim(left=0)
    ax.set_xlabel(label)
    ax.set_ylabel("GPUs allocated (%)")
    ax.set_title("Allocation")
    return fig


def fleet_jobs_by_class(timeline: pd.DataFrame) -> Figure:
    """Jobs running (top) and waiting (bottom) per class over time."""
    unit, label = time_unit(float(timeline["t_s"].max()))
    fig, axes = new_figure(2, 1, height=4.4, sharex=True)
    t = timeline["t_s"] / unit
    for ax, state in zip(axes[:, 0], ("running", "waiting")):
        for cls, colour in CLASS_COLOURS.items():
            ax.plot(t, timeline[f"{state}_{cls}"], color=colour, lw=1, label=cls)
        ax.set_ylabel(f"jobs {state}")
        ax.set_ylim(bottom=0)
        ax.legend(loc="upper right", frameon=False)
    axes[0, 0].set_title("Jobs running and waiting, by class")
    axes[1, 0].set_xlabel(label)
    axes[1, 0].set_xlim(left=0)
    return fig


def fleet_delay_distribution(jobs: pd.DataFrame) -> Figure:
    """Queueing delay (arrival to first start) per class: the share of jobs that started within x."""
    fig, axes = new_figure(height=3.0)
    ax = axes[0, 0]
    for cls, colour in CLASS_COLOURS.items():
        delays = np.sort(jobs.loc[jobs["class"] == cls, "delay_s"].dropna().to_numpy(dtype=float))
        if delays.size == 0:
            continue
        share = np.arange(1, delays.size + 1) / delays.size
        ax.step(delays / 60.0, share, where="post", color=colour, lw=1.2,
                label=f"{cls} ({delays.size} jobs, p99 {duration_text(delays[int(np.ceil(0.99 * delays.size)) - 1])})")
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlim(left=0)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("delay from arrival to first start (minutes, log above 1)")
    ax.set_ylabel("share of started jobs")
    ax.set_title("Queueing delay by class")
    if ax.get_lines():
        ax.legend(loc="lower right", frameon=False)
    else:
        ax.text(0.5, 0.5, "no job started", transform=ax.transAxes, ha="center")
    return fig


def evictions(placements: pd.DataFrame) -> pd.DataFrame:
    """One row per stopped run segment: `job`, `run`, `time` (when it stopped), `end_reason`."""
    stopped = placements[placements["end_reason"].isin(("preempted", "failed"))]
    return (stopped.drop_duplicates(["job", "run"])[["job", "run", "end", "end_reason"]]
            .rename(columns={"end": "time"}).reset_index(drop=True))


def fleet_evictions(placements: pd.DataFrame, jobs: pd.DataFrame, end_s: float | None = None) -> Figure:
    """Top: run segments stopped per interval (preempted, failed). Bottom: the work lost so far,
    each job's `lost_gpu_s` counted at its last stop (the tool gives lost work per job, not per
    stop), so the curve is exact at each job's last stop and at the end."""
    stops = evictions(placements)
    end = float(end_s if end_s is not None else placements["end"].max())
    end = end if end >= 1 else 1.0  # a run of no length (or no placement): one second
    unit, label = time_unit(end)
    step = 1.0 if unit == DAY else max(1.0, np.ceil(end / unit / 48))
    edges = np.arange(0, end / unit + step, step)  # the last edge at or past the end
    fig, axes = new_figure(2, 1, height=4.4, sharex=True)
    top, bottom = axes[0, 0], axes[1, 0]
    base = np.zeros(len(edges) - 1)
    for reason, colour in (("preempted", SPOT), ("failed", FAILED)):
        counts, _ = np.histogram(stops.loc[stops["end_reason"] == reason, "time"] / unit, bins=edges)
        top.bar(edges[:-1], counts, width=np.diff(edges), bottom=base, align="edge",
                color=colour, label=f"{reason} ({int(counts.sum())})")
        base += counts
    top.set_ylabel(f"segments stopped per {'day' if unit == DAY else f'{edges[1] - edges[0]:.0f} h'}")
    top.set_title("Evictions and lost work")
    top.legend(loc="upper right", frameon=False)
    last = stops.groupby("job")["time"].max().sort_values(kind="stable")
    lost = jobs.drop_duplicates("job").set_index("job")["lost_gpu_s"].reindex(last.index).fillna(0)
    total = np.cumsum(lost.to_numpy()) / HOUR
    times = np.concatenate(([0.0], last.to_numpy() / unit, [end / unit]))
    cumulative = np.concatenate(([0.0], total, [total[-1] if total.size else 0.0]))
    bottom.step(times, cumulative, where="post", color=FAILED, lw=1.2, label="lost GPU-hours")
    bottom.set_ylabel("lost GPU-hours (cumulative)")
    bottom.set_xlabel(label)
    bottom.set_xlim(0, end / unit)
    bottom.set_ylim(bottom=0)
    return fig


def busiest_instant(placements: pd.DataFrame) -> float:
    """The first instant at which the most run segments (members) are running."""
    times = np.concatenate((placements["start"].to_numpy(), placements["end"].to_numpy()))
    steps = np.concatenate((np.ones(len(placements)), -np.ones(len(placements))))
    order = np.lexsort((steps, times))  # at one instant, ends before starts
    running = np.cumsum(steps[order])
    return float(times[order][int(np.argmax(running))]) if len(running) else 0.0


PLACEMENT_CODES = {"no member": 0, "hp": 1, "spot": 2, "hp and spot": 3}
PLACEMENT_COLOURS = ["#f2f2f2", HP, SPOT, "#6a3d9a"]


def placement_grid(placements, jobs, blocks: dict, at: float):
    """(block names, codes): per block (row) and node (column, by name), what ran there at `at`;
    NaN past a block's last node."""
    running = placements[(placements["start"] <= at) & (placements["end"] > at)]
    cls = running["job"].map(jobs.set_index("job")["class"])
    classes = running.assign(cls=cls.fillna("hp")).groupby("node")["cls"].agg(set)
    by_block: dict = {}
    for node, block in blocks.items():
        by_block.setdefault(block, []).append(node)
    outside = sorted(set(placements["node"]) - set(blocks))
    for i in range(0, len(outside), 18):  # nodes outside the topology: rows of 18
        by_block[f"(no block) {i // 18}"] = outside[i:i + 18]
    names = sorted(by_block)
    width = max(len(v) for v in by_block.values()) if by_block else 1
    codes = np.full((len(names), width), np.nan)
    for row, block in enumerate(names):
        for col, node in enumerate(sorted(by_block[block])):
            held = classes.get(node, set())
            codes[row, col] = PLACEMENT_CODES["hp and spot" if len(held) == 2 else next(iter(held), "no member")]
    return names, codes


def fleet_placement(placements: pd.DataFrame, jobs: pd.DataFrame, blocks: dict, at: float | None = None) -> Figure:
    """Each node of each base block at instant `at` (default: when the most members run): no
    member there (free, or down: the nodes' states are not read), hp jobs, spot jobs or both.
    `blocks` maps node -> base block (the topology)."""
    at = busiest_instant(placements) if at is None else float(at)
    names, codes = placement_grid(placements, jobs, blocks, at)
    fig, axes = new_figure(height=min(9.0, 1.6 + 0.11 * len(names)), width=8.0)
    ax = axes[0, 0]
    ax.imshow(codes, aspect="auto", interpolation="nearest", cmap=ListedColormap(PLACEMENT_COLOURS),
              vmin=-0.5, vmax=3.5)
    ax.grid(False)
    step = max(1, len(names) // 30)
    ax.set_yticks(range(0, len(names), step), [plain(names[i]) for i in range(0, len(names), step)], fontsize=7)
    ax.set_xlabel("node in block")
    running = int(((placements["start"] <= at) & (placements["end"] > at)).sum())
    ax.set_title(f"Placement at t = {at:.0f} s (day {at / DAY:.2f}): {running} members running")
    ax.legend(handles=[Patch(color=c, label=n) for n, c in zip(PLACEMENT_CODES, PLACEMENT_COLOURS)],
              loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    return fig
