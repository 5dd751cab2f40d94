# SPDX-License-Identifier: MIT
"""The three reports: a fleet run, an invoice, an idle analysis, each one HTML file."""
from __future__ import annotations

from decimal import Decimal

import pandas as pd

from . import fleet_charts as fc
from . import idle_charts as ic
from . import invoice_charts as vc
from .html import Page

DAY = 86_400


def write_fleet_report(path, summary: dict, timeline: pd.DataFrame, jobs: pd.DataFrame, inputs: dict,
                       *, placements: pd.DataFrame | None = None, blocks: dict | None = None) -> None:
    """A `gpurent fleet run`: its summary JSON, `--timeline` and `--jobs-out` tables and, when
    given, its `--placements` (evictions over time; with `blocks`, node -> base block from the
    topology, the placement at the busiest instant)."""
    page = Page("Fleet run", f"policy {summary.get('policy')}, victims {summary.get('victims')}, "
                f"{summary['gpus_total']:,} GPUs, ended at day {summary['end_s'] / DAY:.2f}")
    fleet_summary(page, summary)
    page.heading("Over time")
    page.chart(fc.fleet_allocation(timeline), "Share of the fleet's GPUs allocated (--timeline allocation_pct).")
    page.chart(fc.fleet_jobs_by_class(timeline), "Jobs running and waiting per class (--timeline).")
    page.chart(fc.fleet_delay_distribution(jobs), "Share of the started jobs of each class that started "
               "within a delay (--jobs-out delay_s).")
    if placements is None:
        page.note("Evictions over time and the placement on blocks need the run's --placements file.")
    else:
        page.chart(fc.fleet_evictions(placements, jobs, summary["end_s"]),
                   "Run segments stopped (--placements end_reason) and the work lost (--jobs-out lost_gpu_s, "
                   "counted at each job's last stop).")
        if blocks is not None:
            page.chart(fc.fleet_placement(placements, jobs, blocks), "Nodes of each base block "
                       "(topology) at the instant the most members ran (--placements).")
    page.inputs(inputs)
    page.write(path)


def fleet_summary(page: Page, summary: dict) -> None:
    page.heading("Summary")
    keys = ("policy", "victims", "gpus_total", "offered_load_pct", "allocation_pct", "jobs",
            "preemptions", "failures", "violations", "never_scheduled", "gpu_s", "end_s")
    page.table(["", "value"], [(k, summary[k]) for k in keys if k in summary])
    rows = []
    for name, c in summary["classes"].items():
        d = c.get("delay_s", {})
        rows.append((name, c.get("arrived"), c.get("completed"), c.get("never_started"), d.get("mean"),
                     d.get("p50"), d.get("p95"), d.get("p99"), c.get("evictions", ""), c.get("lost_gpu_s", "")))
    page.table(["class", "arrived", "completed", "never started", "delay mean (s)", "p50", "p95", "p99",
                "evictions", "lost GPU-s"], rows)
    never = summary.get("never_started_jobs", [])
    if never:
        page.table(["job never started", "class", "why"], [(j["job"], j["class"], j["why"]) for j in never[:20]])
        if len(never) > 20:
            page.note(f"... and {len(never) - 20} more in the summary JSON.")


def write_invoice_report(path, invoice: dict, inputs: dict | None = None) -> None:
    """A `gpurent meter --format json` invoice; billed vs used needs `--detail`."""
    page = Page(f"Invoice {invoice['period']}", f"{len(invoice['accounts']):,} accounts, in "
                f"{invoice['currency']}, month in {invoice.get('timezone', '?')}")
    invoice_summary(page, invoice)
    page.heading("Cost")
    groups = ["account", "resource", "mode"] + label_keys(invoice)
    for by in groups:
        page.chart(vc.invoice_cost_breakdown(invoice, by), f"Cost by {by}"
                   + (" (label key; a line's part per label set)." if by not in ("account", "resource", "mode") else "."))
    page.heading("Billed vs used")
    try:
        page.chart(vc.invoice_billed_vs_used(invoice), "Time billed beyond the time used: increments and minimums.")
    except ValueError as e:
        page.note(f"Not shown: {e}.")
    if inputs:
        page.inputs(inputs)
    page.write(path)


