"""The PNG figures of the report and the leaderboard (matplotlib, Agg): each takes the rows or the
figure data `analysis` computed and draws them; `saved_figure` is the one way a figure is made,
laid out, written and closed."""

from __future__ import annotations

import math
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

from oversight_bench.analysis.leaderboard import SELF_JUDGED
from oversight_bench.protocol import display_key as _proto_key
from oversight_bench.render.numbers import decimal_round


FIGURE_DPI = 110


@contextmanager
def saved_figure(path: Path, *grid: int, layout: dict[str, Any] | None = None, **subplots: Any) -> Iterator[tuple]:
    """`plt.subplots(*grid, **subplots)` for the `with` block to draw on; then the layout fitted
    (`layout`: tight_layout's arguments), the PNG written and the figure closed, also when drawing
    fails (pyplot keeps every open figure alive). Every figure of the report and the leaderboard."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(*grid, **subplots)
    try:
        yield fig, axes
        fig.tight_layout(**(layout or {}))
        fig.savefig(path, dpi=FIGURE_DPI)
    finally:
        plt.close(fig)


def fig_accuracy(groups: list[dict[str, Any]], path: Path) -> bool:
    """Figure 2-like: accuracy by protocol (bars) × judge (x) with 95% CIs, one panel per task type."""
    rows = [r for r in groups if r["level"] == "task_type" and r["accuracy"] is not None]
    if not rows:
        return False
    types = sorted({r["task_type"] for r in rows})
    all_protos = sorted({r["protocol"] for r in rows}, key=_proto_key)
    colour = {p: f"C{i % 10}" for i, p in enumerate(all_protos)}  # one colour per protocol in every panel
    with saved_figure(path, 1, len(types), figsize=(5.5 * len(types), 4.2), squeeze=False) as (fig, axes):
        for ax, tt in zip(axes[0], types):
            rr = [r for r in rows if r["task_type"] == tt]
            judges = sorted({r["judge"] for r in rr})
            protos = sorted({r["protocol"] for r in rr}, key=_proto_key)
            width = 0.8 / max(1, len(protos))
            for k, p in enumerate(protos):
                xs, ys, lo, hi = [], [], [], []
                for i, j in enumerate(judges):
                    vals = [r for r in rr if r["judge"] == j and r["protocol"] == p]
                    if not vals:
                        continue
                    r = max(vals, key=lambda r: r["n"])
                    xs.append(i + (k - (len(protos) - 1) / 2) * width)
                    ys.append(r["accuracy"])
                    lo.append(r["accuracy"] - (r["ci_low"] if r["ci_low"] is not None else r["accuracy"]))
                    hi.append((r["ci_high"] if r["ci_high"] is not None else r["accuracy"]) - r["accuracy"])
                ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=p, color=colour[p])
            ax.axhline(0.5, color="grey", lw=0.8, ls="--")
            ax.set_xticks(range(len(judges)))
            ax.set_xticklabels([j.split(":")[-1][:22] for j in judges], rotation=20, ha="right", fontsize=8)
            ax.set_ylim(0, 1)
            ax.set_title(tt)
            ax.set_ylabel("judge accuracy")
        from matplotlib.patches import Patch

        axes[0][-1].legend(handles=[Patch(color=colour[p], label=p) for p in all_protos], fontsize=7, loc="lower right")
    return True


def _short(name: Any, n: int = 22) -> str:
    return str(name).split(":")[-1][:n]


def _grouped_bars(ax, rows: list[dict[str, Any]], x_of, bar_of, value: str, lo: str, hi: str, colour: dict) -> list:
    """Bars of `value` with CI whiskers: x positions by `x_of(row)`, one bar per `bar_of(row)`."""
    xs_names = sorted({x_of(r) for r in rows})
    bars = sorted({bar_of(r) for r in rows}, key=str)
    width = 0.8 / max(1, len(bars))
    for k, b in enumerate(bars):
        xs, ys, los, his = [], [], [], []
        for i, xn in enumerate(xs_names):
            vals = [r for r in rows if x_of(r) == xn and bar_of(r) == b and r.get(value) is not None]
            if not vals:
                continue
            r = max(vals, key=lambda r: r.get("n") or 0)
            v = r[value]
            xs.append(i + (k - (len(bars) - 1) / 2) * width)
            ys.append(v)
            los.append(v - (r[lo] if r.get(lo) is not None else v))
            his.append((r[hi] if r.get(hi) is not None else v) - v)
        if xs:
            ax.bar(xs, ys, width, yerr=[los, his], capsize=2, label=str(b), color=colour.get(b))
    ax.set_xticks(range(len(xs_names)))
    ax.set_xticklabels([_short(x) for x in xs_names], rotation=20, ha="right", fontsize=8)
    return bars


def _legend(ax, colour: dict) -> None:
    """One legend entry per series of the whole figure, not only those in the panel it sits in."""
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=c, label=str(k)) for k, c in colour.items()], fontsize=7)


def fig_accuracy_by_task(groups: list[dict[str, Any]], path: Path) -> bool:
    """Figure B.1-like: accuracy by protocol (bars) × judge (x) with 95% CIs, one panel per task."""
    rows = [r for r in groups if r["level"] == "task" and r["accuracy"] is not None]
    tasks = sorted({r["task"] for r in rows})
    if not rows:
        return False
    protos = sorted({r["protocol"] for r in rows}, key=_proto_key)
    colour = {p: f"C{i % 10}" for i, p in enumerate(protos)}
    cols = min(3, len(tasks))
    nrows = math.ceil(len(tasks) / cols)
    with saved_figure(path, nrows, cols, figsize=(5 * cols, 3.8 * nrows), squeeze=False) as (fig, axes):
        for ax, t in zip(axes.flat, tasks):
            _grouped_bars(ax, [r for r in rows if r["task"] == t], lambda r: r["judge"], lambda r: r["protocol"],
                          "accuracy", "ci_low", "ci_high", colour)
            ax.axhline(0.5, color="grey", lw=0.8, ls="--")
            ax.set_ylim(0, 1)
            ax.set_title(t)
        for ax in list(axes.flat)[len(tasks):]:
            ax.axis("off")
        _legend(axes.flat[0], colour)
    return True


def fig_ablation(groups: list[dict[str, Any]], path: Path) -> bool:
    """Figures A.2-A.7-like: when the runs differ in a setting (rounds, best-of-N, few-shot, CoT, answer
    order, turn style), judge accuracy per setting (bars) × judge (x), one row per protocol, one column
    per task type."""
    rows = [r for r in groups if r["level"] == "task_type" and r["accuracy"] is not None and r.get("setting")]
    if len({r["setting"] for r in rows}) < 2:
        return False
    protos = sorted({r["protocol"] for r in rows if len({x["setting"] for x in rows if x["protocol"] == r["protocol"]}) > 1},
                    key=_proto_key) or sorted({r["protocol"] for r in rows}, key=_proto_key)
    types = sorted({r["task_type"] for r in rows})
    settings = sorted({r["setting"] for r in rows})
    colour = {st: f"C{i % 10}" for i, st in enumerate(settings)}
    with saved_figure(path, len(protos), len(types), figsize=(5 * len(types), 3.6 * len(protos)),
                      squeeze=False) as (fig, axes):
        for i, p in enumerate(protos):
            for j, tt in enumerate(types):
                ax = axes[i][j]
                _grouped_bars(ax, [r for r in rows if r["protocol"] == p and r["task_type"] == tt], lambda r: r["judge"],
                              lambda r: r["setting"], "accuracy", "ci_low", "ci_high", colour)
                ax.axhline(0.5, color="grey", lw=0.8, ls="--")
                ax.set_ylim(0, 1)
                ax.set_title(f"{p} · {tt}", fontsize=9)
        _legend(axes[0][-1], colour)
    return True


def fig_position(pos_rows: list[dict[str, Any]], path: Path) -> bool:
    """Figure A.8-like: mean selected answer position (1.5 = no bias) per protocol (bars) × judge (x)
    with 95% CIs, one panel per task type; runs that differ in a setting get a row each."""
    rows = [r for r in pos_rows if r["level"] == "task_type" and r["mean_position"] is not None]
    if not rows:
        return False
    types = sorted({r["task_type"] for r in rows})
    settings = sorted({r.get("setting") for r in rows}, key=str)
    protos = sorted({r["protocol"] for r in rows}, key=_proto_key)
    colour = {p: f"C{i % 10}" for i, p in enumerate(protos)}
    with saved_figure(path, len(settings), len(types), figsize=(5 * len(types), 3.6 * len(settings)),
                      squeeze=False) as (fig, axes):
        for i, st in enumerate(settings):
            for j, tt in enumerate(types):
                ax = axes[i][j]
                _grouped_bars(ax, [r for r in rows if r.get("setting") == st and r["task_type"] == tt], lambda r: r["judge"],
                              lambda r: r["protocol"], "mean_position", "ci_low", "ci_high", colour)
                ax.axhline(1.5, color="grey", lw=0.8, ls="--")
                ax.set_ylim(1, 2)
                ax.set_ylabel("mean answer position")
                ax.set_title(f"{tt}" + (f" · {st}" if st else ""), fontsize=9)
        _legend(axes[0][-1], colour)
    return True


def fig_consultancy_split(split_rows: list[dict[str, Any]], path: Path) -> bool:
    """Figure A.9-like: consultancy accuracy when the consultant argued for the correct / incorrect
    answer, assigned-role next to open, per judge, one panel per task type."""
    rows = [r for r in split_rows if r["level"] == "task_type"]
    if not rows:
        return False
    types = sorted({r["task_type"] for r in rows})
    series = [("assigned_correct", "assigned, correct", "tab:blue"), ("assigned_incorrect", "assigned, incorrect", "lightblue"),
              ("open_correct", "open, chose correct", "tab:green"), ("open_incorrect", "open, chose incorrect", "lightgreen")]
    with saved_figure(path, 1, len(types), figsize=(5.5 * len(types), 4), squeeze=False) as (fig, axes):
        for ax, tt in zip(axes[0], types):
            rr = sorted([r for r in rows if r["task_type"] == tt], key=lambda r: (str(r["judge"]), str(r.get("setting"))))
            width = 0.8 / len(series)
            for k, (key, label, colour) in enumerate(series):
                xs, ys, lo, hi = [], [], [], []
                for i, r in enumerate(rr):
                    v = r.get(f"{key}_accuracy")
                    if v is None:
                        continue
                    xs.append(i + (k - 1.5) * width)
                    ys.append(v)
                    lo.append(v - (r.get(f"{key}_ci_low") if r.get(f"{key}_ci_low") is not None else v))
                    hi.append((r.get(f"{key}_ci_high") if r.get(f"{key}_ci_high") is not None else v) - v)
                ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=label, color=colour)
            ax.set_xticks(range(len(rr)))
            ax.set_xticklabels([_short(r["judge"]) + (f"\n{r['setting']}" if r.get("setting") else "") for r in rr],
                               rotation=20, ha="right", fontsize=7)
            ax.set_ylim(0, 1)
            ax.set_title(f"{tt}: consultancy judge accuracy")
        axes[0][-1].legend(fontsize=7)
    return True


def fig_open_role(open_rows: list[dict[str, Any]], path: Path) -> bool:
    """Figure 3-like: win rate and accuracy when the agent chose correctly / wrongly, per judge."""
    rows = [r for r in open_rows if r["level"] == "task_type"]
    if not rows:
        return False
    types = sorted({r["task_type"] for r in rows})
    with saved_figure(path, 2, len(types), figsize=(5.5 * len(types), 6.5), squeeze=False) as (fig, axes):
        for c, tt in enumerate(types):
            rr = sorted([r for r in rows if r["task_type"] == tt], key=lambda r: (r["judge"], r["protocol"]))
            labels = [f"{r['judge'].split(':')[-1][:14]}\n{r['protocol'].replace('_', ' ')}" for r in rr]
            x = range(len(rr))
            axes[0][c].bar(x, [r["win_rate"] or 0 for r in rr], color="tab:purple")
            axes[0][c].set_title(f"{tt}: win rate")
            axes[1][c].bar([i - 0.2 for i in x], [r["accuracy_agent_correct"] or 0 for r in rr], 0.4, label="agent chose correct")
            axes[1][c].bar([i + 0.2 for i in x], [r["accuracy_agent_incorrect"] or 0 for r in rr], 0.4, label="agent chose incorrect", color="lightblue")
            axes[1][c].set_title(f"{tt}: judge accuracy")
            for ax in (axes[0][c], axes[1][c]):
                ax.set_xticks(list(x))
                ax.set_xticklabels(labels, fontsize=7)
                ax.set_ylim(0, 1)
        axes[1][-1].legend(fontsize=7)
    return True


def fig_elo(elo: dict[str, Any], path: Path) -> bool:
    """Figure 4-like: correct vs incorrect Elo per debater (top), aggregate Elo vs judge accuracy (bottom)."""
    if not elo:
        return False
    agg = elo["aggregate"]
    with saved_figure(path, 2, 1, figsize=(6, 7)) as (fig, axes):
        ps = agg["players"]
        if elo.get("by_side"):
            bs = elo["by_side"]
            for k, side in enumerate(("correct", "incorrect")):
                ys = [bs["ratings"].get(f"{p}@{side}") for p in ps]
                xs = [i + (k - 0.5) * 0.35 for i in range(len(ps))]
                ok = [(x, y) for x, y in zip(xs, ys) if y is not None]
                axes[0].bar([a for a, _ in ok], [b for _, b in ok], 0.35, label=f"{side} Elo")
            axes[0].legend(fontsize=8)
        else:
            axes[0].bar(range(len(ps)), [agg["ratings"][p] for p in ps])
        axes[0].set_xticks(range(len(ps)))
        axes[0].set_xticklabels([p.split(":")[-1][:18] for p in ps], fontsize=7, rotation=15)
        axes[0].set_ylabel("Elo")
        accs = elo.get("accuracy_by_debater") or {}
        for p in ps:
            a = accs.get(p, {})
            if a.get("accuracy") is None:
                continue
            x = agg["ratings"][p]
            xerr = [[x - (agg["ci_low"][p] or x)], [(agg["ci_high"][p] or x) - x]]
            yerr = [[a["accuracy"] - (a["ci_low"] or a["accuracy"])], [(a["ci_high"] or a["accuracy"]) - a["accuracy"]]]
            axes[1].errorbar([x], [a["accuracy"]], xerr=xerr, yerr=yerr, fmt="o", capsize=3)
            axes[1].annotate(p.split(":")[-1][:18], (x, a["accuracy"]), fontsize=7)
        axes[1].set_xlabel("aggregate Elo")
        axes[1].set_ylabel("judge accuracy, self-play")
    return True


def fig_reliability(cal_rows: list[dict[str, Any]], path: Path) -> bool:
    if not cal_rows:
        return False
    with saved_figure(path, figsize=(5.5, 5)) as (fig, ax):
        ax.plot([0.5, 1], [0.5, 1], color="grey", ls="--", lw=0.8)
        for r in cal_rows[:12]:
            ax.plot([b["confidence"] for b in r["bins"]], [b["accuracy"] for b in r["bins"]], marker="o",
                    label=f"{r['judge'].split(':')[-1][:16]} / {r['protocol']} (ECE {decimal_round(r['ece'], 2)})")
        ax.set_xlabel("judge confidence (top choice)")
        ax.set_ylabel("accuracy")
        ax.set_xlim(0.5, 1)
        ax.set_ylim(0, 1)
        ax.legend(fontsize=6)
    return True


# -- the leaderboard's -------------------------------------------------------------------------------

def _label(judge: str) -> str:
    """A judge's axis label: the model without backend prefix and options, "(debiased)" kept."""
    if judge.startswith("human:"):
        return judge
    base, sep, rest = judge.partition(" (")
    return base.split(",")[0].split(":", 1)[-1] + (sep + rest if sep else "")


