# SPDX-License-Identifier: MIT
"""Readers of the tool's output files, each checked against its documented columns.

Every error is a `ReportInputError` that names the file and what is wrong with it, so the
command line can say so and exit 2 (never a traceback). The formats are those of
docs/formats/fleet.md, docs/formats/billing.md and docs/formats/monitoring.md.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

TIMELINE_COLUMNS = ("time", "t_s", "gpus_allocated", "allocation_pct", "running_hp",
                    "running_spot", "waiting_hp", "waiting_spot")
JOBS_COLUMNS = ("job", "class", "arrival", "first_start", "delay_s", "end", "runs",
                "evictions", "lost_gpu_s", "outcome", "reason")
PLACEMENTS_COLUMNS = ("job", "run", "member", "node", "gpus", "start", "end", "end_reason")
SAMPLES_COLUMNS = ("gpu", "t", "value")


class ReportInputError(Exception):
    """An input file the report cannot use: `path` and the reason."""

    def __init__(self, path, message: str):
        super().__init__(f"{path}: {message}")
        self.path = str(path)
        self.message = message


@dataclass(frozen=True)
class FleetRunFiles:
    """What `load_fleet_run` read: the summary JSON, the two CSVs and the inputs' digests.
    (Not the bindings' run: the files a `gpurent fleet run` wrote.)"""
    summary: dict
    timeline: pd.DataFrame
    jobs: pd.DataFrame
    inputs: dict


def sha256_of(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_json_object(path, what: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except OSError as e:
        raise ReportInputError(path, f"cannot be read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ReportInputError(path, "is not UTF-8 text") from None
    except json.JSONDecodeError as e:
        raise ReportInputError(path, f"line {e.lineno}: not JSON ({e.msg})") from None
    if not isinstance(value, dict):
        raise ReportInputError(path, f"is not {what} (a JSON object was expected)")
    return value


def require_keys(path, value: dict, keys, what: str) -> None:
    missing = [k for k in keys if k not in value]
    if missing:
        raise ReportInputError(path, f"is not {what}: no key {', '.join(map(repr, missing))}")


def read_csv_columns(path, columns, what: str, numeric=()) -> pd.DataFrame:
    """A CSV with exactly the documented columns (in any order); `numeric` ones parsed as numbers."""
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except OSError as e:
        raise ReportInputError(path, f"cannot be read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ReportInputError(path, "is not UTF-8 text") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise ReportInputError(path, f"is not {what}: {str(e).strip() or 'empty'}") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ReportInputError(path, f"line 1: is not {what}: no column {', '.join(missing)}")
    frame = frame[list(columns)].copy()
    for column in numeric:
        frame[column] = to_numbers(path, frame, column)
    return frame


def to_numbers(path, frame: pd.DataFrame, column: str) -> pd.Series:
    """Numbers; an empty cell is NaN (the tool leaves `first_start` of a job that never ran empty)."""
    text = frame[column].str.strip()
    values = pd.to_numeric(text.where(text != ""), errors="coerce")
    bad = values.isna() & (text != "")
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise ReportInputError(path, f"line {row + 2}: field '{column}': not a number: {text.iloc[row]!r}")
    return values


def load_summary(path) -> dict:
    summary = read_json_object(path, "a `gpurent fleet run` summary")
    require_keys(path, summary, ("gpus_total", "classes", "end_s"), "a `gpurent fleet run` summary")
    return summary


def load_timeline(path) -> pd.DataFrame:
    numeric = TIMELINE_COLUMNS[1:]
    frame = read_csv_columns(path, TIMELINE_COLUMNS, "a `fleet run --timeline` CSV", numeric)
    if frame[list(numeric)].isna().any().any():
        raise ReportInputError(path, "is not a `fleet run --timeline` CSV: an empty number")
    return frame


def load_jobs(path) -> pd.DataFrame:
    numeric = ("arrival", "first_start", "delay_s", "end", "runs", "evictions", "lost_gpu_s")
    return read_csv_columns(path, JOBS_COLUMNS, "a `fleet run --jobs-out` CSV", numeric)


def load_placements(path) -> pd.DataFrame:
    numeric = ("run", "member", "start", "end")
    return read_csv_columns(path, PLACEMENTS_COLUMNS, "a `fleet run --placements` CSV", numeric)


def load_topology(path) -> dict:
    """Node name -> its base block (the last level), from a topology JSON."""
    topology = read_json_object(path, "a topology")
    require_keys(path, topology, ("levels", "nodes"), "a topology")
    nodes = topology["nodes"]
    if not isinstance(nodes, dict) or not all(isinstance(v, list) and v for v in nodes.values()):
        raise ReportInputError(path, "field 'nodes': not an object of arrays of domain names")
    return {node: str(domains[-1]) for node, domains in nodes.items()}


def load_fleet_run(summary_json_path, timeline_csv_path, jobs_csv_path) -> FleetRunFiles:
    """The three outputs of one `gpurent fleet run`, with the sha256 of each file."""
    paths = {"summary": summary_json_path, "timeline": timeline_csv_path, "jobs": jobs_csv_path}
    return FleetRunFiles(load_summary(summary_json_path), load_timeline(timeline_csv_path),
                         load_jobs(jobs_csv_path), digests(paths))


def digests(paths: dict) -> dict:
    """Input name -> 'FILE sha256:HEX' for the report's inputs table."""
    return {name: f"{Path(p).name} sha256:{sha256_of(p)}" for name, p in paths.items()}


def load_invoice(path) -> dict:
    invoice = read_json_object(path, "a `gpurent meter --format json` invoice")
    require_keys(path, invoice, ("currency", "period", "accounts"), "a `gpurent meter --format json` invoice")
    for i, account in enumerate(invoice["accounts"]):
        if not isinstance(account, dict) or "lines" not in account or "account" not in account:
            raise ReportInputError(path, f"field 'accounts[{i}]': no 'account' or 'lines'")
    return invoice


def load_idle(path) -> dict:
    idle = read_json_object(path, "a `gpurent idle --format json` report")
    require_keys(path, idle, ("gpus", "observed_s", "idle_s", "threshold"), "a `gpurent idle --format json` report")
    for i, gpu in enumerate(idle["gpus"]):
        if not isinstance(gpu, dict) or "gpu" not in gpu or "periods" not in gpu:
            raise ReportInputError(path, f"field 'gpus[{i}]': no 'gpu' or 'periods'")
    return idle