def label_keys(invoice: dict) -> list:
    keys = {k for a in invoice["accounts"] for line in a["lines"] for part in line.get("labels", [])
            for k in part["labels"]}
    return sorted(keys)


def invoice_summary(page: Page, invoice: dict) -> None:
    page.heading("Summary")
    total = sum((vc.money(a.get("total", "0")) for a in invoice["accounts"]), Decimal(0))
    credit = sum((vc.money(a.get("credit_applied", "0")) for a in invoice["accounts"]), Decimal(0))
    due = sum((vc.money(a.get("due", "0")) for a in invoice["accounts"]), Decimal(0))
    rows = [("period", invoice["period"]), ("currency", invoice["currency"]),
            ("time zone", invoice.get("timezone", "")), ("accounts", len(invoice["accounts"])),
            ("total", total), ("credit applied", credit), ("due", due),
            ("records out of period", invoice.get("records_out_of_period", ""))]
    page.table(["", "value"], rows)
    lines: dict = {}
    for a in invoice["accounts"]:
        for line in a["lines"]:
            r = lines.setdefault((line["resource"], line["mode"]), [0, 0, Decimal(0)])
            r[0] += int(line["records"])
            r[1] += int(line["billed_seconds"])
            r[2] += vc.money(line["amount"])
    page.table(["resource", "mode", "records", "billed seconds", "amount"],
               [(r, m, *v) for (r, m), v in sorted(lines.items())])


def write_idle_report(path, idle: dict, inputs: dict | None = None, samples: pd.DataFrame | None = None) -> None:
    """A `gpurent idle --format json` report; with `samples` (the metrics it read,
    `metrics.load_metrics`) the heat map shows utilization under the idle periods."""
    page = Page("Idle GPUs", f"{len(idle['gpus']):,} GPUs, idle below {idle['threshold']}% for over "
                f"{idle['min_idle_s']} s")
    idle_summary(page, idle)
    page.heading("GPUs over time")
    page.chart(ic.idle_heatmap(idle, samples), "Utilization per GPU (white: no sample), idle periods hatched.")
    if samples is None:
        page.note("No metrics file given: the idle periods only, without the utilization under them.")
    if inputs:
        page.inputs(inputs)
    page.write(path)


def idle_summary(page: Page, idle: dict) -> None:
    page.heading("Summary")
    rows = [("threshold (%)", idle["threshold"]), ("min idle (s)", idle.get("min_idle_s")),
            ("max gap (s)", idle.get("max_gap_s")), ("observed (s)", idle["observed_s"]),
            ("idle (s)", idle["idle_s"]), ("idle share", idle.get("idle_share"))]
    if "unit" in idle:
        rows.append(("unit", idle["unit"]))
    page.table(["", "value"], rows)
    for warning in idle.get("warnings", []):
        page.note(f"warning: {warning}")
    page.table(["GPU", "observed (s)", "idle (s)", "idle share", "idle periods"],
               [(g["gpu"], g["observed_s"], g["idle_s"], g["idle_share"], len(g["periods"])) for g in idle["gpus"]])
    billed = idle.get("billed_idle")
    if billed:
        page.heading(f"What the idle time cost ({billed['currency']}, {billed['period']})")
        page.table(["account", "resource", "mode", "billed (s)", "amount", "idle (s)", "idle billed (s)",
                    "idle amount", "unobserved (s)"],
                   [(x["account"], x["resource"], x["mode"], x["billed_seconds"], vc.money(x["amount"]),
                     x["idle_seconds"], x["idle_billed_seconds"], vc.money(x["idle_amount"]),
                     x["unobserved_seconds"]) for x in billed["lines"]]
                   + [("total", "", "", billed["billed_seconds"], vc.money(billed["amount"]), billed["idle_seconds"],
                       "", vc.money(billed["idle_amount"]), billed["unobserved_seconds"])])
        page.note("The tool prices idle time per billed line (account, resource, mode), not per GPU or period.")
