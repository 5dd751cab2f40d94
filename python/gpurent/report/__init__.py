# SPDX-License-Identifier: MIT
"""Charts and self-contained HTML reports of gpurent's outputs (docs/reports.md).

Python on the tool's output files (fleet run, meter, idle) and pandas DataFrames of their
columns, with matplotlib, pandas and numpy; the metrics file under an idle report is read by
the library's own readers, through the bindings (metrics.py).
"""
from .fleet_charts import (fleet_allocation, fleet_delay_distribution, fleet_evictions,
                           fleet_jobs_by_class, fleet_placement)
from .idle_charts import idle_heatmap
from .invoice_charts import invoice_billed_vs_used, invoice_cost_breakdown
from .load import (FleetRunFiles, ReportInputError, load_fleet_run, load_idle, load_invoice,
                   load_jobs, load_placements, load_summary, load_timeline, load_topology)
from .metrics import load_metrics
from .pages import write_fleet_report, write_idle_report, write_invoice_report

__all__ = [
    "FleetRunFiles", "ReportInputError",
    "fleet_allocation", "fleet_delay_distribution", "fleet_evictions", "fleet_jobs_by_class",
    "fleet_placement", "idle_heatmap", "invoice_billed_vs_used", "invoice_cost_breakdown",
    "load_fleet_run", "load_idle", "load_invoice", "load_jobs", "load_metrics", "load_placements",
    "load_summary", "load_timeline", "load_topology",
    "write_fleet_report", "write_idle_report", "write_invoice_report",
]
