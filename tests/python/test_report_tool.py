# SPDX-License-Identifier: MIT
"""The reports on the tool's real outputs: a generated fleet run, a metered month with
`--detail`, the idle golden case of tests/io/data. Needs the built tool: GPURENT_TOOL, else
the first of build*/tools/gpurent; skipped, saying so, without one. Run:
scripts/check-python, against the installed package"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_report_html import check_page, gpurent  # noqa: E402

from gpurent import report  # noqa: E402


def find_tool():
    named = os.environ.get("GPURENT_TOOL")
    if named:
        return Path(named)
    return next((p for p in sorted(ROOT.glob("build*/tools/gpurent")) if os.access(p, os.X_OK)), None)


TOOL = find_tool()
pytestmark = pytest.mark.skipif(TOOL is None, reason="no gpurent tool built (build*/tools/gpurent) and "
                                "GPURENT_TOOL unset: the reports were not tried on the tool's own outputs")


def tool(*args, cwd=None, stdout=None):
    with open(stdout, "w") if stdout else open(os.devnull, "w") as out:
        done = subprocess.run([str(TOOL), *map(str, args)], stdout=out, stderr=subprocess.PIPE, text=True,
                              cwd=cwd, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    d = tmp_path_factory.mktemp("fleet")
    tool("fleet", "generate", "--blocks", 4, "--down", 0.02, "--seed", 3, "--load", 110, "--horizon", "2d",
         "--spot", 0.5, "--checkpoint-every", "30min", "--out", d, "--format", "json")
    tool("fleet", "run", "--nodes", d / "nodes.csv", "--topology", d / "topology.json", "--jobs", d / "jobs.csv",
         "--timeline", d / "timeline.csv", "--timeline-step", "5min", "--jobs-out", d / "jobs-out.csv",
         "--placements", d / "placements.csv", "--quiet", stdout=d / "summary.json")
    return d


def test_fleet_report_on_a_generated_run(fleet, tmp_path):
    out = tmp_path / "fleet.html"
    done = gpurent("report", "fleet", "--summary", fleet / "summary.json", "--timeline", fleet / "timeline.csv",
                   "--jobs", fleet / "jobs-out.csv", "--placements", fleet / "placements.csv",
                   "--topology", fleet / "topology.json", "--out", out)
    assert done.returncode == 0, done.stderr
    check_page(out.read_text(encoding="utf-8"), 5)


def test_fleet_charts_show_the_tools_columns(fleet):
    run = report.load_fleet_run(fleet / "summary.json", fleet / "timeline.csv", fleet / "jobs-out.csv")
    raw = pd.read_csv(fleet / "timeline.csv")
    (line,) = report.fleet_allocation(run.timeline).axes[0].get_lines()
    assert np.allclose(line.get_ydata(), raw["allocation_pct"]) and len(raw) > 100
    started = run.jobs["delay_s"].notna()
    hp, spot = report.fleet_delay_distribution(run.jobs).axes[0].get_lines()
    assert len(hp.get_xdata()) + len(spot.get_xdata()) == started.sum()
    placements = report.load_placements(fleet / "placements.csv")
    stops = report.fleet_charts.evictions(placements)
    spot_class = run.summary["classes"]["spot"]
    # the tool's own counts: every preemption is one stopped segment of a spot job
    assert (stops["end_reason"] == "preempted").sum() == spot_class["evictions"]
    lost = report.fleet_evictions(placements, run.jobs, run.summary["end_s"]).axes[1].get_lines()[0]
    assert np.isclose(lost.get_ydata()[-1], run.jobs["lost_gpu_s"].sum() / 3600)


def test_invoice_report_on_a_metered_month(tmp_path):
    subprocess.run([sys.executable, ROOT / "scripts" / "gen-usage", "--records", "2000", "--seed", "2", "--labels",
                    "--tariff", tmp_path / "t.json", "--usage", tmp_path / "u.csv"], check=True, timeout=120)
    tool("meter", "--tariff", tmp_path / "t.json", "--usage", tmp_path / "u.csv", "--period", "2026-11", "--detail",
         stdout=tmp_path / "invoice.json")
    out = tmp_path / "invoice.html"
    done = gpurent("report", "invoice", "--invoice", tmp_path / "invoice.json", "--out", out)
    assert done.returncode == 0, done.stderr
    check_page(out.read_text(encoding="utf-8"), 6)  # account, resource, mode, project, team; billed vs used
    invoice = report.load_invoice(tmp_path / "invoice.json")
    totals = sum(report.invoice_charts.money(a["total"]) for a in invoice["accounts"])
    for by in ("resource", "mode", "project"):  # every view adds up to the invoice
        assert sum(report.invoice_charts.cost_groups(invoice, by).values()) == totals


def test_idle_report_on_the_golden_case(tmp_path):
    data = ROOT / "tests" / "io" / "data"
    tool("idle", "--metrics", data / "query_range.json", "--min-idle", "5min", "--max-gap", "5min",
         "--usage", data / "idle_usage.csv", "--tariff", data / "idle_tariff.json", "--period", "2026-11",
         stdout=tmp_path / "idle.json", cwd=data)
    out = tmp_path / "idle.html"
    for metrics in (data / "query_range.json", data / "dcgm_exporter.prom"):
        done = gpurent("report", "idle", "--idle", tmp_path / "idle.json", "--metrics", metrics, "--out", out)
        assert done.returncode == 0, done.stderr
        text = out.read_text(encoding="utf-8")
        check_page(text, 1)
        assert "0.88" in text  # the idle cost of idle_billed.expected.json
    a = report.load_metrics(data / "query_range.json")
    b = report.load_metrics(data / "dcgm_exporter.prom")
    assert a.equals(b) and set(a["gpu"]) == {g["gpu"] for g in report.load_idle(tmp_path / "idle.json")["gpus"]}


def test_out_naming_an_input_is_refused_and_the_input_kept(tmp_path):
    """--out naming the input (by the same path, another spelling or a link) wrote the page over
    it and exited 0 (an outside probe's finding): exit 2, the input unchanged."""
    data = ROOT / "tests" / "io" / "data"
    idle = tmp_path / "idle.json"
    tool("idle", "--metrics", data / "query_range.json", "--min-idle", "5min", "--max-gap", "5min", stdout=idle)
    before = idle.read_bytes()
    link = tmp_path / "link.json"
    link.symlink_to(idle)
    (tmp_path / "sub").mkdir()
    for out in (idle, tmp_path / "sub" / ".." / "idle.json", link):
        done = gpurent("report", "idle", "--idle", idle, "--out", out)
        assert done.returncode == 2, done.stderr
        assert "--out names the same file as --idle" in done.stderr
        assert idle.read_bytes() == before
