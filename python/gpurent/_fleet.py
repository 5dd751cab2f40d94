# SPDX-License-Identifier: MIT
"""gpurent.fleet_run, the FleetRun it returns, and gpurent.GangPlacer (docs/python.md)."""
from __future__ import annotations

import io
import json
import math
import os
from datetime import timedelta
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple, Union

from . import _args, _core
from ._errors import Error

PathLike = Union[str, "os.PathLike[str]"]
Duration = Union[str, int, timedelta]


def _cell(v: Any) -> Any:
    """A cell as the CSV readers take it: a bool as true or false, a whole float (pandas reads
    an integer column with an empty cell as floats) as its integer; the rest as it is (16000.5
    stays, and is refused by the reader that wants an integer)."""
    if isinstance(v, bool) or type(v).__name__ in ("bool", "bool_"):
        return "true" if v else "false"
    if isinstance(v, float) and math.isfinite(v) and v == int(v):
        return str(int(v))  # text: map() would make a column of ints and NaN float again
    return v


def csv_of(frame: Any) -> str:
    """A DataFrame as the CSV text the library reads (_cell's values; a missing cell empty)."""
    cells = frame.astype(object)
    cells = (cells.map if hasattr(cells, "map") else cells.applymap)(_cell) if frame.size else frame  # map: pandas 2.1 and later
    return cells.to_csv(index=False, lineterminator="\n")


def _input(value: Any, what: str, csv: bool = True) -> Tuple[Optional[str], str]:
    """(text, name) of an input: a file's path (no text), a DataFrame (its CSV) or, for
    JSON inputs, a dict (its JSON); the name is what errors say."""
    if isinstance(value, (str, os.PathLike)):
        return None, _args.path(value, what)
    if csv and type(value).__name__ == "DataFrame":
        return csv_of(value), f"<{what}>"
    if not csv and isinstance(value, Mapping):
        return json.dumps(value), f"<{what}>"
    kinds = "a path or a pandas DataFrame" if csv else "a path or a dict"
    raise TypeError(f"{what}: expected {kinds}, got {type(value).__name__}")


def _duration(value: Duration, what: str) -> str:
    """A duration as the library reads it ("90s", "15min", "1h30min"); an int is seconds."""
    if isinstance(value, timedelta):
        if value % timedelta(seconds=1):
            raise ValueError(f"{what}: a whole number of seconds, got {value}")
        return f"{value // timedelta(seconds=1)}s"
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(f"{what}: expected text such as \"90s\", seconds or a timedelta, got {type(value).__name__}")
    return f"{value}s" if isinstance(value, int) else value


def _frame(csv_text: str) -> Any:
    """A CSV the library wrote, as a DataFrame with its columns (pandas' C reader: no Python
    object per row for the numeric columns)."""
    import pandas as pd

    return pd.read_csv(io.StringIO(csv_text))


class FleetRun:
    """A finished fleet run: the tool's summary, and its tables as DataFrames with the
    columns of `gpurent fleet run`'s --jobs-out, --timeline, --placements and --preemptions."""

    def __init__(self, core: _core.FleetRun, inputs: Dict[str, Any]) -> None:
        self._core = core
        self.inputs = inputs
        self._summary: Optional[Dict[str, Any]] = None

    def to_json(self) -> str:
        """The bytes `gpurent fleet run --format json` prints, but for elapsed_s."""
        return self._core.summary_json()

    @property
    def summary(self) -> Dict[str, Any]:
        """The metrics (the tool's JSON summary) as a dict."""
        if self._summary is None:
            self._summary = json.loads(self.to_json())
        return self._summary

    def jobs_csv(self) -> str:
        """The bytes of --jobs-out."""
        return self._core.jobs_csv()

    def timeline_csv(self) -> str:
        """The bytes of --timeline (at the run's timeline_step and epoch)."""
        return self._core.timeline_csv()

    def placements_csv(self) -> str:
        """The bytes of --placements."""
        return self._core.placements_csv()

    def preemptions_csv(self) -> str:
        """The bytes of --preemptions."""
        return self._core.preemptions_csv()

    def usage_csv(self) -> str:
        """The bytes of --emit-usage: the run as usage records for gpurent.meter."""
        return self._core.usage_csv()

    @property
    def jobs(self) -> Any:
        """One row per job (DataFrame, the columns of --jobs-out)."""
        return _frame(self.jobs_csv())

    @property
    def timeline(self) -> Any:
        """The allocation time series (DataFrame, the columns of --timeline)."""
        return _frame(self.timeline_csv())

    @property
    def placements(self) -> Any:
        """One row per member per run segment (DataFrame, the columns of --placements)."""
        return _frame(self.placements_csv())

    @property
    def preemptions(self) -> Any:
        """One row per preemption (DataFrame, the columns of --preemptions)."""
        return _frame(self.preemptions_csv())

    def report(self, path: PathLike) -> None:
        """A fleet report at `path` (gpurent.report, which needs matplotlib: pip install gpurent[plot]):
        the run's charts, its evictions and, with a topology file, the placement on blocks; the
        input files' digests and the run's settings."""
        from . import report
        from .report.load import digests

        files = {k: self.inputs[k] for k in ("nodes", "jobs", "pods", "topology") if self.inputs.get(k) and not self.inputs[k].startswith("<")}
        shown = {**digests(files), **{k: str(v) for k, v in self.inputs.items() if k not in files and v is not None}}
        blocks = report.load_topology(files["topology"]) if "topology" in files else None
        report.write_fleet_report(os.fspath(path), self.summary, self.timeline, self.jobs, shown, placements=self.placements, blocks=blocks)

    def __repr__(self) -> str:
        return f"<gpurent.FleetRun policy={self.inputs.get('policy')} victims={self.inputs.get('victims')}>"


