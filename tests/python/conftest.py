# SPDX-License-Identifier: MIT
"""Shared fixtures of the Python package's tests (run by scripts/check-python against the
installed wheel). GPURENT_TOOL names the `gpurent` tool for the byte-for-byte comparisons;
without it those tests are skipped."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
# The golden meter cases: the plans' emitted tariffs and usage, all in November 2026.
GOLDEN_METER = ["example", "tiers", "packing", "hybrid", "imported"]
GOLDEN_FOCUS = ["example", "tiers", "hybrid"]


def pytest_configure(config):
    """The tests are of the installed package, never of the source tree's python/gpurent."""
    import gpurent

    assert not Path(gpurent.__file__).resolve().is_relative_to(ROOT / "python"), f"gpurent imported from the source tree: {gpurent.__file__}"


@pytest.fixture(scope="session")
def tool():
    path = os.environ.get("GPURENT_TOOL")
    if not path:
        pytest.skip("GPURENT_TOOL is not set (the gpurent tool to compare with)")
    return path


def run_tool(tool, *args):
    return subprocess.run([tool, *map(str, args)], check=True, capture_output=True).stdout.decode()


def gen_usage(tmp_path, name, records, seed, *flags):
    """scripts/gen-usage's tariff and usage for `records` records."""
    tariff, usage = tmp_path / f"{name}.tariff.json", tmp_path / f"{name}.usage.csv"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen-usage"), "--records", str(records), "--seed", str(seed),
                    "--tariff", str(tariff), "--usage", str(usage), *flags], check=True)
    return tariff, usage


@pytest.fixture(scope="session")
def fleet_inputs(tmp_path_factory):
    """docs/formats/fleet.md's example: six nodes in two blocks, four jobs (a block-bound
    training run, a preemptible sweep, a notebook on half an L4, a second training run)."""
    d = tmp_path_factory.mktemp("fleet")
    (d / "nodes.csv").write_text("sn,cpu_milli,memory_mib,gpu,model,state\n"
                                 "n0,96000,1048576,8,H100-SXM5-80GB,up\nn1,96000,1048576,8,H100-SXM5-80GB,\n"
                                 "n2,96000,1048576,8,H100-SXM5-80GB,up\nn3,96000,1048576,8,H100-SXM5-80GB,up\n"
                                 "n4,32000,262144,4,L4,up\nn5,32000,262144,4,L4,down\n")
    (d / "topology.json").write_text('{ "levels": ["spine", "block"],\n'
                                     '  "nodes": { "n0": ["spine-0", "block-0"], "n1": ["spine-0", "block-0"],\n'
                                     '             "n2": ["spine-0", "block-1"], "n3": ["spine-0", "block-1"] } }\n')
    (d / "jobs.csv").write_text(
        "name,workers,num_gpu,gpu_milli,cpu_milli,memory_mib,gpu_spec,per_node,required,preferred,segment,exclusive,priority,"
        "preemptible,arrival,duration,checkpoint_every\n"
        "train,2,8,,16000,65536,H100-SXM5-80GB,1,block,,,,100,false,0,3600,\n"
        "sweep,4,2,,4000,16384,,,,spine,2,,0,true,0,7200,600\n"
        "notebook,1,1,500,2000,8192,L4,,,,,,0,false,60,1800,\n"
        "big,2,8,,,,H100-SXM5-80GB,1,block,,,,100,false,600,1200,\n")
    return d
