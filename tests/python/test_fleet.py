# SPDX-License-Identifier: MIT
"""gpurent.fleet_run and gpurent.GangPlacer: the tool's summary and tables, errors."""
import io
import json

import pandas as pd
import pytest

import gpurent
from conftest import ROOT, run_tool



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


def write_pods(d, pods=60):
    """A trace-shaped cluster (the Alibaba node list's columns) and pod list: whole and shared
    GPUs, LS, Burstable and BE pods (BE preemptible), one pod never scheduled."""
    nodes = ["sn,cpu_milli,memory_mib,gpu,model"] + [f"node-{i},64000,262144,{2 + 2 * (i % 3)},{'V100M32' if i % 2 else 'T4'}"
                                                     for i in range(6)]
    (d / "trace-nodes.csv").write_text("\n".join(nodes) + "\n")
    rows = ["name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time"]
    for i in range(pods):
        num, milli = (1, 250 * (1 + i % 4)) if i % 3 else (1 + i % 4, 1000)
        qos = ("LS", "Burstable", "BE")[i % 3]
        created = 600 * i
        scheduled = "" if i == 7 else str(created + 5)
        deleted = created + 5 + 1800 * (1 + i % 5)
        rows.append(f"pod-{i:03},{2000 + 100 * (i % 7)},{4096 * (1 + i % 3)},{num},{milli},,{qos},Running,{created},{deleted},{scheduled}")
    (d / "pods.csv").write_text("\n".join(rows) + "\n")
    return d / "trace-nodes.csv", d / "pods.csv"


@pytest.mark.parametrize("policy,victims", [("gpurent", "gpurent"), ("fgd", "kube"), ("best-fit", "none")])
def test_pods_same_as_the_tool(tool, tmp_path, policy, victims):
    nodes, pods = write_pods(tmp_path)
    jobs_out = tmp_path / "jobs-out.csv"
    summary = run_tool(tool, "fleet", "run", "--nodes", nodes, "--pods", pods, "--compress", 4, "--policy", policy,
                       "--victims", victims, "--jobs-out", jobs_out, "--quiet")
    r = gpurent.fleet_run(nodes=nodes, pods=pods, compress=4, policy=policy, victims=victims)
    assert without_elapsed(r.to_json()) == without_elapsed(summary)
    assert r.jobs_csv() == jobs_out.read_text()
    assert r.summary["compress"] == 4 and r.summary["never_scheduled"] == 1 and r.summary["jobs"] == 59
    frames = gpurent.fleet_run(nodes=pd.read_csv(nodes, dtype=str, keep_default_na=False), compress=4, policy=policy, victims=victims,
                               pods=pd.read_csv(pods, dtype=str, keep_default_na=False))
    assert frames.jobs_csv() == r.jobs_csv()


def test_pods_errors(tmp_path):
    nodes, pods = write_pods(tmp_path)
    with pytest.raises(TypeError):
        gpurent.fleet_run(nodes=nodes, pods=pods)  # no compress
    with pytest.raises(TypeError):
        gpurent.fleet_run(nodes=nodes, jobs=pods, pods=pods, compress=2)
    with pytest.raises(gpurent.Error) as e:
        gpurent.fleet_run(nodes=nodes, pods=pods, compress=0)
    assert e.value.field == "compress"
    with pytest.raises(gpurent.Error) as e:
        gpurent.fleet_run(nodes=nodes, pods=pods, compress=2, policy="slurm-block")
    assert e.value.field == "policy" and "best-fit" in str(e.value)
    bad = tmp_path / "bad-pods.csv"
    lines = pods.read_text().splitlines()
    lines[3] = lines[3].replace(",LS,", ",Platinum,").replace(",Burstable,", ",Platinum,").replace(",BE,", ",Platinum,")
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(gpurent.Error) as e:
        gpurent.fleet_run(nodes=nodes, pods=bad, compress=2)
    assert (e.value.file, e.value.line, e.value.field) == (str(bad), 4, "qos")


