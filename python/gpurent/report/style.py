# SPDX-License-Identifier: MIT
"""One look for every chart, and figures to SVG or PNG that are byte-identical on every run."""
from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")  # no display: reports are written by scripts and servers
from matplotlib.figure import Figure  # noqa: E402

HP = "#1f5fa8"
SPOT = "#e07b00"
FAILED = "#b2182b"
IDLE = "#b2182b"
GREY = "#8c8c8c"
CLASS_COLOURS = {"hp": HP, "spot": SPOT}

RC = {
    "svg.hashsalt": "gpurent",  # ids in the SVG from a fixed salt, not from a random one
    "svg.fonttype": "path",      # text as paths: no font to fetch, the same on every screen
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.dpi": 100,
    "path.simplify": True,
}


def plain(text) -> str:
    """A name from the data (account, label, GPU, block) drawn as written: matplotlib reads text
    between two `$` as mathematics, and a name is never mathematics."""
    return str(text).replace("$", r"\$")


def new_figure(rows: int = 1, cols: int = 1, height: float = 3.2, width: float = 8.0, **kw):
    """A figure with its axes, not registered with pyplot (no global state to leak or close)."""
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(width, height), layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False, **kw)
    return fig, axes


def to_svg(fig: Figure) -> str:
    """The figure as an SVG element (no XML prolog, no DOCTYPE), deterministic."""
    buffer = io.StringIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def to_png(fig: Figure, path, dpi: int = 80) -> None:
    with matplotlib.rc_context(RC):
        fig.savefig(path, format="png", dpi=dpi, metadata={"Software": None})


__all__ = ["Figure", "new_figure", "plain", "to_svg", "to_png"]