def fig_judges(bars: list[dict[str, Any]], protocols: Iterable[str], path: Path, min_n: int) -> bool:
    """The leaderboard's fig2_judges.png, Fig. 2-like: accuracy (bars, 95% CI) per protocol × judge, one
    panel per scope, from `analysis.leaderboard.figure_bars`; small cells hatched, cells failing the
    quality bar pale with a ⚑ above them, human bars labelled with the rooms they are on (the figure is
    read alone). `protocols`: every column's, so that colours match the table."""
    scopes = sorted({b["scope"] for b in bars})
    if not scopes:
        return False
    protos = sorted(set(protocols), key=_proto_key)
    colour = {p: f"C{i % 10}" for i, p in enumerate(protos)}
    # one panel per scope, stacked, so that the page shows the figure at a readable size; the legend above
    # them, in as many rows as its entries need at this width
    n_x = max(1 + b["x"] for b in bars)
    width = max(6.0, 1.1 * n_x + 2)
    n_legend = len(protos) + 2 + any(b["self_judged"] for b in bars)
    ncol = max(1, min(n_legend, int(width / 1.7)))
    legend_rows = -(-n_legend // ncol)
    height = 3.3 * len(scopes) + 0.3 + 0.25 * legend_rows
    with saved_figure(path, len(scopes), 1, figsize=(width, height), squeeze=False,
                      layout={"rect": (0, 0, 1, 1 - (0.2 + 0.25 * legend_rows) / height)}) as (fig, axes):
        for ax, sc in zip(axes[:, 0], scopes):
            mine = [b for b in bars if b["scope"] == sc]
            ps = sorted({b["protocol"] for b in mine}, key=_proto_key)
            width = 0.8 / max(1, len(ps))
            labels: dict[int, str] = {}
            for b in mine:
                k = ps.index(b["protocol"])
                acc = b["accuracy"]
                lo = acc - (b["ci_low"] if b["ci_low"] is not None else acc)
                hi = (b["ci_high"] if b["ci_high"] is not None else acc) - acc
                x = b["x"] + (k - (len(ps) - 1) / 2) * width
                ax.bar(x, acc, width, yerr=[[lo], [hi]], capsize=2, color=colour[b["protocol"]],
                       hatch="//" if b["small"] else None, alpha=0.45 if b["small"] or b["flagged"] else 1.0,
                       edgecolor="k" if b["small"] else None)
                if b["flagged"]:
                    ax.text(x, min(0.97, acc + hi + 0.02), "⚑", ha="center", va="bottom", fontsize=8, color="#a22")
                if b["self_judged"]:  # the judge is the agent's model: said on the bar itself
                    ax.text(x, 0.02, "judge = agent", ha="center", va="bottom", fontsize=6, rotation=90, color="k")
                if b["rooms"]:  # a human bar says which rooms it is on
                    where = "the models' rooms" if b["rooms"] == "models' rooms" else "all rooms"
                    ax.text(x, 0.02, f"n={b['n']}, {where}", ha="center", va="bottom", fontsize=6, rotation=90, color="white")
                labels.setdefault(b["x"], _label(b["judge"]))
            ax.axhline(0.5, color="grey", lw=0.8, ls="--")
            ax.set_xticks(sorted(labels))
            ax.set_xticklabels([labels[i] for i in sorted(labels)], rotation=25, ha="right", fontsize=8)
            ax.set_ylim(0, 1)
            ax.set_title(sc)
            ax.set_ylabel("judge accuracy (95% CI)")
        from matplotlib.patches import Patch

        handles = [Patch(color=colour[p], label=p) for p in protos] + [Patch(facecolor="white", edgecolor="k", hatch="//", label=f"n < {min_n}"),
                                                                       Patch(facecolor="white", edgecolor="white", label="⚑ fails the quality bar")]
        if any(b["self_judged"] for b in bars):
            handles.append(Patch(facecolor="white", edgecolor="white", label=f"\"judge = agent\": {SELF_JUDGED}"))
        fig.legend(handles=handles, fontsize=8, loc="upper center", ncol=ncol, frameon=False)
    return True
