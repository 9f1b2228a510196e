"""The leaderboard's pages: index.html (`render_index`, template leaderboard.html.j2) and
leaderboard.md (`markdown`) draw one table (`page_table`), every figure formatted here by the one
rounding rule (`render.numbers.decimal_round`), from the results `publish.leaderboard` built.

index.html needs no server and no script to be read: the table is HTML; a small script sorts by any
column (each cell carries its sort value in `data-sort`), filters by protocol, scope and judge, and
shows small cells on demand (URL parameters preset them). Each judge's deviations and flags are
behind a toggle of its own under its row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oversight_bench.analysis.leaderboard import SELF_JUDGED, _suite_of_import
from oversight_bench.errors import BenchError
from oversight_bench.render.markdown import md_text
from oversight_bench.render.markdown import rounded as _r
from oversight_bench.render.numbers import p_text, pct, pct_sign, pts
from oversight_bench.render.pages import render_page
from oversight_bench.render.quality_text import bar_text


def _p(p: float | None) -> str:
    text = p_text(p)
    return "p" + text if text.startswith("<") else f"p={text}"


def deviation_lines(row: dict[str, Any]) -> list[tuple[str, list[str] | None]]:
    """A row's deviations from the paper, each with the cells it applies to (None: every cell of the
    row), so that a deviation of some runs (a one-round agent) is not read as one of every cell."""
    keys = list(row["cells"])
    out = []
    for dev in row.get("deviations") or []:
        where = [k for k in keys if dev in (row["cells"][k].get("deviations") or row.get("deviations") or [])]
        out.append((dev, None if len(where) == len(keys) else where))
    return sorted(out, key=lambda x: (x[1] is not None, x[0]))


def _cell_view(row: dict[str, Any], key: str, cell: dict[str, Any] | None, min_n: int) -> dict[str, Any] | None:
    """A table cell as the page and the Markdown show it, every figure formatted here."""
    if cell is None:
        return None
    q = cell.get("quality") or None
    primary, lines = cell, []
    on = cell.get("on_model_rooms") if row["kind"] == "human" else None
    if on:
        primary = on
        lines.append(f"[{pct(on.get('ci_low'))}, {pct(on.get('ci_high'))}] n={on['n']} on the {on['n_records']} rooms "
                     "the models' cells count")
        lines.append(f"all {cell['n_records']} rooms: {pct(cell['accuracy'])} [{pct(cell['ci_low'])}, "
                     f"{pct(cell['ci_high'])}] n={cell['n']}")
    else:
        lines.append(f"[{pct(cell['ci_low'])}, {pct(cell['ci_high'])}] n={cell['n']}")
    quality = []
    if q:
        plain = f" (plain {pct_sign(q['plain_answer1_share'])})" if q.get("n_plain") else ""
        quality.append(f"invalid {pct_sign(q['invalid_rate'])} · answer 1 {pct_sign(q['answer1_share'])}{plain}")
        if q.get("n_agent_turns"):
            quality.append(f"no-arg {pct_sign(q['argumentless_rate'])} · forced "
                           f"{pct_sign(q['forced_rate'])} · cut {pct_sign(q['cut_rate'])}"
                           + (f" · u-quote args {pct_sign(q['unverified_args_rate'])}"
                              if "unverified_args_rate" in q else ""))
    else:
        quality.append("quality –")
    if cell.get("stance"):
        quality.append(str(cell["stance"]))
    refs = [f"{r.get('judge') or 'human'} on the same rooms: {pct(r['accuracy'])} (n={r['n']}, {_p(r.get('p_value'))})"
            for r in cell.get("references") or []]
    carried = cell.get("carried")
    link, why = (on or {}).get("rooms") or cell.get("rooms") or cell.get("transcripts"), cell.get("no_link")
    all_link = cell.get("rooms") if on and on.get("rooms") else None  # the "all N rooms" line's own list
    return {"key": key, "sort": "" if primary.get("accuracy") is None else repr(float(primary["accuracy"])),
            "acc": pct(primary.get("accuracy")), "small": bool(cell["small"]), "flagged": list(cell.get("flagged") or []),
            "carried": f"† from the build of {str((carried or {}).get('generated') or 'unknown')[:10]}" if carried else "",
            "lines": lines, "quality": quality, "refs": refs, "link": link, "all_link": all_link,
            "self_judged": str(cell.get("self_judged") or ""),
            "link_title": ("its rooms" if cell.get("rooms") else "its transcripts (carried page)") if link else "",
            "no_link": why or "", "n": cell["n"], "placeholder": f"n<{min_n}" + (" †" if carried else "")}


def _headline_view(h: dict[str, Any]) -> dict[str, Any]:
    left = h.get("excluded") or []
    with_ = h.get("flagged_included") or []
    own = h.get("self_judged") or []
    note = (f"without ⚑ {len(left)} cell{'s' if len(left) != 1 else ''}" if left else
            f"with ⚑ {len(with_)} cell{'s' if len(with_) != 1 else ''}" if with_ else "")
    if own:
        note = "; ".join(x for x in (note, f"without {len(own)} judge = agent cell{'s' if len(own) != 1 else ''}") if x)
    return {"sort": "" if h.get("diff") is None else repr(float(h["diff"])),
            "text": "–" if h.get("diff") is None else f"{pts(h['diff'])} pts",
            "sub": "" if h.get("diff") is None else f"{_p(h.get('p_value'))} · n={h.get('n')}" + (" †" if h.get("carried") else ""),
            "note": note, "cells": left or with_, "self_judged": own}


def page_table(result: dict[str, Any]) -> dict[str, Any]:
    """The judge table as index.html draws it: per row, the judge, a view of each column's cell
    (`_cell_view`), the headlines, and what its toggle holds (deviations per cell, flags, who the
    human judges are, why a cell has no rooms)."""
    cols = result["columns"]
    rows = []
    for j in result["judges"]:
        cells = [_cell_view(j, c["key"], j["cells"].get(c["key"]), result["min_n"]) for c in cols]
        heads = [_headline_view(h) for h in j["headlines"]]
        devs = deviation_lines(j)
        flags = [(k, c["flagged"]) for k, c in j["cells"].items() if c.get("flagged")]
        unlinked = [(k, c["no_link"]) for k, c in j["cells"].items() if c.get("no_link")]
        n_some = sum(1 for _, where in devs if where is not None)
        summary = [f"{len(devs)} deviation{'s' if len(devs) != 1 else ''} from the paper"
                   + (f" ({n_some} in some cells only)" if n_some else "")]
        if flags:
            summary.append(f"⚑ {len(flags)} flagged cell{'s' if len(flags) != 1 else ''}")
        rows.append({"judge": j["judge"], "kind": j["kind"], "cells": cells, "headlines": heads, "deviations": devs,
                     "flags": flags, "unlinked": unlinked, "about": j.get("about") or "", "summary": " · ".join(summary),
                     "excluded": [(result["headline_names"][i], h["cells"], bool(j["headlines"][i].get("flagged_included")))
                                  for i, h in enumerate(heads) if h["cells"]],
                     "self_judged": [(result["headline_names"][i], h["self_judged"]) for i, h in enumerate(heads) if h["self_judged"]]})
    paired = [{"judge": j["judge"], "scope": t["scope"], "pair": f"{t['a']} − {t['b']}", "n": t["n"],
               "a": pct(t["accuracy_a"]), "b": pct(t["accuracy_b"]), "diff": pts(t["diff"]), "p": p_text(t["p_value"]),
               "notes": "; ".join(_paired_notes(t)) + (" †" if t.get("carried") else "")}
              for j in result["judges"] for t in j.get("paired") or []]
    return {"columns": cols, "headline_names": result["headline_names"], "rows": rows, "paired": paired}


def markdown(result: dict[str, Any], show_small: bool = False) -> str:
    """leaderboard.md: the same table, figures and notes as index.html (`page_table`), as Markdown."""
    table = page_table(result)
    cols = result["columns"]
    links = " · ".join(f"[{name}]({name})" for name in ("README.md", "results.json", "index.html")
                       if name != "README.md" or result.get("readme"))
    lines = ["# oversight-bench leaderboard: judges", "",
             f"Generated {result['generated']} (code {result['commit'] or 'unknown'}). {links}.", "",
             "Accuracy % over valid answers [95% CI] n (questions; replicates of a question averaged, normal "
             "approximation), with the invalid rate beside it; the transcript quality of each cell is in the table "
             f"below. ⚑ marks a cell failing the quality bar ({result.get('quality_bar') or bar_text()}), with its "
             "reasons; flagged cells are "
             + ("included in the headline differences (--include-flagged). " if result.get("include_flagged")
                else "left out of the headline differences (`--include-flagged` puts them in). ")
             + (f"Cells with n < {result['min_n']} are flagged ⚠." if show_small else
                f"Cells with n < {result['min_n']} are hidden (`leaderboard --show-small` shows them).")
             + " Figures are rounded half up from the value in results.json. " + _rooms_sentence(result, md=True), "",
             *([_all_hidden_sentence(result, md=True), ""] if all_small(result) and not show_small else []),
             "| judge | " + " | ".join(md_text(c["key"]) for c in cols) + " | "
             + " | ".join(map(md_text, result["headline_names"])) + " |",
             "|" + "---|" * (len(cols) + 1 + len(result["headline_names"]))]
    for row in table["rows"]:
        cells = []
        for v in row["cells"]:
            if v is None:
                cells.append("–")
            elif v["small"] and not show_small:
                cells.append(v["placeholder"])
            else:
                text = f"{v['acc']} " + (f"({'; '.join(v['lines'])})" if len(v["lines"]) > 1 else v["lines"][0])
                if v["quality"] and v["quality"][0] != "quality –":
                    text += ", " + v["quality"][0].split(" · ")[0]
                text += (" ⚠" if v["small"] else "") + (" †" if v["carried"] else "")
                text += f" [{md_text(v['self_judged'])}]" if v["self_judged"] else ""
                text += "".join(f" ({md_text(r)})" for r in v["refs"])
                if v["flagged"]:
                    text += " ⚑ " + "; ".join(map(md_text, v["flagged"]))
                cells.append(text)
        heads = [h["text"] + (f", {h['sub']}" if h["sub"] else "")
                 + (f" ({'with' if h['note'].startswith('with ') else 'without'} ⚑ {', '.join(map(md_text, h['cells']))})"
                    if h["cells"] else "")
                 + (f" (without judge = agent {', '.join(map(md_text, h['self_judged']))})" if h["self_judged"] else "")
                 for h in row["headlines"]]
        name = md_text(row["judge"]) + (" (human reference)" if row["kind"] == "human" else "")
        lines.append("| " + " | ".join([name, *cells, *heads]) + " |")  # what came from the runs is md_text already
    abouts = [r["about"] for r in table["rows"] if r["about"]]
    if abouts:
        lines += ["", "Human rows: " + " ".join(md_text(a) for a in abouts)]
    lines += _quality_md(result, show_small)
    lines += _stance_md(result, show_small)
    lines += _paired_md(result)
    lines += _notes_md(table)
    carried = sorted({(x["carried"].get("generated") or "?", x["carried"].get("commit") or "?")
                      for j in result["judges"] for x in j["cells"].values() if x.get("carried")})
    if carried:
        lines += ["", "† carried from an earlier build whose runs were not given to this one: "
                  + "; ".join(f"generated {md_text(g)}, code {md_text(c[:12])}" for g, c in carried) + "."]
    elo = result.get("elo")
    lines += ["", "## Debater Elo (cross-play)", ""]
    if elo:
        lines += [f"{elo['n_games']} cross-play games of the runs given to this build; 95% bootstrap CIs "
                  f"({md_text(elo.get('bootstrap_unit') or 'games')}). Prior: {md_text(elo.get('prior') or 'not recorded')}.", "",
                  "| debater | games | Elo | 95% CI |", "|---|---|---|---|"]
        for p in sorted(elo["players"], key=lambda p: -p["rating"]):
            lines.append(f"| {md_text(p['player'])} | {p['games']} | {_r(p['rating'])} | [{_r(p['ci_low'])}, {_r(p['ci_high'])}] |")
    else:
        lines.append("No cross-play runs given (Elo is never carried from an earlier build: only cross-play runs given "
                     "to this one are rated).")
    return "\n".join(lines) + "\n"


def _rooms_sentence(result: dict[str, Any], md: bool = False) -> str:
    """Where the evidence is: each built cell links to the list of exactly the rooms it counts."""
    rooms = result.get("rooms") or {}
    if not rooms.get("n_cells"):
        return "No cell of this build has room pages (every cell is carried)."
    code = (lambda t: f"`{t}`") if md else (lambda t: t)
    how = ("written by the build (the viewer plugin draws them)" if rooms.get("written") else
           f"written by {code('oversight-bench view RUN_DIRS --export ' + rooms['folder'] + ' --cells ' + rooms['cells_file'])}")
    return (f"Each cell links to the list of exactly the rooms it counts ({code(rooms['folder'] + '/cells/<cell>/')}; "
            f"a human cell's figure on the models' rooms links to those, its \"all N rooms\" line to all of them; "
            f"every room of the runs: {code(rooms['folder'] + '/index.html')}), {how} "
            f"from {code(rooms['cells_file'])}, which names each cell's decisions.")


def _notes_md(table: dict[str, Any]) -> list[str]:
    """Per judge: its deviations from the paper (with the cells a deviation applies to where not all),
    its flags, and cells without room pages, and why (the headline cells name the cells they leave out)."""
    out = []
    for row in table["rows"]:
        items = []
        for dev, where in row["deviations"]:
            items.append(f"- {md_text(dev)}" + (f" — only {', '.join(map(md_text, where))}" if where is not None else ""))
        if not row["deviations"]:
            items.append("- no deviation from the paper recorded")
        items += [f"- ⚑ {md_text(k)}: " + "; ".join(map(md_text, why)) for k, why in row["flags"]]
        items += [f"- {md_text(name)} without {', '.join(map(md_text, cells))}: {SELF_JUDGED}" for name, cells in row["self_judged"]]
        items += [f"- {md_text(k)}: {md_text(why)}" for k, why in row["unlinked"]]
        out += ["", f"**{md_text(row['judge'])}** ({md_text(row['summary'])})", "", *items]
    return ["", "## Deviations from the paper and flags, per judge", *out] if out else []


def _quality_md(result: dict[str, Any], show_small: bool) -> list[str]:
    """The transcript quality of every shown cell: invalid answers, accuracy with them counted wrong,
    agent turns argument-less / forced / cut ('–': unknown, no budget records), answer-1 share, flags."""
    pc = pct_sign
    rows = []
    for j in result["judges"]:
        for key, x in j["cells"].items():
            q = x.get("quality")
            if not q or (x["small"] and not show_small):
                continue
            words = "–" if q["mean_argument_words"] is None else _r(q["mean_argument_words"])
            turns = [str(q["n_agent_turns"]), pc(q["argumentless_rate"]), pc(q["forced_rate"]), pc(q["cut_rate"]), words] \
                if q["n_agent_turns"] else ["0", "", "", "", ""]
            rows.append("| " + " | ".join([
                md_text(j["judge"]), md_text(key), f"{q['n_invalid']}/{q['n_records']}", pc(q["accuracy_invalid_wrong"]), *turns,
                pc(q["answer1_share"]), "; ".join(map(md_text, x.get("flagged") or []))]) + " |")
    if not rows:
        return []
    return ["", "## Transcript quality", "",
            "Accuracy above is over valid answers; here invalid answers are counted as wrong. Agent turns: the share "
            "without an argument, forced (thinking budget spent, continued from \"Argument:\") and cut (argument budget "
            "spent) — – where the runs recorded no budgets. Answer 1: the judge's share of answer 1 among valid answers.", "",
            "| judge | cell | invalid | acc % (invalid = wrong) | agent turns | no-arg | forced | cut | words | answer 1 | flags |",
            "|" + "---|" * 11, *rows]


def _stance_md(result: dict[str, Any], show_small: bool) -> list[str]:
    """The stance check of every shown cell with arguments (`leaderboard --stance-check SPEC`), each figure
    beside the checker's own accuracy on its calibration turns."""
    st = result.get("stance_check")
    if not st:
        return []
    rows = [f"| {md_text(j['judge'])} | {md_text(k)} | {md_text(c['stance'])} |" for j in result["judges"]
            for k, c in j["cells"].items() if c.get("stance") and (show_small or not c["small"])]
    return ["", "## Stance check", "",
            f"Checker {md_text(st['checker'])} asked which answer each argument supports (1, 2, or 0: neither or "
            f"concedes); an argument naming the other answer or 0 argues the other side or concedes. The checker is a model "
            f"that errs: its accuracy on turns known to argue their side ({md_text(st['calibration'])}) is beside every figure.",
            "", "| judge | cell | stance |", "|---|---|---|", *(rows or ["| – | – | no shown cell has checked arguments |"])]


