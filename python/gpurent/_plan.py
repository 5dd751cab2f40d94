# SPDX-License-Identifier: MIT
"""gpurent.plan: `gpurent plan` on a workload and offers (docs/planning.md)."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Mapping, Optional, Tuple

from . import _args, _core
from ._errors import Error
from ._meter import json_value


class OverBudget(Error):
    """The cheapest plan is over the workload's budget (the tool's exit status 3); `report`
    is the budget report (`gpurent plan --format json` prints it)."""

    def __init__(self, text: str, report: Dict[str, Any]) -> None:
        super().__init__(text, field="budget", message=text, code="over_budget")
        self.report = report


def _input(value: Any, what: str) -> Tuple[Optional[str], str]:
    if isinstance(value, (str, os.PathLike)):
        return None, _args.path(value, what)
    if isinstance(value, Mapping):
        return json.dumps(value, default=json_value), f"<{what}>"
    raise TypeError(f"{what}: expected a path or a dict, got {type(value).__name__}")


class Plan:
    """What to rent for a workload, how to share it and what it costs."""

    def __init__(self, core: _core.Plan) -> None:
        self._core = core
        self._data: Optional[Dict[str, Any]] = None

    def to_json(self) -> str:
        """The bytes of `gpurent plan --format json`."""
        return self._core.to_json()

    @property
    def data(self) -> Dict[str, Any]:
        """The plan JSON as a dict."""
        if self._data is None:
            self._data = json.loads(self.to_json())
        return self._data

    def usage_csv(self) -> str:
        """The plan's usage (`--emit-usage`), for gpurent.meter under tariff_json()."""
        return self._core.usage_csv()

    def tariff_json(self) -> str:
        """The tariff the plan was priced with (`--emit-tariff`)."""
        return self._core.tariff_json()


def plan(workload: Any, offers: Any) -> Plan:
    """`gpurent plan --workload W --offers O`: each a JSON file's path or a dict. A plan over
    its budget raises OverBudget with the budget report."""
    wt, wn = _input(workload, "workload")
    ot, on = _input(offers, "offers")
    core = _core.plan(wt, wn, ot, on)
    if core.over_budget_json:
        raise OverBudget(core.over_budget_text, json.loads(core.over_budget_json))
    return Plan(core)
