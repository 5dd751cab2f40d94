# SPDX-License-Identifier: MIT
"""Each chart of gpurent.report on small generated data: its axes, series and values, read
back from the Figure. Run by scripts/check-python against the installed package"""
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gpurent import report  # noqa: E402
from gpurent.report import load  # noqa: E402


def timeline(rows=50, step=3600):
    """A --timeline table with every column of docs/formats/fleet.md, values from the row."""
    t = np.arange(rows) * step
    return pd.DataFrame({
        "time": [f"2026-11-01T00:00:00Z+{x}" for x in t], "t_s": t,
        "gpus_allocated": (t % 7) * 10.0, "allocation_pct": (np.arange(rows) * 2) % 100,
        "running_hp": np.arange(rows) % 5, "running_spot": np.arange(rows) % 3,
        "waiting_hp": np.zeros(rows, int), "waiting_spot": np.arange(rows) % 4})[list(load.TIMELINE_COLUMNS)]


def jobs():
    """A --jobs-out table: three hp jobs (delays 0, 30, 90 s), two spot (0 s, 2 h), one never started."""
    rows = [("a", "hp", 0, 0, 0, 100, 1, 0, 0.0, "completed", ""),
            ("b", "hp", 10, 40, 30, 500, 1, 0, 0.0, "completed", ""),
            ("c", "hp", 20, 110, 90, 900, 1, 0, 0.0, "completed", ""),
            ("s1", "spot", 0, 0, 0, 9000, 3, 2, 7200.0, "completed", ""),
            ("s2", "spot", 0, 7200, 7200, 9000, 2, 1, 3600.0, "completed", ""),
            ("n", "spot", 0, np.nan, np.nan, np.nan, 0, 0, 0.0, "never_started", "too big")]
    return pd.DataFrame(rows, columns=load.JOBS_COLUMNS)


def placements():
    """--placements: s1 preempted at 1000 s and at 5000 s, s2 failed at 3000 s; a and b on block-0,
    s1 on block-1 (n2, n3) at 500 s."""
    rows = [("a", 0, 0, "n0", "0:1000", 0, 100, "done"),
            ("b", 0, 0, "n1", "0:1000", 40, 600, "done"),
            ("s1", 0, 0, "n2", "0:1000", 0, 1000, "preempted"),
            ("s1", 0, 1, "n3", "0:1000", 0, 1000, "preempted"),
            ("s1", 1, 0, "n2", "0:1000", 1200, 5000, "preempted"),
            ("s1", 2, 0, "n2", "0:1000", 6000, 9000, "done"),
            ("s2", 0, 0, "n1", "0:1000", 700, 3000, "failed"),
            ("s2", 1, 0, "n0", "0:1000", 3200, 9000, "done")]
    return pd.DataFrame(rows, columns=load.PLACEMENTS_COLUMNS)


BLOCKS = {"n0": "block-0", "n1": "block-0", "n2": "block-1", "n3": "block-1", "n4": "block-1"}


def invoice(detail=True):
    def line(resource, mode, amount, billed, used, waste_amount, labels=None):
        out = {"resource": resource, "mode": mode, "records": 1, "billed_seconds": billed, "amount": amount}
        if detail:
            out.update(used_seconds=used, waste_seconds=billed - used, waste_amount=waste_amount)
        if labels is not None:
            out["labels"] = labels
        return out
    return {"currency": "EUR", "period": "2026-11", "timezone": "Europe/Berlin", "accounts": [
        {"account": "acme", "total": "26.64", "credit_applied": "5.00", "due": "21.64", "lines": [
            line("gpu/A100", "on_demand", "21.84", 5460, 5420, "0.16",
                 [{"labels": {"project": "vision"}, "records": 1, "billed_seconds": 5460, "amount": "20.00"},
                  {"labels": {"team": "cv"}, "records": 1, "billed_seconds": 5460, "amount": "1.84"}]),
            line("gpu/A100", "spot", "3.20", 7200, 7200, "0"),
            line("mig/A100/3g", "on_demand", "1.60", 10800, 10800, "0")]},
        {"account": "beta", "total": "1.35", "credit_applied": "0.00", "due": "1.35", "lines": [
            line("gpu/A100", "on_demand", "1.35", 4800, 3780, "1/3")]}]}