def _paired_notes(t: dict[str, Any]) -> list[str]:
    """The labels of a paired test's cells (`paired_tests`), as the page and leaderboard.md both note them."""
    return [f"⚑ {k}" for k in t.get("flagged") or []] + [f"{k}: {SELF_JUDGED}" for k in t.get("self_judged") or []]


def _paired_md(result: dict[str, Any]) -> list[str]:
    """Every row's paired tests per column (`paired_tests`), as leaderboard.md's table."""
    rows = []
    for j in result["judges"]:
        for t in j.get("paired") or []:
            notes = _paired_notes(t)
            rows.append("| " + " | ".join([md_text(j["judge"]), md_text(t["scope"]), md_text(f"{t['a']} − {t['b']}"), str(t["n"]),
                                           pct(t["accuracy_a"]), pct(t["accuracy_b"]), pts(t["diff"]), p_text(t["p_value"]),
                                           "; ".join(map(md_text, notes)) + (" †" if t.get("carried") else "")]) + " |")
    if not rows:
        return []
    return ["", "## Paired tests per column", "",
            "Within one column scope, each protocol against the one it is compared with: the paper's pairs and each "
            "protocol judged from another's stored transcripts (`judge --from RUN --as NAME`) against that one, on the "
            "questions both cells have (accuracy per question, both orders averaged; paired permutation test).", "",
            "| judge | scope | A − B | n | A % | B % | A − B (pts) | p | notes |", "|" + "---|" * 9, *rows]


