# SPDX-License-Identifier: MIT
"""gpurent: GPU compute rental, exact billing and matching (docs/python.md).

The library (C++) bound with nanobind: the invoices are byte for byte those of the
`gpurent` tool, amounts are decimal.Decimal, tables are pandas DataFrames with the tool's
CSV columns, and bad input raises gpurent.Error with its file, line and field.
"""
from __future__ import annotations

from . import _core
from ._errors import Error
from ._fleet import FleetRun, GangPlacer, Matcher, fleet_run
from ._idle import IdleReport, idle
from ._meter import Invoice, load_tariff, meter
from ._plan import OverBudget, Plan, plan
from ._spec import catalog, mig_fit, mig_profiles

Tariff = _core.Tariff
__version__: str = _core.version

__all__ = [
    "Error", "FleetRun", "GangPlacer", "IdleReport", "Invoice", "Matcher", "OverBudget", "Plan", "Tariff", "catalog", "fleet_run", "idle", "load_tariff", "meter",
    "mig_fit", "mig_profiles", "plan", "__version__",
]
