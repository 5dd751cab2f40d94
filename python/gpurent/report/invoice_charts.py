# SPDX-License-Identifier: MIT
"""Charts of a `gpurent meter --format json` invoice (docs/formats/billing.md).

Amounts are summed as `decimal.Decimal` from the invoice's strings; only the bar lengths are
floats, and every bar is labelled with its exact sum.
"""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from .style import HP, IDLE, Figure, new_figure, plain

HOUR = 3_600


def money(text) -> Decimal:
    """An invoice amount: a decimal string, or `num/den` where it does not terminate (`--detail`)."""
    text = str(text)
    if "/" in text:
        fraction = Fraction(text)
        return Decimal(fraction.numerator) / Decimal(fraction.denominator)
    return Decimal(text)


def cost_groups(invoice: dict, by: str) -> dict:
    """Group name -> amount. `by` is "account", "resource", "mode", or a label key."""
    groups: dict = {}

    def add(name, amount):
        groups[name] = groups.get(name, Decimal(0)) + money(amount)

    for account in invoice["accounts"]:
        if by == "account":
            add(account["account"], account.get("total", "0"))
            continue
        for line in account["lines"]:
            if by in ("resource", "mode"):
                add(line[by], line["amount"])
            elif "labels" in line:
                for part in line["labels"]:
                    add(part["labels"].get(by, f"(no {by})"), part["amount"])
            else:
                add("(no labels)", line["amount"])
        for commitment in account.get("commitments", []):
            add(commitment[by] if by in ("resource", "mode") else "(commitments)", commitment["amount"])
        for package in account.get("prepaid", []):
            add("(prepaid packages)", package["amount"])
    return groups


def largest(groups: dict, top: int):
    """The `top` largest groups, the rest summed as one bar "other (N)"; largest first."""
    ranked = sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(ranked) > top:
        rest = ranked[top - 1:]
        ranked = ranked[:top - 1] + [(f"other ({len(rest)})", sum((v for _, v in rest), Decimal(0)))]
    return ranked


def invoice_cost_breakdown(invoice: dict, by: str = "account", top: int = 12) -> Figure:
    """Horizontal bars of the invoice's cost by account, resource, mode or a label key."""
    ranked = largest(cost_groups(invoice, by), top)
    currency = invoice["currency"]
    fig, axes = new_figure(height=0.9 + 0.28 * max(len(ranked), 1), width=8.0)
    ax = axes[0, 0]
    names = [plain(name) for name, _ in ranked][::-1]
    amounts = [amount for _, amount in ranked][::-1]
    bars = ax.barh(names, [float(a) for a in amounts], color=HP)
    ax.bar_label(bars, labels=[f"{a:,.2f}" for a in amounts], padding=3, fontsize=8)
    ax.set_xlabel(f"amount ({currency})")
    total = sum(amounts, Decimal(0))
    ax.set_title(f"Cost by {plain(by)}, {invoice['period']}: {total:,.2f} {currency}")
    ax.margins(x=0.15)
    ax.grid(axis="y", visible=False)
    return fig


def billed_and_used(invoice: dict) -> dict:
    """(resource, mode) -> [used_seconds, waste_seconds, waste_amount], summed over accounts.
    Needs `gpurent meter --detail`: without it the invoice has no used time."""
    out: dict = {}
    for account in invoice["accounts"]:
        for line in account["lines"]:
            if "used_seconds" not in line or "waste_seconds" not in line:
                raise ValueError("the invoice has no used_seconds/waste_seconds: "
                                 "write it with `gpurent meter --detail`")
            key = (line["resource"], line["mode"])
            used, waste, amount = out.get(key, (0, 0, Decimal(0)))
            out[key] = (used + int(line["used_seconds"]), waste + int(line["waste_seconds"]),
                        amount + money(line.get("waste_amount", "0")))
    return out


def invoice_billed_vs_used(invoice: dict) -> Figure:
    """Per resource and mode: hours used, and the hours billed but not used (increments and
    minimums: the waste of a billing granularity coarser than the usage), with their cost."""
    groups = sorted(billed_and_used(invoice).items())
    names = [plain(f"{r} {m}") for (r, m), _ in groups][::-1]
    used = [v[0] / HOUR for _, v in groups][::-1]
    waste = [v[1] / HOUR for _, v in groups][::-1]
    cost = [v[2] for _, v in groups][::-1]
    fig, axes = new_figure(1, 2, height=1.3 + 0.35 * max(len(names), 1), width=8.5, sharey=True,
                           width_ratios=[3, 2])
    left, right = axes[0]
    left.barh(names, used, color=HP, label="used")
    left.barh(names, waste, left=used, color=IDLE, label="billed, not used")
    left.set_xlabel("hours billed (quantity not applied)")
    bars = right.barh(names, waste, color=IDLE)
    right.bar_label(bars, labels=[f"{w:,.1f} h, {c:,.2f} {invoice['currency']}" for w, c in zip(waste, cost)],
                    padding=3, fontsize=8)
    right.set_xlabel("hours billed, not used")
    right.margins(x=0.6)
    total = sum(cost, Decimal(0))
    fig.suptitle(f"Billed vs used, {invoice['period']}: {total:,.2f} {invoice['currency']} paid for unused time",
                 fontsize=10)
    fig.legend(*left.get_legend_handles_labels(), loc="outside lower center", ncols=2, frameon=False)
    for ax in (left, right):
        ax.grid(axis="y", visible=False)
    return fig


__all__ = ["invoice_cost_breakdown", "invoice_billed_vs_used", "cost_groups", "billed_and_used", "money"]
