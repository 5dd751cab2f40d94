# SPDX-License-Identifier: MIT
"""The HTML reports and `python -m gpurent report`: valid HTML, charts inline as SVG, nothing
remote, no script, the inputs' digests, byte-identical reruns; bad input exits 2 naming the
file. Run by scripts/check-python against the installed package"""
import hashlib
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_report_charts import BLOCKS, T0, idle, invoice, jobs, placements, samples, timeline  # noqa: E402

from gpurent import report  # noqa: E402

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Balance(HTMLParser):
    """Every element closed in order (void elements and `<x/>` aside)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.tags = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
        else:
            self.stack.pop()


def check_page(text: str, charts: int) -> None:
    assert text.startswith("<!DOCTYPE html>")
    parser = Balance()
    parser.feed(text)
    parser.close()
    assert not parser.errors and not parser.stack, (parser.errors, parser.stack)
    assert parser.tags.count("svg") == charts and text.count("<svg") == charts
    assert "<script" not in text.lower() and "<iframe" not in text.lower()
    remote = re.findall(r"""(?:\b(?:src|href)\s*=\s*["']?|url\(\s*["']?)\s*(?:https?:)?//""", text, re.I)
    assert not remote, remote
    assert "@media print" in text and "Content-Security-Policy" in text
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids)), "an id repeated across charts"


def write_inputs(d: Path) -> dict:
    summary = {"policy": "gpurent", "victims": "gpurent", "gpus_total": 8, "offered_load_pct": 50.0,
               "allocation_pct": 40.0, "classes": {
                   "hp": {"arrived": 3, "completed": 3, "never_started": 0,
                          "delay_s": {"mean": 40.0, "p50": 30, "p95": 90, "p99": 90}},
                   "spot": {"arrived": 3, "completed": 2, "never_started": 1,
                            "delay_s": {"mean": 3600.0, "p50": 0, "p95": 7200, "p99": 7200},
                            "evictions": 3, "lost_gpu_s": 10800.0}},
               "never_started_jobs": [{"job": "n", "class": "spot", "why": "too big"}],
               "jobs": 6, "preemptions": 2, "gpu_s": 1000.0, "end_s": 9000}
    paths = {"summary": d / "summary.json", "timeline": d / "timeline.csv", "jobs": d / "jobs.csv",
             "placements": d / "placements.csv", "topology": d / "topology.json",
             "invoice": d / "invoice.json", "idle": d / "idle.json", "metrics": d / "metrics.json"}
    paths["summary"].write_text(json.dumps(summary, indent=2))
    timeline(rows=10).to_csv(paths["timeline"], index=False)
    jobs().to_csv(paths["jobs"], index=False)
    placements().to_csv(paths["placements"], index=False)
    topology = {"levels": ["block"], "nodes": {n: [b] for n, b in BLOCKS.items()}}
    paths["topology"].write_text(json.dumps(topology))
    paths["invoice"].write_text(json.dumps(invoice(), indent=2))
    paths["idle"].write_text(json.dumps(idle(), indent=2))
    series = [{"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "UUID": g} if g.startswith("GPU") else
               {"__name__": "DCGM_FI_DEV_GPU_UTIL", "Hostname": "node-b", "gpu": "1"},
               "values": [[int(t), f"{v:g}"] for t, v in zip(s["t"], s["value"])]}
              for g, s in samples().groupby("gpu", sort=False)]
    paths["metrics"].write_text(json.dumps({"status": "success", "data": {"resultType": "matrix", "result": series}}))
    return paths


def gpurent(*args):
    """The command in a process of its own, as a user runs it."""
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "gpurent", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)


def command(kind: str, p: dict, out) -> list:
    if kind == "fleet":
        return ["report", "fleet", "--summary", p["summary"], "--timeline", p["timeline"], "--jobs", p["jobs"],
                "--placements", p["placements"], "--topology", p["topology"], "--out", out]
    if kind == "invoice":
        return ["report", "invoice", "--invoice", p["invoice"], "--out", out]
    return ["report", "idle", "--idle", p["idle"], "--metrics", p["metrics"], "--out", out]


