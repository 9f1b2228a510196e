"""Analysis commands: `report`, `leaderboard`, `elo`.

The core CLI adds them with `cli.add_command(...)`; user errors are BenchError (one line).
"""

from __future__ import annotations

from pathlib import Path

import click

from oversight_bench.errors import BenchError, terminal_line
from oversight_bench.flags import output_option, shared_flags
from oversight_bench.redact import redact_text
from oversight_bench.run_exit import finish_run


@click.command()
@click.argument("dirs", nargs=-1, required=True)
@output_option("folder for report.json, report.md, CSV tables and PNG figures", required=True)
@click.option("--no-figures", is_flag=True, help="tables only")
@click.option("--stance-check", "stance_check", metavar="SPEC", default=None,
              help="ask this checker model which answer each argument supports; report the share arguing the other "
                   "side or conceding (verdicts cached in each run folder's stance_check.jsonl)")
@click.option("--stance-calibration", "stance_calibration", metavar="RUN", default=None,
              help="a run whose arguments argue their side faithfully, to measure the checker on "
                   "(default: the stored copy of a suite declaring its arguments faithful, if any)")
def report(dirs, output, no_figures, stance_check, stance_calibration):
    """Accuracy with 95% CIs, permutation tests, open roles, calibration, cost and Elo for run directories."""
    from oversight_bench.models import check_spec
    from oversight_bench.publish.report import build_report
    from oversight_bench.render.report import deviation_lines

    stance_check = check_spec(stance_check) if stance_check else None  # parsed once: the Spec travels down
    rep = build_report(dirs, output, figures=not no_figures, stance_check=stance_check,
                       stance_calibration=stance_calibration)
    rows = [g for g in rep["groups"] if g["level"] == "task"]
    n = len(rows)
    click.echo("settings that differ from the paper's, per run:\n" + "\n".join(deviation_lines(rep["runs"])))
    _print_main_table(rows)
    if rep.get("stance_check"):
        _print_stance(rows, rep["stance_check"])
    flagged = sum(1 for g in rows if g.get("flagged"))
    if flagged:
        click.echo(f"{flagged} of {n} rows fail the quality bar (⚑; reasons in report.md, `quality flags`)")
    click.echo(f"report: {n} judge×agent×protocol×task rows from {len(rep['runs'])} run(s) -> {Path(output) / 'report.json'}; "
               f"every table, the permutation tests and calibration in {Path(output) / 'report.md'}")


def _print_stance(rows: list[dict], st: dict) -> None:
    """One line per row with arguments: its stance figure beside the checker's accuracy."""
    from oversight_bench.render.quality_text import stance_text

    click.echo(f"stance check by {st['checker']} ({st['calls']} checker calls made):")
    for r in rows:
        line = stance_text(r, st)
        if line:
            who = " · ".join(str(r.get(k)) for k in ("judge", "agent", "setting", "protocol", "task") if r.get(k))
            click.echo(f"  {who}: {line}")


def _print_main_table(rows: list[dict]) -> None:
    """report.md's accuracy-by-task table, in the end-of-run table's columns: a judge, agent or
    setting column only where the rows differ in it (else it is named in the title)."""
    from oversight_bench.end_of_run import accuracy_table, console

    if not rows:
        return
    keys, same = [], []
    for key in ("judge", "agent", "setting"):
        values = {r.get(key) for r in rows}
        if len(values) > 1:
            keys.append((key, key))
        elif values != {None}:
            same.append(f"{key} {next(iter(values))}")
    keys += [("protocol", "protocol"), ("task", "task")]
    title = "judge accuracy on valid answers, per question" + (f" — {', '.join(same)}" if same else "")
    console().print(accuracy_table(rows, keys, title))


@click.command()
@click.argument("dirs", nargs=-1, required=True)
@output_option("leaderboard folder (required): new, empty, or holding a leaderboard (then with --force)")
@click.option("--force", is_flag=True, help="rebuild a folder that holds a leaderboard: its pages are replaced")
@click.option("--show-small", is_flag=True, help="leaderboard.md: show (flagged) cells with n < 64 instead of hiding them")
@click.option("--carry", type=click.Path(dir_okay=False), default=None,
              help="a previous results.json: keep its cells that none of DIRS measures (marked † with their build)")
@click.option("--include-flagged", is_flag=True,
              help="count cells failing the quality bar (⚑) in the headline differences; by default they are left out")
@click.option("--stance-check", "stance_check", metavar="SPEC", default=None,
              help="ask this checker model which answer each argument of the built cells supports; each cell shows the "
                   "share arguing the other side or conceding beside the checker's accuracy (verdicts cached in each run "
                   "folder's stance_check.jsonl)")
@click.option("--stance-calibration", "stance_calibration", metavar="RUN", default=None,
              help="a run whose arguments argue their side faithfully, to measure the checker on "
                   "(default: the stored copy of a suite declaring its arguments faithful, if any)")