def idle(billed=True):
    gpus = [{"gpu": "GPU-a", "observed_s": 1200, "idle_s": 540, "idle_share": 0.45, "scrape_interval_s": 60,
             "periods": [{"start": "2026-11-03T00:04:00Z", "end": "2026-11-03T00:13:00Z", "seconds": 540}]},
            {"gpu": "node-b:1", "observed_s": 1020, "idle_s": 1020, "idle_share": 1.0, "scrape_interval_s": 60,
             "periods": [{"start": "2026-11-03T00:00:00Z", "end": "2026-11-03T00:10:00Z", "seconds": 600},
                         {"start": "2026-11-03T00:13:00Z", "end": "2026-11-03T00:20:00Z", "seconds": 420}]}]
    out = {"threshold": 5, "min_idle_s": 300, "max_gap_s": 300, "gpus": gpus,
           "observed_s": 2220, "idle_s": 1560, "idle_share": 0.7027}
    if billed:
        out["billed_idle"] = {"currency": "USD", "period": "2026-11", "timezone": "UTC", "lines": [],
                              "billed_seconds": 2400, "idle_seconds": 1320, "unobserved_seconds": 420,
                              "amount": "1.60", "idle_amount": "0.88"}
    return out


T0 = 1793664000  # 2026-11-03T00:00:00Z


def samples():
    """GPU-a every minute: 85% except 0% from minute 4 to 12; node-b:1 at 0% every minute."""
    rows = [("GPU-a", T0 + 60 * m, 0.0 if 4 <= m <= 12 else 85.0) for m in range(20)]
    rows += [("node-b:1", T0 + 60 * m, 0.0) for m in range(20)]
    return pd.DataFrame(rows, columns=["gpu", "t", "value"])


def test_allocation_is_the_timeline_column_against_days_or_hours():
    tl = timeline()
    ax = report.fleet_allocation(tl).axes[0]
    (line,) = ax.get_lines()
    assert np.array_equal(line.get_ydata(), tl["allocation_pct"])
    assert np.allclose(line.get_xdata(), tl["t_s"] / 86400)  # 49 h > 2 days: days
    assert ax.get_xlabel() == "days since the start" and "allocated" in ax.get_ylabel()
    short = timeline(rows=10)
    assert report.fleet_allocation(short).axes[0].get_xlabel() == "hours since the start"


def test_jobs_by_class_running_and_waiting_per_class():
    tl = timeline()
    fig = report.fleet_jobs_by_class(tl)
    running, waiting = fig.axes
    assert [l.get_label() for l in running.get_lines()] == ["hp", "spot"]
    assert np.array_equal(running.get_lines()[0].get_ydata(), tl["running_hp"])
    assert np.array_equal(running.get_lines()[1].get_ydata(), tl["running_spot"])
    assert np.array_equal(waiting.get_lines()[1].get_ydata(), tl["waiting_spot"])
    assert running.get_ylabel() == "jobs running" and waiting.get_ylabel() == "jobs waiting"


def test_delay_distribution_is_the_share_of_started_jobs_per_class():
    ax = report.fleet_delay_distribution(jobs()).axes[0]
    hp, spot = ax.get_lines()
    assert np.allclose(hp.get_xdata(), [0, 0.5, 1.5]) and np.allclose(hp.get_ydata(), [1 / 3, 2 / 3, 1])
    assert np.allclose(spot.get_xdata(), [0, 120]) and np.allclose(spot.get_ydata(), [0.5, 1])
    assert hp.get_label() == "hp (3 jobs, p99 90 s)"
    assert spot.get_label() == "spot (2 jobs, p99 2.0 h)"  # the never-started job is left out
    assert ax.get_xscale() == "symlog"