TRACE = ROOT.parent / "shared" / "data" / "alibaba-gpu-v2023"


def test_the_trace_same_as_the_tool(tool, tmp_path):
    if not (TRACE / "openb_pod_list_default.csv").exists():
        pytest.skip(f"the Alibaba trace is not at {TRACE}: the trace run was not compared")
    nodes, pods = TRACE / "openb_node_list_gpu_node.csv", TRACE / "openb_pod_list_default.csv"
    summary = run_tool(tool, "fleet", "run", "--nodes", nodes, "--pods", pods, "--compress", 8, "--quiet")
    r = gpurent.fleet_run(nodes=nodes, pods=pods, compress=8)
    assert without_elapsed(r.to_json()) == without_elapsed(summary)
    assert r.summary["jobs"] > 7000


def test_matcher_first_fit_is_a_python_model(tmp_path):
    """first-fit, whole GPUs: each job on the first node with room, as a model in Python says."""
    nodes, _ = write_pods(tmp_path)
    frame = pd.read_csv(nodes)
    free = dict(zip(frame["sn"], frame["gpu"]))
    m = gpurent.Matcher(nodes, policy="first-fit")
    placed = []
    for i, want in enumerate([2, 4, 1, 6, 3, 2, 4, 8, 1, 1]):
        name = f"j{i}"
        fits = next((n for n in frame["sn"] if free[n] >= want), None)
        assert m.explain({"name": name, "num_gpu": want})["fits"] == (fits is not None)
        answer = m.place({"name": name, "num_gpu": want, "cpu_milli": 1000, "memory_mib": 1024})
        assert answer["placed"] == (fits is not None), answer
        if fits is None:
            assert answer["explain"]["feasible"] == 0 and sum(answer["explain"]["rejected"].values()) == len(free)
            continue
        assert answer["placement"]["node"] == fits and len(answer["placement"]["gpus"].split(";")) == want
        free[fits] -= want
        placed.append((name, fits, want))
    name, node, want = placed[0]
    m.release(name)
    free[node] += want
    assert m.place({"name": "again", "num_gpu": want})["placement"]["node"] == next(n for n in frame["sn"] if free[n] >= want)


def test_matcher_shares_gpus_and_plans_for_a_workload(tmp_path):
    nodes, _ = write_pods(tmp_path)
    workload = [{"name": f"w{i}", "num_gpu": 1, "gpu_milli": 250 * (1 + i % 4)} for i in range(8)]
    m = gpurent.Matcher(nodes, policy="fgd", workload=workload)
    halves = [m.place({"name": f"h{i}", "num_gpu": 1, "gpu_milli": 500}) for i in range(4)]
    assert all(h["placed"] for h in halves)
    assert all(h["placement"]["gpus"].endswith(":500") for h in halves)


def test_matcher_errors(tmp_path):
    nodes, _ = write_pods(tmp_path)
    with pytest.raises(gpurent.Error) as e:
        gpurent.Matcher(nodes, policy="gpurent")
    assert e.value.field == "workload"
    with pytest.raises(gpurent.Error) as e:
        gpurent.Matcher(nodes, policy="slurm-block")
    assert e.value.field == "policy" and "first-fit" in str(e.value)
    m = gpurent.Matcher(nodes, policy="best-fit")
    with pytest.raises(gpurent.Error) as e:
        m.place({"name": "gang", "workers": 2, "num_gpu": 1})
    assert e.value.field == "workers"
    m.place({"name": "a", "num_gpu": 1})
    with pytest.raises(gpurent.Error) as e:
        m.place({"name": "a", "num_gpu": 1})
    assert e.value.code == "duplicate"
    with pytest.raises(gpurent.Error) as e:
        m.release("nobody")
    assert e.value.field == "job"
    with pytest.raises(gpurent.Error) as e:
        m.place('{"name": "b", "num_gpu": "x"}')
    assert e.value.field == "num_gpu"