CHARTS = {"fleet": 5, "invoice": 6, "idle": 1}  # invoice: account, resource, mode, project, team; billed vs used


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return write_inputs(tmp_path_factory.mktemp("inputs"))


@pytest.mark.parametrize("kind", sorted(CHARTS))
def test_report_is_valid_self_contained_html_with_digests(kind, inputs, tmp_path):
    out = tmp_path / f"{kind}.html"
    done = gpurent(*command(kind, inputs, out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    text = out.read_text(encoding="utf-8")
    check_page(text, CHARTS[kind])
    used = {"fleet": ["summary", "timeline", "jobs", "placements", "topology"], "invoice": ["invoice"],
            "idle": ["idle", "metrics"]}[kind]
    for name in used:
        assert f"{inputs[name].name} sha256:{hashlib.sha256(inputs[name].read_bytes()).hexdigest()}" in text


@pytest.mark.parametrize("kind", sorted(CHARTS))
def test_report_is_byte_identical_on_a_rerun(kind, inputs, tmp_path, capsys):
    first, second = tmp_path / "a.html", tmp_path / "b.html"
    assert gpurent(*command(kind, inputs, first)).returncode == 0  # another process: another hash seed
    assert gpurent_here(capsys, *command(kind, inputs, second))[0] == 0
    assert first.read_bytes() == second.read_bytes()


def test_fleet_report_from_python_without_placements(inputs, tmp_path):
    run = report.load_fleet_run(inputs["summary"], inputs["timeline"], inputs["jobs"])
    assert list(run.timeline.columns) == list(report.load.TIMELINE_COLUMNS)
    assert run.jobs["first_start"].isna().sum() == 1  # the job that never started
    out = tmp_path / "fleet.html"
    report.write_fleet_report(out, run.summary, run.timeline, run.jobs, run.inputs)
    text = out.read_text(encoding="utf-8")
    check_page(text, 3)
    assert "need the run&#x27;s --placements file" in text and "too big" in text


def test_a_run_where_nothing_ran_still_gives_a_page(tmp_path):
    """A valid but empty run: one job that never started, no placement, a timeline of one row."""
    files = {"summary": json.dumps({"gpus_total": 8, "end_s": 0, "classes": {"hp": {
                 "arrived": 1, "completed": 0, "never_started": 1, "delay_s": {}}},
                 "never_started_jobs": [{"job": "big", "class": "hp", "why": "too big"}]}),
             "timeline": ",".join(report.load.TIMELINE_COLUMNS) + "\n2026-11-01T00:00:00Z,0,0.000,0.000,0,0,0,0\n",
             "jobs": ",".join(report.load.JOBS_COLUMNS) + "\nbig,hp,0,,,,0,0,0.000,never_started,too big\n",
             "placements": ",".join(report.load.PLACEMENTS_COLUMNS) + "\n",
             "topology": '{"levels": ["block"], "nodes": {"n0": ["b0"]}}'}
    p = {}
    for name, text in files.items():
        p[name] = tmp_path / name
        p[name].write_text(text)
    out = tmp_path / "empty.html"
    done = gpurent(*command("fleet", p, out))
    assert done.returncode == 0 and done.stderr == "", done.stderr  # no warning either
    text = out.read_text(encoding="utf-8")
    check_page(text, 5)
    assert "no job started" in text or "too big" in text


def test_invoice_without_detail_says_what_is_missing(tmp_path):
    out = tmp_path / "invoice.html"
    report.write_invoice_report(out, invoice(detail=False))
    text = out.read_text(encoding="utf-8")
    check_page(text, 5)
    assert "gpurent meter --detail" in text


def test_idle_report_without_metrics(inputs, tmp_path):
    out = tmp_path / "idle.html"
    assert gpurent("report", "idle", "--idle", inputs["idle"], "--out", out).returncode == 0
    check_page(out.read_text(encoding="utf-8"), 1)


def test_metrics_text_and_json_read_the_same_samples(inputs, tmp_path):
    prom = tmp_path / "day.prom"
    lines = ["# TYPE DCGM_FI_DEV_GPU_UTIL gauge"]
    for _, row in samples().iterrows():
        labels = f'UUID="{row.gpu}"' if row.gpu.startswith("GPU") else 'Hostname="node-b",gpu="1"'
        lines.append(f"DCGM_FI_DEV_GPU_UTIL{{{labels}}} {row.value:g} {int(row.t) * 1000}")
        lines.append(f'DCGM_FI_DEV_FB_USED{{{labels}}} 123 {int(row.t) * 1000}')
    prom.write_text("\n".join(lines) + "\n")
    from_text = report.load_metrics(prom)
    from_json = report.load_metrics(inputs["metrics"])
    assert from_text.equals(from_json) and len(from_text) == 40 and from_text["t"].min() == T0


BAD = {
    "missing file": ("summary", None),
    "not JSON": ("summary", "{ nope"),
    "a JSON list": ("invoice", "[1, 2]"),
    "no gpus": ("idle", '{"threshold": 5}'),
    "a column missing": ("timeline", "time,t_s\n2026-11-01T00:00:00Z,0\n"),
    "not a number": ("jobs", None),
    "wrong metrics": ("metrics", '{"status": "success"}'),
    "binary": ("placements", b"\xff\xfe\x00junk"),
}


def gpurent_here(capsys, *args):
    """The same command in this process (no interpreter start): (status, stderr)."""
    from gpurent.__main__ import main
    status = main([str(a) for a in args])
    return status, capsys.readouterr().err


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_naming_the_file(case, inputs, tmp_path, capsys):
    name, content = BAD[case]
    bad = dict(inputs)
    bad[name] = tmp_path / f"bad-{inputs[name].name}"
    if case == "not a number":
        bad[name].write_text(",".join(report.load.JOBS_COLUMNS) + "\na,hp,0,2h,0,1,1,0,0.000,completed,\n")
    elif isinstance(content, bytes):
        bad[name].write_bytes(content)
    elif content is not None:
        bad[name].write_text(content)
    kind = {"summary": "fleet", "timeline": "fleet", "jobs": "fleet", "placements": "fleet",
            "invoice": "invoice", "idle": "idle", "metrics": "idle"}[name]
    out = tmp_path / "out.html"
    status, err = gpurent_here(capsys, *command(kind, bad, out))
    assert status == 2, err
    assert str(bad[name]) in err and err.startswith("gpurent report: ") and err.count("\n") == 1
    assert not out.exists()


def test_bad_input_in_a_process_of_its_own_is_one_line_no_traceback(inputs, tmp_path):
    bad = dict(inputs, summary=tmp_path / "missing.json")
    done = gpurent(*command("fleet", bad, tmp_path / "out.html"))
    assert done.returncode == 2 and done.stderr.startswith(f"gpurent report: {bad['summary']}: cannot be read")
    assert "Traceback" not in done.stderr and not (tmp_path / "out.html").exists()


def test_a_report_that_cannot_be_written_is_not_exit_0(inputs, tmp_path, capsys):
    out = tmp_path / "no-such-folder" / "r.html"
    status, err = gpurent_here(capsys, *command("invoice", inputs, out))
    assert status == 4 and str(out) in err


def test_topology_needs_placements(inputs, tmp_path, capsys):
    status, err = gpurent_here(capsys, "report", "fleet", "--summary", inputs["summary"], "--timeline",
                               inputs["timeline"], "--jobs", inputs["jobs"], "--topology", inputs["topology"],
                               "--out", tmp_path / "r.html")
    assert status == 2 and "--topology needs --placements" in err
