"""Inline SVG charts: pass rates with their confidence intervals, trends, latency histograms.

Made on the server as markup (escaped), so the dashboard needs no chart library and works
offline; each chart has a <title> and a table or text beside it for what it shows."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4d7c0f", "#be185d"]


def rate_bars(rows: Sequence[tuple[str, float, float, float]], width: int = 640) -> str:
    """One bar per (label, rate, ci low, ci high), rates in [0, 1], with the interval as a whisker."""
    if not rows:
        return ""
    label_w, bar_h, gap = 180, 18, 6
    plot_w = width - label_w - 60
    height = len(rows) * (bar_h + gap) + 24
    out = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'xmlns="http://www.w3.org/2000/svg"><title>Pass rate per case, with 95% intervals</title>'
    ]
    for i, (label, rate, low, high) in enumerate(rows):
        y = i * (bar_h + gap) + 4
        shown = label if len(label) <= 26 else label[:25] + "…"
        out.append(
            f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end" class="lbl">{escape(shown)}</text>'
        )
        out.append(
            f'<rect x="{label_w}" y="{y}" width="{max(0.0, rate) * plot_w:.1f}" height="{bar_h}" '
            f'class="bar {"good" if rate >= 0.8 else "mid" if rate >= 0.5 else "bad"}"/>'
        )
        x1, x2, ym = label_w + low * plot_w, label_w + high * plot_w, y + bar_h / 2
        out.append(f'<line x1="{x1:.1f}" x2="{x2:.1f}" y1="{ym}" y2="{ym}" class="ci"/>')
        out.append(f'<text x="{label_w + plot_w + 6}" y="{y + 13}" class="val">{rate:.0%}</text>')
    axis_y = len(rows) * (bar_h + gap) + 4
    for t in (0, 0.5, 1):
        x = label_w + t * plot_w
        out.append(f'<text x="{x:.1f}" y="{axis_y + 14}" text-anchor="middle" class="axis">{t:.0%}</text>')
    out.append("</svg>")
    return "".join(out)


def trend(series: dict[str, Sequence[float]], width: int = 640, height: int = 200) -> str:
    """Pass rate over successive runs, one line per series (suite and agent version)."""
    series = {k: v for k, v in series.items() if v}
    if not series:
        return ""
    pad, right = 36, 180
    plot_w, plot_h = width - pad - right, height - 2 * pad + 12
    longest = max(len(v) for v in series.values())
    out = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'xmlns="http://www.w3.org/2000/svg"><title>Pass rate of recent runs per suite and agent version</title>'
    ]
    for t in (0, 0.5, 1):
        y = pad + (1 - t) * plot_h
        out.append(f'<line x1="{pad}" x2="{pad + plot_w}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        out.append(f'<text x="{pad - 4}" y="{y + 4:.1f}" text-anchor="end" class="axis">{t:.0%}</text>')
    for i, (name, values) in enumerate(sorted(series.items())):
        color = PALETTE[i % len(PALETTE)]
        step = plot_w / max(1, longest - 1)
        points = [(pad + j * step, pad + (1 - v) * plot_h) for j, v in enumerate(values)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        for x, y in points:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>')
        shown = name if len(name) <= 28 else name[:27] + "…"
        ly = pad + i * 16
        out.append(f'<rect x="{width - right + 10}" y="{ly - 9}" width="10" height="10" fill="{color}"/>')
        out.append(f'<text x="{width - right + 24}" y="{ly}" class="lbl">{escape(shown)}</text>')
    out.append("</svg>")
    return "".join(out)


def histogram(values: Sequence[float], width: int = 640, height: int = 160, bins: int = 20) -> str:
    """Latency distribution (ms) of a run's trials."""
    if not values:
        return ""
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - lo) / span * bins))] += 1
    pad = 28
    plot_w, plot_h = width - 2 * pad, height - 2 * pad
    top = max(counts)
    bar_w = plot_w / bins
    out = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="100%" '
        f'xmlns="http://www.w3.org/2000/svg"><title>Latency of the trials (ms)</title>'
    ]
    for i, c in enumerate(counts):
        h = c / top * plot_h
        out.append(
            f'<rect x="{pad + i * bar_w + 1:.1f}" y="{pad + plot_h - h:.1f}" width="{bar_w - 2:.1f}" '
            f'height="{h:.1f}" class="bar hist"><title>{c} trials</title></rect>'
        )
    out.append(f'<text x="{pad}" y="{height - 6}" class="axis">{lo:.0f} ms</text>')
    out.append(f'<text x="{width - pad}" y="{height - 6}" text-anchor="end" class="axis">{hi:.0f} ms</text>')
    out.append("</svg>")
    return "".join(out)