def all_small(result: dict[str, Any]) -> int:
    """How many cells the board has when every one is small (n < min_n: hidden unless shown), else 0."""
    cells = [c for j in result["judges"] for c in j["cells"].values()]
    return len(cells) if cells and all(c.get("small") for c in cells) else 0


def _all_hidden_sentence(result: dict[str, Any], md: bool = False) -> str:
    n, m = all_small(result), result["min_n"]
    if not n:
        return ""
    how = "`leaderboard --show-small`" if md else "leaderboard --show-small"
    return (f"Every one of the {n} cells has n < {m} questions, so all are hidden: "
            + ("" if md else f"tick \"show cells with n < {m}\" below, or ") + f"rebuild with {how} (or run "
            f"at least {m} questions per cell).")


def render_index(result: dict[str, Any]) -> str:
    """index.html of a built (or crafted) result: the table as HTML (`page_table`), the figure, Elo."""
    return render_page("leaderboard.html.j2", title="oversight-bench leaderboard", r=result, table=page_table(result),
                       quality_bar=result.get("quality_bar") or bar_text(), rooms_sentence=_rooms_sentence(result),
                       all_hidden=_all_hidden_sentence(result))


def carried_page(page: dict[str, Any]) -> str:
    """A carried cell's transcript page, rendered again from the data its board kept beside it
    (`analysis.carry`: checked field by field): its rooms, each once, with every judge's verdict."""
    return render_page("rooms.html.j2", **{k: v for k, v in page.items() if k != "schema"})


