# SPDX-License-Identifier: MIT
"""gpurent.idle: the reports byte for byte those of `gpurent idle` (the golden case of
tests/io/data and a generated one, compared with the tool when GPURENT_TOOL is set), the
samples as the tool's readers read them, errors as gpurent.Error, the heat map and the HTML
report. Run by scripts/check-python against the installed package."""
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import gpurent
from gpurent import report

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "io" / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import run_tool  # noqa: E402
from test_report_html import check_page  # noqa: E402

BILLING = {"usage": DATA / "idle_usage.csv", "tariff": DATA / "idle_tariff.json", "period": "2026-11"}


@pytest.mark.parametrize("metrics", ["query_range.json", "dcgm_exporter.prom"])
def test_the_golden_reports(metrics):
    plain = gpurent.idle(DATA / metrics, min_idle="5min")
    assert plain.to_json() == (DATA / "idle.expected.json").read_text()
    billed = gpurent.idle([DATA / metrics], min_idle=300, **BILLING)
    assert billed.to_json() == (DATA / "idle_billed.expected.json").read_text()
    assert billed.to_csv() == (DATA / "idle_billed.expected.csv").read_text()
    assert billed.warnings == []


def generated_metrics(path: Path, gpus: int, minutes: int, ratio: bool) -> None:
    """A DCGM exporter scrape a minute apart: GPU g idle (0) in minutes where (m // (g + 7)) is odd;
    the values are percentages, or ratios of the SM_ACTIVE field with a blank now and then."""
    name = "DCGM_FI_PROF_SM_ACTIVE" if ratio else "DCGM_FI_DEV_GPU_UTIL"
    lines = [f"# TYPE {name} gauge"]
    for m in range(minutes):
        for g in range(gpus):
            busy = (m // (g + 7)) % 2 == 0
            value = ("0.8125" if busy else "0") if ratio else ("87" if busy else "0")
            if ratio and m % 13 == 5:
                value = "140737488355328"  # DCGM's blank of a float field: no sample
            lines.append(f'{name}{{gpu="{g}",Hostname="h{g // 4}"}} {value} {1793577600000 + 60000 * m}')
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("ratio", [False, True])
def test_generated_reports_are_the_tools(tool, tmp_path, ratio):
    metrics = tmp_path / "scrape.prom"
    generated_metrics(metrics, gpus=12, minutes=600, ratio=ratio)
    metric = ["--metric", "DCGM_FI_PROF_SM_ACTIVE"] if ratio else []
    for fmt, ours in (("json", "to_json"), ("csv", "to_csv"), ("table", "to_table")):
        want = run_tool(tool, "idle", "--metrics", metrics, *metric, "--min-idle", "10min", "--threshold", "2.5", "--format", fmt)
        r = gpurent.idle(metrics, metric=metric[1] if ratio else gpurent._idle.DEFAULT_METRIC, min_idle="10min", threshold=2.5)
        assert getattr(r, ours)() == want
    samples = r.samples
    blank_minutes = sum(1 for m in range(600) if m % 13 == 5)
    assert len(samples) == 12 * (600 - (blank_minutes if ratio else 0))
    assert set(samples["value"].unique()) == ({81.25, 0.0} if ratio else {87.0, 0.0})
    assert samples["t"].min() == 1793577600 and samples["gpu"].nunique() == 12


def test_samples_are_columns_of_the_tools_readers():
    r = gpurent.idle(DATA / "query_range.json", min_idle="5min")
    s = r.samples
    assert list(s.columns) == ["gpu", "t", "value"] and isinstance(s["gpu"].dtype, pd.CategoricalDtype)
    assert s["t"].dtype == np.int64 and s["value"].dtype == np.float64
    assert set(s["gpu"]) == {g["gpu"] for g in r.data["gpus"]}
    again = report.load_metrics(DATA / "dcgm_exporter.prom")
    assert again.equals(report.load_metrics(DATA / "query_range.json"))
    assert len(again) == len(s) and set(again["gpu"]) == set(s["gpu"])
    periods = r.periods
    assert list(periods.columns) == ["gpu", "start", "end", "seconds"]
    assert periods["seconds"].sum() == r.data["idle_s"] and r.gpus["idle_s"].sum() == r.data["idle_s"]


def test_errors_name_file_line_and_field(tmp_path):
    with pytest.raises(gpurent.Error) as e:
        gpurent.idle(tmp_path / "missing.json")
    assert e.value.file == str(tmp_path / "missing.json")
    bad = tmp_path / "bad.prom"
    bad.write_text('DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="h"} 87 1793577600000\nDCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="h"} 187 1793577660000\n')
    with pytest.raises(gpurent.Error) as e:
        gpurent.idle(bad)
    assert (e.value.file, e.value.line) == (str(bad), 2)
    with pytest.raises(gpurent.Error) as e:
        gpurent.idle(DATA / "query_range.json", usage=DATA / "idle_usage.csv")
    assert e.value.field == "tariff" and "go together" in str(e.value)
    with pytest.raises(gpurent.Error) as e:
        gpurent.idle(DATA / "query_range.json", **{**BILLING, "period": "2026-13"})
    assert e.value.field == "period"
    with pytest.raises(gpurent.Error) as e:
        gpurent.idle(DATA / "query_range.json", max_gap="0s")
    assert e.value.field == "max_gap"
    with pytest.raises(gpurent.Error) as e:
        gpurent.idle(DATA / "query_range.json", metric="DCGM_FI_DEV_FB_USED")
    assert "not a utilization" in str(e.value)


def test_an_unmatched_usage_gpu_is_an_error_or_a_stated_warning(tmp_path):
    usage = tmp_path / "usage.csv"
    usage.write_text((DATA / "idle_usage.csv").read_text() + "r9,acme,gpu/H100,on_demand,1,2026-11-03T00:00:00Z,2026-11-03T00:10:00Z,GPU-nowhere\n")
    with pytest.raises(gpurent.Error) as e:
        gpurent.idle(DATA / "query_range.json", **{**BILLING, "usage": usage})
    assert "allow_unmatched=True" in str(e.value) and e.value.file == str(usage)
    r = gpurent.idle(DATA / "query_range.json", allow_unmatched=True, **{**BILLING, "usage": usage})
    assert len(r.warnings) == 1 and "GPU-nowhere" in r.warnings[0] and r.data["warnings"] == r.warnings


def test_heatmap_and_report(tmp_path):
    pytest.importorskip("matplotlib")
    r = gpurent.idle(DATA / "query_range.json", min_idle="5min", **BILLING)
    fig = r.heatmap()
    ax = fig.axes[0]
    assert len(ax.get_yticklabels()) == len(r.data["gpus"]) and ax.images
    out = tmp_path / "idle.html"
    r.report(out)
    text = out.read_text(encoding="utf-8")
    check_page(text, 1)
    assert "query_range.json sha256:" in text and "idle_usage.csv sha256:" in text and "0.88" in text
    assert json.loads(r.to_json())["billed_idle"]["currency"] in text
