"""The experiments' figures, drawn with matplotlib (imported only here, with the Agg backend).

Every function takes numbers already computed (ratings, intervals, scores)
and returns the image's bytes, so a figure shows exactly the numbers its
experiment wrote beside it. matplotlib is imported on first use, not when
the command line starts, because it takes a good part of a second.
"""

from __future__ import annotations

import io

import numpy as np

DPI = 100


def pyplot():
    """matplotlib's pyplot on the non-interactive Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def import_in_background() -> None:
    """Start importing pyplot on a thread of its own and return at once.

    A tournament on worker processes leaves its own process waiting for
    results; importing matplotlib then (most of a second) shortens the report
    written at the end. A failed import is met again, and reported, when a
    figure is drawn.
    """
    import contextlib
    import threading

    def load():
        with contextlib.suppress(Exception):  # the figure's own import reports it
            pyplot()

    threading.Thread(target=load, name="import-pyplot", daemon=True).start()


def image_bytes(fig, formats=("png",)) -> dict[str, bytes]:
    """The figure in each format (``png``, ``svg``), then closed. Metadata that names the date
    or the software version is left out, so the same numbers give the same files."""
    plt = pyplot()
    out = {}
    for ext in formats:
        buffer = io.BytesIO()
        metadata = {"Date": None} if ext == "svg" else {"Software": None}
        fig.savefig(buffer, format=ext, dpi=DPI, metadata=metadata)
        out[ext] = buffer.getvalue()
    plt.close(fig)
    return out


def colours(count: int) -> list:
    plt = pyplot()
    cmap = plt.get_cmap("tab10" if count <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(count)]


def interval_arms(estimate, low, high) -> list[np.ndarray]:
    """Error-bar lengths below and above each estimate for its interval.

    A bootstrap percentile interval need not contain the estimate (few
    resamples, a skewed fit); the arm on that side is then drawn as 0.
    """
    estimate, low, high = (np.asarray(v, dtype=float) for v in (estimate, low, high))
    return [np.maximum(estimate - low, 0.0), np.maximum(high - estimate, 0.0)]


# ------------------------------------------------------------------ tournament report


def ratings_figure(title: str, agents: list[str], rating, low, high) -> bytes:
    """Each agent's rating with its 95% interval, best at the top."""
    plt = pyplot()
    order = list(np.argsort(rating))  # lowest first: plotted bottom up
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(agents) + 1.4))
    y = np.arange(len(agents))
    r, lo, hi = (np.asarray(v, dtype=float)[order] for v in (rating, low, high))
    ax.errorbar(r, y, xerr=interval_arms(r, lo, hi), fmt="o", color="tab:blue", ecolor="tab:blue",
                capsize=4)
    for yi, value in zip(y, r):
        ax.annotate(f"{value:.0f}", (value, yi), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize="small")
    ax.set_yticks(y, [agents[i] for i in order])
    ax.set_xlabel("rating (Elo scale, 95% profile-likelihood interval)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return image_bytes(fig)["png"]


def head_to_head_figure(title: str, agents: list[str], records) -> bytes:
    """A heat map of each row agent's share of duplicate groups won against each column
    agent (draws half), annotated with won-drawn-lost."""
    plt = pyplot()
    k = len(agents)
    share = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(k):
            won, drawn, lost = records[i][j]
            if i != j and won + drawn + lost:
                share[i, j] = (won + 0.5 * drawn) / (won + drawn + lost)
    size = 0.8 * k + 2.5
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    image = ax.imshow(np.ma.masked_invalid(share), cmap="RdBu", vmin=0.0, vmax=1.0)
    for i in range(k):
        for j in range(k):
            if not np.isnan(share[i, j]):
                won, drawn, lost = records[i][j]
                dark = abs(share[i, j] - 0.5) > 0.3
                ax.text(j, i, f"{share[i, j]:.2f}\n{won}-{drawn}-{lost}", ha="center", va="center",
                        fontsize="x-small" if k > 6 else "small", color="white" if dark else "black")
    ax.set_xticks(range(k), agents, rotation=40, ha="right")
    ax.set_yticks(range(k), agents)
    ax.set_xlabel("against")
    fig.colorbar(image, ax=ax, shrink=0.8, label="share of groups won by the row (draws half)")
    ax.set_title(title)
    fig.tight_layout()
    return image_bytes(fig)["png"]


def scores_figure(title: str, agents: list[str], group_scores: list, points: list, points_text: str) -> bytes:
    """Per agent, the distribution of its group scores (mean reward per duplicate group,
    what the ranking orders) and of its points per deal in each game it sat in."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.45 * len(agents) + 2.2), sharey=True)
    for ax, data, label in ((axes[0], group_scores, "group score (mean reward in the group)"),
                            (axes[1], points, f"points per deal ({points_text})")):
        present = [i for i, values in enumerate(data) if len(values)]
        if present:
            parts = ax.violinplot([data[i] for i in present], positions=present, showextrema=False,
                                  **_horizontal("violinplot"))
            for body in parts["bodies"]:
                body.set_alpha(0.35)
            ax.boxplot([data[i] for i in present], positions=present, widths=0.25, showfliers=False,
                       **_horizontal("boxplot"))
            ax.plot([np.mean(data[i]) for i in present], present, "D", color="tab:red", markersize=5,
                    label="mean")
            ax.legend(loc="best", fontsize="small")
        ax.set_xlabel(label, fontsize="small")
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(agents)), agents)
    axes[0].set_ylim(-0.7, len(agents) - 0.3)
    fig.suptitle(title)
    fig.tight_layout()
    return image_bytes(fig)["png"]


def _horizontal(method: str) -> dict:
    """The keyword that lays a violin or box plot on its side, in this matplotlib's spelling
    (``orientation`` since 3.10, ``vert`` before)."""
    import inspect

    from matplotlib.axes import Axes

    if "orientation" in inspect.signature(getattr(Axes, method)).parameters:
        return {"orientation": "horizontal"}
    return {"vert": False}


def convergence_figure(title: str, agents: list[str], groups, rating, low, high) -> bytes:
    """Each agent's rating, and 95% band, fitted on the first ``groups[c]`` duplicate groups."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for a, (name, colour) in enumerate(zip(agents, colours(len(agents)))):
        ax.plot(groups, rating[:, a], "-o", markersize=3, color=colour, label=name)
        ax.fill_between(groups, low[:, a], high[:, a], color=colour, alpha=0.15, linewidth=0)
    ax.set_xlabel("duplicate groups")
    ax.set_ylabel("rating (Elo scale)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small")
    fig.tight_layout()
    return image_bytes(fig)["png"]


# ------------------------------------------------------------------ curve experiments


def _log_axis(ax, values, ticks=None) -> None:
    """A log x axis when ``values`` differ, labelled in plain numbers: at ``ticks`` if given,
    else at 1, 2 and 5 times the powers of ten."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

    values = [v for v in values if v]
    if not values or max(values) <= min(values):
        return
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(ticks) if ticks else LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.xaxis.set_minor_locator(NullLocator())


def curve_figure(curve, gaps=None) -> dict[str, bytes]:
    """A curve experiment's figure (PNG and SVG): Elo against budget with 95% bands, the fixed
    opponents as dashed lines; then Elo against measured seconds per decision (``budget``)
    or the information gap with its band (``information``)."""
    plt = pyplot()
    config = curve.config
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    names = [name for name, _ in config.curves()]
    palette = colours(len(names) + len(config.opponents))
    for name, colour in zip(names, palette):
        rows = sorted((r for r in curve.rows if r["curve"] == name), key=lambda r: r["budget"])
        x = [r["budget"] for r in rows]
        left.plot(x, [r["rating"] for r in rows], "-o", color=colour, label=name)
        left.fill_between(x, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows], color=colour,
                          alpha=0.18, linewidth=0)
        if gaps is None:
            timed = [r for r in rows if r["seconds_per_decision"]]
            t = [1000 * r["seconds_per_decision"] for r in timed]
            y = np.array([r["rating"] for r in timed])
            err = interval_arms(y, [r["ci_low"] for r in timed], [r["ci_high"] for r in timed])
            right.errorbar(t, y, yerr=err, fmt="-o", color=colour, capsize=3, label=name)
    opponents = [r for r in curve.rows if r["curve"] is None]
    for row, colour in zip(opponents, palette[len(names):]):
        for ax in (left,) if gaps is not None else (left, right):
            ax.axhline(row["rating"], color=colour, linestyle="--", linewidth=1,
                       label=f"{row['label']} (opponent)")
            ax.axhspan(row["ci_low"], row["ci_high"], color=colour, alpha=0.07, linewidth=0)
    unit = "ms" if config.by == "time" else "iterations"
    left.set_xlabel(f"budget ({unit} per decision)")
    left.set_ylabel("rating (Elo scale, 95% interval)")
    _log_axis(left, config.budgets, config.budgets)
    if gaps is None:
        right.set_xlabel("measured milliseconds per decision")
        right.set_ylabel("rating (Elo scale, 95% interval)")
        _log_axis(right, [r["seconds_per_decision"] for r in curve.rows if r["curve"]])
        right.set_title("against time per decision")
    else:
        x = [g["budget"] for g in gaps]
        right.plot(x, [g["gap"] for g in gaps], "-o", color="tab:purple", label="cheat minus view")
        right.fill_between(x, [g["gap_ci_low"] for g in gaps], [g["gap_ci_high"] for g in gaps],
                           color="tab:purple", alpha=0.2, linewidth=0)
        right.axhline(0.0, color="black", linewidth=0.8)
        right.set_xlabel(f"budget ({unit} per decision)")
        right.set_ylabel("gap: sees the deal minus sees its view (Elo)")
        right.set_title("the value of information")
        _log_axis(right, x, x)
    for ax in (left, right):
        ax.grid(alpha=0.3, which="both")
        ax.legend(loc="best", fontsize="small")
    left.set_title("against budget")
    groups = curve.tournament.ratings.groups
    kind = "strength against budget" if gaps is None else "seeing the deal against seeing the view"
    fig.suptitle(f"{config.game}: {kind} ({groups} duplicate groups, seed {config.seed})")
    fig.tight_layout()
    return image_bytes(fig, ("png", "svg"))