def leaderboard(dirs, output, force, show_small, carry, include_flagged, stance_check, stance_calibration):
    """Judge-centric leaderboard: results.json, leaderboard.md, a static HTML page, a figure, and the room pages
    its cells link to (rooms/, drawn by the viewer plugin from the cells file rooms-cells.json)."""
    from oversight_bench.publish.leaderboard import build_leaderboard
    from oversight_bench.render.leaderboard import all_small

    if not output:  # no default: one pointing into the repository overwrote the committed board
        raise BenchError("leaderboard: no output folder; give --output DIR")
    from oversight_bench.models import check_spec

    stance_check = check_spec(stance_check) if stance_check else None  # parsed once: the Spec travels down
    res = build_leaderboard(dirs, output, show_small=show_small, carry=carry, include_flagged=include_flagged,
                            force=force, stance_check=stance_check, stance_calibration=stance_calibration)
    if res.get("stance_check"):
        st = res["stance_check"]
        click.echo(f"stance check by {st['checker']} ({st['calls']} checker calls made), each cell's figure in "
                   f"leaderboard.md beside the checker's accuracy on {st['calibration']}")
    for w in res.get("warnings") or []:
        click.echo(f"warning: {terminal_line(w)}", err=True)
    devs = sorted({d for j in res["judges"] for d in j["deviations"]})
    click.echo("settings that differ from the paper's: " + ("; ".join(devs) if devs else "none"))
    n_cells = sum(len(j["cells"]) for j in res["judges"])
    rooms = res["rooms"]
    click.echo(f"leaderboard: {len(res['judges'])} judges, {n_cells} cells"
               + (f", {res['n_carried']} cells carried from {carry} ({res['n_transcripts']} carried transcript pages)"
                  if carry else "") + f" -> {Path(output) / 'index.html'}")
    if rooms["n_cells"] and rooms.get("written"):
        click.echo(f"room pages: each of the {rooms['n_cells']} cell links lists exactly the rooms it counts, "
                   f"under {Path(output) / rooms['folder']}/cells/")
    hidden = all_small(res)
    if hidden and not show_small:
        click.echo(f"every one of the {hidden} cells has n < {res['min_n']} questions, so the page and leaderboard.md hide "
                   f"them all: tick \"show cells with n < {res['min_n']}\" on the page, or rebuild with --show-small "
                   f"(or run more questions: --limit {res['min_n']} or more)")


@click.command()
@click.argument("dirs", nargs=-1)
@shared_flags
@click.option("--debaters", help="comma-separated debater specs for new cross-play debates")
@click.option("--judge", help="judge spec for new cross-play debates")
@click.option("--tasks", help="comma-separated tasks (each contributes an equal number of games)")
@click.option("--pairings", type=int, help="cross-play pairings to run (default 512, the paper's)")
@click.option("--limit", type=int, help="cross-play games per task instead of --pairings (a quick check: "
              "--limit 2 on nine tasks plays 18)")
@click.option("--selfplay", type=int, help="self-play questions per task (default: as many games as "
              "cross-play, for Fig. 4's accuracy axis; 0: cross-play only)")
@click.option("--from", "from_dirs", multiple=True, help="stored cross-play run directory (repeatable)")
@click.option("--scale", type=float, help="Elo scale (default 500, the paper's)")
@click.option("--bootstrap", type=int, help="bootstrap seeds for 95% CIs, resampling questions (default 500, the paper's)")
@click.option("--prior-games", type=float,
              help="virtual drawn games per pair of debaters that met (default 1: keeps perfect records finite; 0: the paper's bare fit)")
@output_option("folder for elo.json and the figure (required)", "--output_path", "--output-path")
def elo(dirs, from_dirs, config_path, quiet, **fields):
    """Elo of debaters from one-round cross-play debates: win-rate matrix, NLL/BFGS fit, correct/incorrect
    Elo, bootstrap CIs, Elo vs judge accuracy.

    Computes from stored cross-play runs (DIRS or --from). With --debaters/--judge/--tasks it first
    runs new debates: PAIRINGS cross-play games, each task contributing equally, each a distinct
    (question, pair) draw, plus self-play games (a debater on both sides) for the accuracy axis:
    by default as many as cross-play games, `--selfplay N` questions per task (0: none). Failed
    debates end it as `run` ends: the summary, exit status 1, and no Elo fit over an incomplete set.
    """
    from oversight_bench.render.numbers import decimal_round, pct_sign
    from oversight_bench.commands import elo_sources, fit_elo, play_elo_games
    from oversight_bench.config import load_elo_config

    cfg = load_elo_config(config_path, fields)
    sources = elo_sources(cfg, list(dirs) + list(from_dirs))
    if cfg.new_games():
        outcome, crossplay_dir = play_elo_games(cfg, progress=not quiet, log=lambda m: click.echo(redact_text(m), err=True))
        finish_run(outcome)  # the summary; exit 1 when a debate failed
        sources.append(crossplay_dir)
    res = fit_elo(cfg, sources)
    out = Path(cfg.output)
    agg, accs = res["aggregate"], res.get("accuracy_by_debater") or {}
    click.echo(f"Elo: {len(agg['players'])} debaters, {agg['n_games']} cross-play games on {agg['n_units']} "
               f"{agg['bootstrap_unit']}(s); scale {agg['scale']:g}; 95% CI from a {agg['n_bootstrap']}-seed bootstrap "
               f"over {agg['bootstrap_unit']}s; prior: {agg['prior']}")
    click.echo("deviations from the paper's Elo fit: " + ("; ".join(res["deviations"]) or "none"))
    click.echo(f"{'debater':<40} {'games':>5} {'Elo':>8}  {'95% CI':<18} self-play judge accuracy")
    for p in agg["players"]:
        lo, hi = agg["ci_low"][p], agg["ci_high"][p]
        ci = "-" if lo is None else f"[{decimal_round(lo, 1)}, {decimal_round(hi, 1)}]"
        a = accs.get(p) or {}
        acc = "no self-play" if a.get("accuracy") is None else f"{pct_sign(a['accuracy'])} (n={a['n']})"
        click.echo(f"{p:<40} {agg['games_by_player'][p]:>5} {decimal_round(agg['ratings'][p], 1):>8}  {ci:<18} {acc}")
    click.echo(f"-> {out / 'elo.json'}")

