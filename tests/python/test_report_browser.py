# SPDX-License-Identifier: MIT
"""Each report in a real browser: headless Chromium (Debian's `chromium`) opens it and takes a
screenshot; the page must not be blank and nothing may reach the browser's console (the pages
have no script, so any console line is the browser's own complaint: a blocked fetch under
the page's Content-Security-Policy, a parse error). Skipped, saying so, without Chromium.
GPURENT_SCREENSHOTS=DIR keeps the screenshots. Run:
scripts/check-python, against the installed package"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from matplotlib import image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_report_html import write_inputs  # noqa: E402

from gpurent import report  # noqa: E402

BROWSER = os.environ.get("GPURENT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(BROWSER is None, reason="chromium is not installed (install Debian's `chromium`, "
                                "or name it in GPURENT_CHROMIUM): the reports were not opened in a browser")


def screenshot(page: Path, png: Path, size=(1280, 2000), timeout=90) -> str:
    """Chromium's log of opening `page` and saving `png`; a fresh profile, removed after."""
    with tempfile.TemporaryDirectory(prefix="gpurent-chromium-") as profile:
        command = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                   "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={profile}",
                   "--enable-logging=stderr", "--v=0", f"--window-size={size[0]},{size[1]}",
                   f"--screenshot={png}", page.resolve().as_uri()]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   start_new_session=True)
        try:
            log, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the browser and its helpers, which we started
            process.communicate()
            pytest.fail(f"chromium did not finish within {timeout} s on {page}")
    assert process.returncode == 0, log
    return log


def console_lines(log: str) -> list:
    return [line for line in log.splitlines() if ":CONSOLE" in line]


def not_blank(png: Path) -> None:
    pixels = image.imread(str(png))[..., :3].mean(axis=2)
    assert pixels.shape[0] > 500 and pixels.std() > 0.05, f"{png} looks blank"
    assert (pixels < 0.9).mean() > 0.01, f"{png}: almost nothing drawn"


def test_the_console_check_sees_what_it_must(tmp_path):
    """The control: a fetch and an inline script, both refused by the reports' policy, reach the log."""
    page = tmp_path / "control.html"
    page.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'><meta http-equiv='Content-Security-Policy' "
                    f"content=\"{report.html.CSP}\"><title>c</title></head><body><p>control</p>"
                    "<img src='https://192.0.2.1/x.png'><script>console.error('control')</script></body></html>")
    lines = console_lines(screenshot(page, tmp_path / "control.png", (400, 300)))
    assert any("192.0.2.1" in line for line in lines), "a blocked remote image was not logged"
    assert any("script" in line.lower() for line in lines), "a refused inline script was not logged"


@pytest.mark.parametrize("kind", ["fleet", "invoice", "idle", "idle-bindings"])
def test_report_in_chromium(kind, tmp_path):
    p = write_inputs(tmp_path)
    page = tmp_path / f"{kind}.html"
    if kind == "fleet":
        run = report.load_fleet_run(p["summary"], p["timeline"], p["jobs"])
        report.write_fleet_report(page, run.summary, run.timeline, run.jobs, run.inputs,
                                  placements=report.load_placements(p["placements"]),
                                  blocks=report.load_topology(p["topology"]))
    elif kind == "invoice":
        report.write_invoice_report(page, report.load_invoice(p["invoice"]))
    elif kind == "idle":
        idle = report.load_idle(p["idle"])
        report.write_idle_report(page, idle, None, report.load_metrics(p["metrics"]))
    else:  # IdleReport.report: the analysis made by the bindings, on the golden case of tests/io/data
        import gpurent
        data = Path(__file__).resolve().parents[1] / "io" / "data"
        gpurent.idle(data / "query_range.json", min_idle="5min", usage=data / "idle_usage.csv",
                     tariff=data / "idle_tariff.json", period="2026-11").report(page)
    keep = os.environ.get("GPURENT_SCREENSHOTS")
    png = Path(keep) / f"{kind}.png" if keep else tmp_path / f"{kind}.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    log = screenshot(page, png)
    assert not console_lines(log), console_lines(log)
    not_blank(png)
