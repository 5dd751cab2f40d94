# SPDX-License-Identifier: MIT
"""The installed package: its version, its stubs, its exceptions, the GIL released while metering."""
import subprocess
import sys
import threading
import time
from pathlib import Path

import gpurent
from conftest import ROOT, gen_usage


def test_version_is_the_library_version():
    header = (ROOT / "include" / "gpurent" / "version.hpp").read_text()
    assert f'"{gpurent.__version__}"' in header


def test_stubs_ship_with_the_package():
    here = Path(gpurent.__file__).parent
    assert (here / "py.typed").exists()
    stub = (here / "_core.pyi").read_text()
    for name in ("class Invoice", "class Tariff", "class FleetRun", "class GangPlacer", "def meter_files", "def meter_columns", "def fleet_run"):
        assert name in stub


def test_error_is_a_value_error():
    assert issubclass(gpurent.Error, ValueError)
    e = gpurent.Error("u.csv:3: field 'x': bad", where="u.csv:3", field="x", message="bad", code="parse_error")
    assert (e.file, e.line, e.field, e.message, e.code) == ("u.csv", 3, "x", "bad", "parse_error")
    assert gpurent.Error("no where").file is None


def test_imports_without_pandas():
    code = "import sys, gpurent; assert 'pandas' not in sys.modules and 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_metering_releases_the_gil(tmp_path):
    """Another Python thread keeps running while a large file is metered."""
    tariff, usage = gen_usage(tmp_path, "gil", 200000, 43)
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    start = time.perf_counter()
    gpurent.meter(tariff, usage, "2026-11")
    end = time.perf_counter()
    done.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    assert end - start < 0.05 or len(during) >= 5, (end - start, len(during))