def fleet_run(
    nodes: Any,
    jobs: Any = None,
    topology: Any = None,
    policy: str = "gpurent",
    victims: str = "gpurent",
    notice: Duration = "30s",
    checkpoint_write: Duration = "60s",
    restart: Duration = "120s",
    min_runtime: Duration = "0s",
    timeline_step: Duration = "60s",
    epoch: str = "2026-11-01T00:00:00Z",
    pods: Any = None,
    compress: Optional[int] = None,
) -> FleetRun:
    """`gpurent fleet run`: the jobs (`--jobs`: a jobs CSV's path or a DataFrame with its
    columns) on the gang placer, or the pods (`--pods`: an Alibaba trace pod list's path or a
    DataFrame, arrivals compressed `compress`-fold) on the node matcher, on the nodes (a nodes
    CSV's path or a DataFrame) and topology (a topology JSON's path or a dict), with the named
    placement and victim policies; the options are the tool's."""
    if (jobs is None) == (pods is None):
        raise TypeError("fleet_run: give jobs or pods (one of them)")
    if (pods is None) != (compress is None):
        raise TypeError("fleet_run: compress goes with pods, and only there (arrivals compressed K-fold, K >= 1)")
    if compress is not None and (isinstance(compress, bool) or not isinstance(compress, int)):
        raise TypeError(f"compress: expected an int, got {type(compress).__name__}")
    nodes_text, nodes_name = _input(nodes, "nodes")
    jobs_text, jobs_name = _input(jobs, "jobs") if jobs is not None else (None, None)
    pods_text, pods_name = _input(pods, "pods") if pods is not None else (None, None)
    topo_text, topo_name = _input(topology, "topology", csv=False) if topology is not None else (None, None)
    settings = {
        "policy": policy, "victims": victims, "notice": _duration(notice, "notice"),
        "checkpoint_write": _duration(checkpoint_write, "checkpoint_write"), "restart": _duration(restart, "restart"),
        "min_runtime": _duration(min_runtime, "min_runtime"), "timeline_step": _duration(timeline_step, "timeline_step"), "epoch": epoch,
    }
    core = _core.fleet_run(nodes_text, nodes_name, topo_text, topo_name, jobs_text, jobs_name, pods_text, pods_name, compress or 0, **settings)
    workload = {"jobs": jobs_name} if jobs is not None else {"pods": pods_name, "compress": compress}
    inputs = {"nodes": nodes_name, **workload, "topology": topo_name, **settings}
    return FleetRun(core, inputs)


def _request(job: Union[str, Mapping[str, Any]], source: str = "request") -> str:
    """A job as the JSON the matchers read; a NaN or infinite number (no JSON) is an error
    naming its field, at `source`'s line 1 as the library's errors about a request are."""
    if isinstance(job, str):
        return job
    if isinstance(job, Mapping):
        for k, v in job.items():
            if isinstance(v, float) and not math.isfinite(v):
                where, message = f"{source}:1", f"not a finite number: {v}"
                raise Error(f"{where}: field '{k}': {message}", where=where, field=str(k), message=message)
        return json.dumps(job)
    raise TypeError(f"job: expected a dict or JSON text, got {type(job).__name__}")


class _Placing:
    """place, release and explain over a library matcher by job name."""

    _core: Any

    def place(self, job: Union[str, Mapping[str, Any]]) -> Dict[str, Any]:
        """Places the job; the answer as a dict, with "placed" True or False (see the class)."""
        return json.loads(self._core.place(_request(job)))

    def release(self, job: str) -> None:
        """Frees the capacity of the placed job named `job` (gpurent.Error when none is)."""
        self._core.release(job)

    def explain(self, job: Union[str, Mapping[str, Any]]) -> Dict[str, Any]:
        """{"job", "fits", ...}: whether the job fits now, and what stops it where it does not."""
        return json.loads(self._core.explain(_request(job)))


class GangPlacer(_Placing):
    """The gang placer of a cluster (the C API's matcher): place jobs, release them, and ask
    why one does not fit. A job is a dict (or JSON text) shaped as docs/formats/fleet.md's job
    JSON; answers are dicts, as the audit log writes placements and reasons: {"job", "placed":
    True, "placements", "preferred_met"} or {"job", "placed": False, "why_not"}."""

    def __init__(self, nodes: Any, topology: Any = None, policy: str = "gpurent") -> None:
        nodes_text, nodes_name = _input(nodes, "nodes")
        topo_text, topo_name = _input(topology, "topology", csv=False) if topology is not None else (None, None)
        self._core = _core.GangPlacer(nodes_text, nodes_name, topo_text, topo_name, policy)


class Matcher(_Placing):
    """The single-node matcher of a cluster (`replay`'s and `fleet run --pods`'): one-member jobs
    (dicts shaped as the job JSON, no workers or topology) each on one node by the named policy
    (gpurent, fgd, best-fit, dot-product, random, first-fit, worst-fit). The workload-aware
    policies (gpurent, fgd) keep room for a `workload`: the jobs (dicts) the cluster expects.
    Answers: {"job", "placed": True, "placement": {"node", "gpus"}} or {"job", "placed": False,
    "explain"}, where "explain" counts per constraint the nodes it rejected."""

    def __init__(self, nodes: Any, policy: str = "gpurent", workload: Optional[Iterable[Union[str, Mapping[str, Any]]]] = None) -> None:
        nodes_text, nodes_name = _input(nodes, "nodes")
        self._core = _core.Matcher(nodes_text, nodes_name, policy, [_request(j, f"workload[{i}]") for i, j in enumerate([] if workload is None else workload)])
