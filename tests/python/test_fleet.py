# SPDX-License-Identifier: MIT
"""gpurent.fleet_run and gpurent.GangPlacer: the tool's summary and tables, errors."""
import io
import json

import pandas as pd
import pytest

import gpurent
from conftest import run_tool



def without_elapsed(text):
    """The summary without its wall-clock field."""
    data = json.loads(text)
    data.pop("elapsed_s", None)
    return data


@pytest.fixture(scope="module")
def run(fleet_inputs):
    d = fleet_inputs
    return gpurent.fleet_run(nodes=d / "nodes.csv", topology=d / "topology.json", jobs=d / "jobs.csv", policy="gpurent",
                             victims="gpurent", timeline_step="300s")


def test_same_as_the_tool(tool, fleet_inputs, run, tmp_path):
    d = fleet_inputs
    outs = {k: tmp_path / f"{k}.csv" for k in ("jobs", "timeline", "placements", "preemptions", "usage")}
    summary = run_tool(tool, "fleet", "run", "--nodes", d / "nodes.csv", "--topology", d / "topology.json", "--jobs", d / "jobs.csv",
                       "--timeline-step", "300s", "--jobs-out", outs["jobs"], "--timeline", outs["timeline"], "--placements",
                       outs["placements"], "--preemptions", outs["preemptions"], "--emit-usage", outs["usage"], "--quiet")
    assert without_elapsed(run.to_json()) == without_elapsed(summary)
    assert run.jobs_csv() == outs["jobs"].read_text()
    assert run.timeline_csv() == outs["timeline"].read_text()
    assert run.placements_csv() == outs["placements"].read_text()
    assert run.preemptions_csv() == outs["preemptions"].read_text()
    assert run.usage_csv() == outs["usage"].read_text()


def test_tables_have_the_tool_columns(run):
    for table, text in ((run.jobs, run.jobs_csv()), (run.timeline, run.timeline_csv()), (run.placements, run.placements_csv())):
        assert isinstance(table, pd.DataFrame)
        assert list(table.columns) == text.splitlines()[0].split(",")
        assert len(table) == len(text.splitlines()) - 1
    assert run.timeline["t_s"].dtype.kind == "i" and run.timeline["allocation_pct"].dtype.kind == "f"
    assert set(run.jobs["job"] if "job" in run.jobs else run.jobs.iloc[:, 0]) == {"train", "sweep", "notebook", "big"}
    assert run.summary["jobs"] == 4


def test_inputs_as_dataframes_and_dicts(fleet_inputs, run):
    d = fleet_inputs
    nodes = pd.read_csv(d / "nodes.csv", dtype=str, keep_default_na=False)
    jobs = pd.read_csv(d / "jobs.csv", dtype=str, keep_default_na=False)
    topology = json.loads((d / "topology.json").read_text())
    again = gpurent.fleet_run(nodes=nodes, topology=topology, jobs=jobs, timeline_step=300)
    assert without_elapsed(again.to_json()) == without_elapsed(run.to_json())
    assert again.jobs_csv() == run.jobs_csv()


def test_usage_of_a_run_meters(run, tmp_path):
    usage = pd.read_csv(io.StringIO(run.usage_csv()), dtype=str, keep_default_na=False)
    tariff = {"currency": "USD", "timezone": "UTC", "rates": [
        {"resource": "gpu/H100-SXM5-80GB", "mode": "on_demand", "unit_price": "2.49", "per": "1h"},
        {"resource": "gpu/H100-SXM5-80GB", "mode": "spot", "unit_price": "1.10", "per": "1h"},
        {"resource": "gpu/L4", "mode": "on_demand", "unit_price": "0.80", "per": "1h"}]}
    inv = gpurent.meter(tariff, usage, "2026-11")
    assert inv.total > 0


def test_fleet_errors(fleet_inputs):
    d = fleet_inputs
    with pytest.raises(gpurent.Error) as e:
        gpurent.fleet_run(nodes=d / "nodes.csv", jobs=d / "jobs.csv", topology=d / "topology.json", policy="no-such")
    assert e.value.field == "policy"
    with pytest.raises(gpurent.Error) as e:
        gpurent.fleet_run(nodes=d / "nodes.csv", jobs=d / "jobs.csv", topology=d / "topology.json", victims="no-such")
    assert e.value.field == "victims"
    with pytest.raises(gpurent.Error) as e:
        gpurent.fleet_run(nodes=d / "nodes.csv", jobs=d / "jobs.csv", notice="soon")
    assert e.value.field == "notice"
    with pytest.raises(gpurent.Error) as e:
        gpurent.fleet_run(nodes=d / "missing.csv", jobs=d / "jobs.csv")
    assert "missing.csv" in str(e.value)
    bad = d / "bad-jobs.csv"
    bad.write_text("name,workers,num_gpu,duration\na,1,99,60\n")
    with pytest.raises(gpurent.Error) as e:
        gpurent.fleet_run(nodes=d / "nodes.csv", jobs=bad)
    assert e.value.file == str(bad) and e.value.line == 2 and e.value.field == "num_gpu"
    with pytest.raises(TypeError):
        gpurent.fleet_run(nodes=42, jobs=d / "jobs.csv")


def test_gang_placer(fleet_inputs):
    d = fleet_inputs
    p = gpurent.GangPlacer(nodes=d / "nodes.csv", topology=d / "topology.json")
    placed = p.place({"name": "train", "workers": 2, "num_gpu": 8, "gpu_spec": "H100-SXM5-80GB", "required": "block"})
    assert placed["placed"] and len(placed["placements"]) == 2
    assert p.explain({"name": "more", "workers": 2, "num_gpu": 8, "required": "block"})["fits"]
    second = p.place({"name": "second", "workers": 2, "num_gpu": 8, "required": "block"})
    assert second["placed"]
    third = p.place({"name": "third", "workers": 2, "num_gpu": 8, "required": "block"})
    assert not third["placed"] and third["why_not"]
    with pytest.raises(gpurent.Error) as e:
        p.place({"name": "train", "num_gpu": 1})
    assert e.value.field == "name"
    p.release("train")
    assert p.place(json.dumps({"name": "third", "workers": 2, "num_gpu": 8, "required": "block"}))["placed"]
    with pytest.raises(gpurent.Error) as e:
        p.release("nobody")
    assert e.value.code == "not_found"
    with pytest.raises(gpurent.Error) as e:
        p.place({"name": "x", "num_gpu": 1, "colour": "red"})
    assert e.value.field == "colour"
    with pytest.raises(gpurent.Error):
        gpurent.GangPlacer(nodes=d / "nodes.csv", policy="no-such")


def test_report_from_the_run(fleet_inputs, run, tmp_path):
    """FleetRun.report: the page of gpurent.report with the run's own tables, the placement on
    blocks (a topology file was given) and the input files' sha256."""
    pytest.importorskip("matplotlib")
    import hashlib

    out = tmp_path / "run.html"
    run.report(out)
    page = out.read_text()
    assert page.count("<svg") >= 5  # allocation, jobs by class, delays, evictions, placement on blocks
    assert "<script" not in page
    nodes = hashlib.sha256((fleet_inputs / "nodes.csv").read_bytes()).hexdigest()
    assert nodes in page


def test_invoice_report(tmp_path):
    """Invoice.report: the invoice page, its charts inline."""
    pytest.importorskip("matplotlib")
    g = gpurent.meter
    from test_meter import golden_case

    tariff, usage = golden_case("example")
    out = tmp_path / "invoice.html"
    g(tariff, [usage], "2026-11").report(out)
    page = out.read_text()
    assert "<svg" in page and "<script" not in page
