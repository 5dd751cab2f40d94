# SPDX-License-Identifier: MIT
"""gpurent.catalog, mig_profiles, mig_fit and plan: the tool's JSON, its golden plans."""
import json
import subprocess

import pytest

import gpurent
from conftest import GOLDEN, ROOT

EXPECTED = GOLDEN / "expected"
INPUTS = GOLDEN / "inputs"
PLANS = {
    "tiers": (INPUTS / "workload-tiers.json", INPUTS / "offers-tiers.json"),
    "packing": (INPUTS / "workload-packing.json", ROOT / "examples" / "plan" / "offers.json"),
    "hybrid": (ROOT / "examples" / "plan" / "hybrid-workload.json", ROOT / "examples" / "plan" / "hybrid-offers.json"),
}


def tool_json(tool, *args, status=0):
    p = subprocess.run([tool, *map(str, args), "--format", "json"], capture_output=True)
    assert p.returncode == status, p.stderr
    return json.loads(p.stdout)


def test_catalog(tool):
    assert gpurent.catalog() == tool_json(tool, "catalog")


def test_mig(tool):
    assert gpurent.mig_profiles("A100-SXM4-40GB") == tool_json(tool, "mig", "profiles", "--gpu", "A100-SXM4-40GB")
    fits = gpurent.mig_fit("A100-SXM4-40GB", ["3g.20gb"], ["1g.5gb@0"])
    assert fits == tool_json(tool, "mig", "fit", "--gpu", "A100-SXM4-40GB", "--want", "3g.20gb", "--have", "1g.5gb@0")
    args = ("--gpu", "A100-SXM4-40GB", "--want", "4g.20gb", "--have", "1g.5gb@0,1g.5gb@4")
    assert gpurent.mig_fit("A100-SXM4-40GB", "4g.20gb", "1g.5gb@0,1g.5gb@4", repartition=True) == tool_json(
        tool, "mig", "fit", *args, "--repartition", status=3)
    with pytest.raises(gpurent.Error) as e:
        gpurent.mig_fit("A100-SXM4-40GB", "9g.99gb")
    assert e.value.field == "want"
    with pytest.raises(gpurent.Error) as e:
        gpurent.mig_profiles("no-such-gpu")
    assert e.value.field == "gpu"


@pytest.mark.parametrize("name", sorted(PLANS))
def test_golden_plans(name):
    workload, offers = PLANS[name]
    p = gpurent.plan(workload, offers)
    assert p.to_json() == (EXPECTED / f"{name}.plan.json").read_text()
    assert p.usage_csv() == (EXPECTED / f"{name}.usage.csv").read_text()
    assert p.tariff_json() == (EXPECTED / f"{name}.tariff.json").read_text()
    again = gpurent.plan(json.loads(workload.read_text()), json.loads(offers.read_text()))
    assert again.to_json() == p.to_json() and again.data == json.loads(p.to_json())


def test_plan_then_meter():
    workload, offers = PLANS["hybrid"]
    p = gpurent.plan(workload, offers)
    import io

    import pandas as pd

    usage = pd.read_csv(io.StringIO(p.usage_csv()), dtype=str, keep_default_na=False)
    inv = gpurent.meter(json.loads(p.tariff_json()), usage, p.data["period"])
    assert inv.to_json() == (EXPECTED / "hybrid.meter.json").read_text()


def test_over_budget():
    with pytest.raises(gpurent.OverBudget) as e:
        gpurent.plan(ROOT / "examples" / "plan" / "budget-workload.json", ROOT / "examples" / "plan" / "hybrid-offers.json")
    assert e.value.report == json.loads((EXPECTED / "budget.budget.json").read_text())
    assert str(e.value) == (EXPECTED / "budget.budget.err").read_text().splitlines()[0].removeprefix("gpurent: ")
    assert isinstance(e.value, gpurent.Error)


def test_plan_errors(tmp_path):
    workload, offers = PLANS["tiers"]
    with pytest.raises(gpurent.Error) as e:
        gpurent.plan(workload, INPUTS / "bad" / "offers-price.json")
    assert e.value.file and e.value.field
    with pytest.raises(gpurent.Error):
        gpurent.plan(tmp_path / "missing.json", offers)
    with pytest.raises(TypeError):
        gpurent.plan(42, offers)