def human_about(row: dict[str, Any]) -> str:
    """Who a human row's judges are, from its data: the import record of each run behind it (the
    suite, how many judges and rooms, the source) and the suite's own description in the registry."""
    parts = []
    for prov in row.get("provenance") or []:
        imp = prov.get("import") if isinstance(prov.get("import"), dict) else None
        if not imp:
            continue
        suite = _suite_of_import(str(imp.get("kind")))
        counts = imp.get("counts") if isinstance(imp.get("counts"), dict) else {}
        n = counts.get("human_judges")
        text = "the live verdicts" + (f" of {n} human judge{'s' if n != 1 else ''}" if n else " of the human judges")
        text += f" imported with the transcript suite {suite}"
        described = _suite_description(suite)
        if described:
            text += f" ({described})"
        by = counts.get("by_protocol") if isinstance(counts.get("by_protocol"), dict) else {}
        if by:
            text += ": " + ", ".join(f"{n} {p} rooms" for p, n in sorted(by.items()))
        parts.append(text)
    if not parts:
        runs = sorted({Path(str(p.get("dir"))).name for p in row.get("provenance") or [] if p.get("dir")})
        parts.append("human verdicts recorded in " + (", ".join(runs) if runs else "runs this build was not given"))
    n_rooms = sum(c.get("n_records") or 0 for c in row["cells"].values())
    return (f"{row['judge']}: " + "; ".join(parts) + f" ({n_rooms} rooms in this table). In a model's cell, these judges"
            " on the same rooms, with the paired permutation p-value; in this row, the rooms the models' cells"
            " of the column count first, then all of this row's rooms.")


def _suite_description(name: str) -> str | None:
    """A suite's description and source, as its plugin registers them (None when it is not installed)."""
    from oversight_bench.registry import get_registry

    try:
        suite = get_registry().get("suites", name)
    except BenchError:
        return None
    desc, source = getattr(suite, "description", None), getattr(suite, "source", None)
    return "; ".join(str(x) for x in (desc, f"source: {source}" if source else None) if x) or None