def test_evictions_per_interval_and_lost_work_at_each_jobs_last_stop():
    fig = report.fleet_evictions(placements(), jobs(), end_s=9000)
    top, bottom = fig.axes
    heights = {c.get_label(): [p.get_height() for p in c] for c in top.containers}
    # 9000 s < 2 days: hourly bins; s1 stopped at 1000 s (two members, one stop) and 5000 s
    assert sum(heights["preempted (2)"]) == 2 and heights["preempted (2)"][0] == 1
    assert heights["preempted (2)"][1] == 1
    assert sum(heights["failed (1)"]) == 1 and heights["failed (1)"][0] == 1
    (lost,) = bottom.get_lines()
    # s2's 3600 GPU-s at 3000 s, s1's 7200 at 5000 s (its last stop), in GPU-hours
    assert np.allclose(lost.get_xdata(), [0, 3000 / 3600, 5000 / 3600, 9000 / 3600])
    assert np.allclose(lost.get_ydata(), [0, 1, 3, 3])


def test_placement_marks_each_node_of_each_block_at_the_instant():
    fig = report.fleet_placement(placements(), jobs(), BLOCKS, at=500)
    ax = fig.axes[0]
    codes = ax.get_images()[0].get_array().filled(np.nan)
    # block-0: n0 free (a ended at 100), n1 hp (b); block-1: n2, n3 spot (s1), n4 free
    assert codes[0, :2].tolist() == [0, 1] and np.isnan(codes[0, 2])  # block-0 has two nodes
    assert codes[1].tolist() == [2, 2, 0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["block-0", "block-1"]
    assert ax.get_title() == "Placement at t = 500 s (day 0.01): 3 members running"  # b, s1's two


def test_placement_default_instant_is_the_busiest():
    # at 0 s: a, s1 x2 (3 members); at 40 s b joins: 4, the most
    assert "t = 40 s" in report.fleet_placement(placements(), jobs(), BLOCKS).axes[0].get_title()


@pytest.mark.parametrize("by,expected", [
    ("account", {"acme": "26.64", "beta": "1.35"}),
    ("resource", {"gpu/A100": "26.39", "mig/A100/3g": "1.60"}),
    ("mode", {"on_demand": "24.79", "spot": "3.20"}),
    ("project", {"vision": "20.00", "(no project)": "1.84", "(no labels)": "6.15"}),
])
def test_cost_breakdown_bars_are_the_exact_sums(by, expected):
    ax = report.invoice_cost_breakdown(invoice(), by).axes[0]
    bars = ax.containers[0]
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert dict(zip(names, [round(p.get_width(), 2) for p in bars])) == {k: float(v) for k, v in expected.items()}
    assert [t.get_text() for t in ax.texts] == [f"{Decimal(expected[n]):,.2f}" for n in names]
    assert names[-1] == max(expected, key=lambda k: Decimal(expected[k]))  # largest on top
    assert ax.get_xlabel() == "amount (EUR)" and f"Cost by {by}" in ax.get_title()


def test_cost_breakdown_folds_the_rest_into_other():
    names = [t.get_text() for t in report.invoice_cost_breakdown(invoice(), "mode", top=1).axes[0].get_yticklabels()]
    assert names == ["other (2)"]


def test_billed_vs_used_stacks_used_and_padding_with_its_cost():
    fig = report.invoice_billed_vs_used(invoice())
    left, right = fig.axes
    used, waste = left.containers
    names = [t.get_text() for t in left.get_yticklabels()]
    assert names == ["mig/A100/3g on_demand", "gpu/A100 spot", "gpu/A100 on_demand"]
    assert np.allclose([p.get_width() for p in used], [3.0, 2.0, (5420 + 3780) / 3600])
    assert np.allclose([p.get_width() for p in waste], [0, 0, (40 + 1020) / 3600])
    assert np.allclose([p.get_x() for p in waste], [p.get_width() for p in used])  # stacked
    assert np.allclose([p.get_width() for p in right.containers[0]], [0, 0, (40 + 1020) / 3600])
    # 0.16 + 1/3 = 0.4933...: the label rounds the exact sum once
    assert right.texts[-1].get_text() == "0.3 h, 0.49 EUR"
    assert "0.49 EUR paid for unused time" in fig._suptitle.get_text()


def test_billed_vs_used_needs_detail():
    with pytest.raises(ValueError, match="--detail"):
        report.invoice_billed_vs_used(invoice(detail=False))


def test_idle_heatmap_utilization_and_the_tools_periods():
    fig = report.idle_heatmap(idle(), samples(), bins=20)
    ax = fig.axes[0]
    grid = ax.get_images()[0].get_array().filled(np.nan)
    assert grid.shape == (2, 20)
    assert np.allclose(grid[0], [0.0 if 4 <= m <= 12 else 85.0 for m in range(20)])
    assert np.allclose(grid[1], 0)
    boxes = [c.get_paths() for c in ax.collections]
    spans = [[(p.vertices[:, 0].min(), p.vertices[:, 0].max()) for p in paths] for paths in boxes]
    assert np.allclose(spans[0], [(4, 13)]) and np.allclose(spans[1], [(0, 10), (13, 20)])  # minutes
    assert [t.get_text() for t in ax.get_yticklabels()] == ["GPU-a (idle 45%)", "node-b:1 (idle 100%)"]
    assert "idle cost 0.88 of 1.60 USD" in fig._suptitle.get_text()
    assert ax.get_xlabel() == "minutes since 2026-11-03 00:00 UTC"


def test_idle_heatmap_holds_a_sample_until_max_gap():
    few = samples().iloc[::5]  # minutes 0, 5, 10, 15 (85, 0, 0, 85): each holds 5 minutes
    grid = report.idle_heatmap(idle(), few, bins=20).axes[0].get_images()[0].get_array().filled(np.nan)
    assert np.allclose(grid[0], [85] * 5 + [0] * 10 + [85] * 5)
    gap = samples().iloc[[0, 19]]  # 19 minutes apart: held 5 minutes (max_gap_s), then nothing
    grid = report.idle_heatmap(idle(), gap, bins=20).axes[0].get_images()[0].get_array().filled(np.nan)
    assert np.allclose(grid[0, :5], 85) and np.isnan(grid[0, 6:19]).all() and grid[0, 19] == 85


def test_idle_heatmap_without_samples_marks_the_periods_only():
    fig = report.idle_heatmap(idle(billed=False))
    ax = fig.axes[0]
    assert not ax.get_images() and len(ax.collections) == 2
    assert "idle cost" not in fig._suptitle.get_text()


def test_idle_heatmap_names_at_most_40_gpus():
    many = idle(billed=False)
    many["gpus"] = [dict(many["gpus"][0], gpu=f"GPU-{i:03}") for i in range(100)]
    ax = report.idle_heatmap(many).axes[0]
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert len(names) == 34 and names[:2] == ["GPU-000 (idle 45%)", "GPU-003 (idle 45%)"]
    assert len(ax.collections) == 100  # every GPU's periods drawn


def test_names_from_the_data_are_drawn_as_written():
    """Matplotlib reads `$...$` as mathematics; an account or a GPU named so must not be."""
    weird = invoice()
    weird["accounts"][0]["account"] = r"$\frac$ --> <b>"
    fig = report.invoice_cost_breakdown(weird, "account")
    assert r"\$\frac\$ --> <b>" in [t.get_text() for t in fig.axes[0].get_yticklabels()]
    report.style.to_svg(fig)  # drawn: an unescaped "$\frac$" fails to parse here
    odd = idle()
    odd["gpus"][0]["gpu"] = "$x$"
    report.style.to_svg(report.idle_heatmap(odd))
