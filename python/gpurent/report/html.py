# SPDX-License-Identifier: MIT
"""One self-contained HTML page: inline CSS, charts as inline SVG, no script, nothing fetched.

The same inputs give the same bytes: the SVGs are deterministic (style.to_svg) and each
chart's ids get a prefix of their own, so two charts never share an id in one page.
"""
from __future__ import annotations

import re
from decimal import Decimal
from html import escape
from pathlib import Path

from .style import Figure, to_svg

CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: #1a1a1a; background: #fff; max-width: 1100px; margin: 1.5em auto; padding: 0 1.2em; }
h1 { font-size: 1.5em; margin: 0 0 .2em; } h2 { font-size: 1.15em; margin: 1.6em 0 .5em;
     border-bottom: 1px solid #ddd; padding-bottom: .2em; }
p.sub { color: #555; margin: 0 0 1em; } p.note { color: #555; font-size: .92em; }
table { border-collapse: collapse; margin: .4em 0 1em; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: .25em .6em; text-align: left; vertical-align: top; }
td.n { text-align: right; } th { background: #f5f5f5; }
figure { margin: .8em 0 1.4em; break-inside: avoid; page-break-inside: avoid; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { color: #555; font-size: .92em; margin-top: .3em; }
code, .digest { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .88em;
                word-break: break-all; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 11pt; }
  h2 { break-after: avoid; page-break-after: avoid; }
  table, figure { break-inside: avoid; page-break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
"""

# The browser itself refuses anything fetched, and says so on its console (the browser test
# fails on any console line): a report carries everything it shows.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

_ID = re.compile(r'\bid="([^"]+)"')


def svg_inline(fig: Figure, prefix: str) -> str:
    """The figure's SVG with its metadata left out and every id (and reference) prefixed."""
    svg = to_svg(fig)
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    ids = set(_ID.findall(svg))
    svg = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = re.sub(r'(href="#|url\(#)([^")]+)', lambda m: m.group(1) + (prefix + m.group(2) if m.group(2) in ids else m.group(2)), svg)
    return svg.strip()


class Page:
    """The parts of a report in order; `write` makes the file."""

    def __init__(self, title: str, subtitle: str):
        self.title = title
        self.parts = [f"<h1>{escape(title)}</h1>", f'<p class="sub">{escape(subtitle)}</p>']
        self.charts = 0

    def heading(self, text: str) -> None:
        self.parts.append(f"<h2>{escape(text)}</h2>")

    def note(self, text: str) -> None:
        self.parts.append(f'<p class="note">{escape(text)}</p>')

    def table(self, header, rows) -> None:
        """Cells are text; a number (int, float, Decimal) is right-aligned."""
        head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
        body = "".join("<tr>" + "".join(cell(v) for v in row) + "</tr>\n" for row in rows)
        self.parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>")

    def chart(self, fig: Figure, caption: str) -> None:
        self.charts += 1
        svg = svg_inline(fig, f"c{self.charts}-")
        self.parts.append(f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>")

    def inputs(self, inputs: dict) -> None:
        self.heading("Inputs")
        self.table(["input", "file and digest"], [(k, Digest(v)) for k, v in inputs.items()])

    def html(self) -> str:
        return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
                f"<title>{escape(self.title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
                + "\n".join(self.parts) + "\n</body>\n</html>\n")

    def write(self, path) -> None:
        """Written whole or not at all: to a temporary name, then renamed."""
        path = Path(path)
        partial = path.with_name(path.name + ".partial")
        partial.write_text(self.html(), encoding="utf-8")
        partial.replace(path)


class Digest(str):
    """A cell shown in monospace (a digest, a file name)."""


def cell(value) -> str:
    if isinstance(value, Digest):
        return f'<td class="digest">{escape(value)}</td>'
    if isinstance(value, bool) or value is None:
        return f"<td>{escape(str(value if value is not None else ''))}</td>"
    if isinstance(value, (int, Decimal)):
        return f'<td class="n">{value:,}</td>'
    if isinstance(value, float):
        return f'<td class="n">{value:,.3f}</td>'
    return f"<td>{escape(str(value))}</td>"
