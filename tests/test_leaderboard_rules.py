"""What the leaderboard says, checked against its data: one rounding rule for the page and the
Markdown, the human row's sentence built from the import record and the suite, one reference per
human judge, the figure's human bars on the table's rooms, deviations per cell where cells differ,
and a rebuild (and the rooms' export) that is byte for byte the same but for the time and the commit."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fake_runs import make_run
from helpers import REPO
from human_judging import viewer
from oversight_bench.analysis import stats
from oversight_bench.analysis.leaderboard import figure_bars
from oversight_bench.publish.leaderboard import build_leaderboard
from oversight_bench.render.leaderboard import markdown, render_index
from oversight_bench.analysis.load import load_run
from oversight_bench.render.numbers import decimal_round, p_text, pct, pts
from oversight_bench.rundir.store import Store


def _set_config(directory, **extra):
    st = Store.open(directory, write=True)
    try:
        st.write_config({**(st.read_config() or {}), **extra})
    finally:
        st.close()


def _row(res, judge):
    return next(j for j in res["judges"] if j["judge"] == judge)


def _text(html: str) -> str:
    out = []

    class T(HTMLParser):
        def handle_data(self, data):
            out.append(data)

    T().feed(html)
    return re.sub(r"\s+", " ", "".join(out))


# -- one rounding rule ----------------------------------------------------------------------------------

@pytest.mark.parametrize("value, shown", [(0.9995, "100.0"), (0.0625, "6.3"), (0.90625, "90.6"), (0.41927083, "41.9"),
                                          (0.00049, "0.0"), (0.735, "73.5"), (1.0, "100.0"), (0.0, "0.0")])
def test_percentages_round_half_up_from_the_printed_value(value, shown):
    """The value as Python writes it, rounded half up: f"{100 * v:.1f}" would say 99.9 for 0.9995 (its
    binary value is below the tie) and 6.2 for 0.0625 (ties to even); JavaScript's toFixed says 6.3."""
    assert pct(value) == shown


def test_p_values_and_points():
    assert [p_text(p) for p in (0.0002, 0.001, 0.0165, 0.85, 0.0995, 0.99999, None)] == \
        ["<0.001", "0.0010", "0.017", "0.85", "0.10", "1.0", "–"]
    assert [pts(d) for d in (0.0625, -0.0625, -0.0004, 0.0)] == ["+6.3", "−6.3", "+0.0", "+0.0"]
    assert [decimal_round(v, 0) for v in (155.5, -155.5, 2.5, -0.4)] == ["156", "-156", "3", "0"]


def test_the_rounding_rule_has_one_owner_and_analysis_writes_no_percentages():
    """Numbers become text in render.numbers only (issue 35): no other core module rounds half up by
    hand or defines a writer of percentages, points or p-values."""
    import ast

    core = REPO / "oversight_bench"
    owner = core / "render" / "numbers.py"
    writers = {"decimal_round", "pct", "pts", "p_text", "pct_sign"}
    found = []
    for path in sorted(core.rglob("*.py")):
        if path == owner:
            continue
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        found += [f"{path.relative_to(core)}: def {n.name}" for n in ast.walk(tree)
                  if isinstance(n, ast.FunctionDef) and n.name in writers]
        if "ROUND_HALF_UP" in text:
            found.append(f"{path.relative_to(core)}: ROUND_HALF_UP")
    assert found == []  # analysis importing them from render would climb a layer: test_layering refuses it


def test_figures_are_printed_by_the_one_rule_not_by_format_specs():
    """Issue 35: no printer of figures (render/, publish/, the analysis commands) rounds a float by a
    format spec (`f"{x:.3g}"`, `:.1f`: binary value, ties to even, so 0.5625 printed 0.562 in report.md
    and 0.563 elsewhere); numbers.decimal_round / sig / pct do. An Elo rating prints by the same rule
    on the command line as in leaderboard.md."""
    import ast
    import re

    from oversight_bench.render import markdown, numbers

    core = REPO / "oversight_bench"
    printers = [*sorted((core / "render").glob("*.py")), *sorted((core / "publish").glob("*.py")), core / "analysis_cli.py"]
    found = []
    for path in printers:
        if path.name == "numbers.py":
            continue
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, ast.FormattedValue) and n.format_spec is not None:
                spec = "".join(v.value for v in n.format_spec.values if isinstance(v, ast.Constant))
                if re.search(r"\.\d+[fgeFGE]", spec):
                    found.append(f"{path.relative_to(core)}:{n.lineno} :{spec}")
    templates = [*(core / "render" / "templates").rglob("*.j2"), *(REPO / "human_judging" / "templates").rglob("*.html")]
    found += [f"{t.relative_to(REPO)}: {m[0]}" for t in templates
              for m in re.finditer(r"['\"]%[^'\"]*[fge]['\"]\s*\|\s*format", t.read_text(encoding="utf-8"))]
    assert found == []  # templates: the `pct` and `fixed(digits)` filters
    assert numbers.sig(0.5625) == "0.563" and f"{0.5625:.3g}" == "0.562"
    assert markdown._fmt(0.5625, pct=False) == "0.563" and markdown._fmt(1234.5, pct=False) == "1235"
    assert numbers.sig(0.000012345) == f"{0.0000123:.3g}" and numbers.sig(-2.5e-7) == "-2.5e-07"


@pytest.fixture(scope="module")
def small_board(tmp_path_factory):
    base = tmp_path_factory.mktemp("rules")
    run = make_run(base / "run", n_questions=4, judge="sim:judge-a")
    res = build_leaderboard([run], base / "lb", n_resamples=100, figures=False, min_n=1)
    return base, run, res


def test_page_and_markdown_print_the_same_figures(small_board):
    """Values on a rounding edge print the same on the page and in leaderboard.md: 0.9995 → 100.0,
    0.0625 → 6.3, a p-value of 0.0165 → 0.017, a difference of 0.0625 → +6.3 pts."""
    _, _, res = small_board
    res = json.loads(json.dumps(res))
    row = res["judges"][0]
    cell = row["cells"]["debate · extractive"]
    cell.update(accuracy=0.9995, ci_low=0.0625, ci_high=0.99951, flagged=[])
    cell["quality"].update(invalid_rate=0.0625, answer1_share=0.90625)
    cell["references"] = [{"judge": "human:x", "accuracy": 0.0625, "n": 8, "p_value": 0.0165}]
    row["headlines"][0].update(diff=0.0625, p_value=0.0165, n=12, excluded=[])
    md = markdown(res)
    page = _text(render_index(res))
    mdrow = next(ln for ln in md.splitlines() if ln.startswith("| sim:judge-a"))
    assert "| 100.0 [6.3, 100.0] n=" in mdrow and ", invalid 6.3%" in mdrow
    assert "100.0[6.3, 100.0] n=" in page and "invalid 6.3% · answer 1 90.6%" in page
    for text in (mdrow, page):
        assert "human:x on the same rooms: 6.3 (n=8, p=0.017)" in text
        assert "+6.3 pts" in text and "p=0.017 · n=12" in text
    assert "99.9" not in mdrow and "[6.2" not in mdrow + page


# -- the human row --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def human_board(tmp_path_factory):
    """Two human judges of an imported suite on the same rooms (their import records say how many
    judges and rooms), a model re-judging a third of those rooms, and a QA run of the same judge."""
    from oversight_bench.commands import rejudge

    base = tmp_path_factory.mktemp("humans")
    nyu = make_run(base / "nyu", n_questions=3, judge="human:nyu-2023", seed=2)
    _set_config(nyu, **{"import": {"kind": "nyu-debate", "counts": {"human_judges": 11, "by_protocol": {"debate": 18, "consultancy": 36}}}})
    alice = make_run(base / "alice", n_questions=3, judge="human:alice", seed=5)
    _set_config(alice, **{"import": {"kind": "nyu-debate", "counts": {"human_judges": 1}}})
    only = {f"debate|{t}|{t}-0|-|{o}" for t in ("quality", "boolq", "mmlu") for o in ("correct_first", "correct_second")}
    rejudge(str(nyu), "scripted:default", str(base / "model"), progress=False, only=only)
    res = build_leaderboard([nyu, alice, base / "model"], base / "lb", n_resamples=200)
    return base, res, only


def test_human_sentence_is_built_from_the_data(human_board):
    """The human row's sentence names what its import record and the suite's plugin say (here 11
    judges, 18 debate and 36 consultancy rooms), on the page and in the Markdown; no author or study is
    written into the leaderboard's code or templates."""
    from oversight_bench.registry import get_registry

    base, res, _ = human_board
    about = _row(res, "human:nyu-2023")["about"]
    suite = get_registry().get("suites", "nyu-2023")
    assert "11 human judges" in about and "transcript suite nyu-2023" in about and suite.description in about
    assert "18 debate rooms" in about and "36 consultancy rooms" in about and suite.source in about
    assert "of 1 human judge imported" in _row(res, "human:alice")["about"]
    page = _text((base / "lb" / "index.html").read_text())
    assert about in page and about in (base / "lb" / "leaderboard.md").read_text().replace("\\", "")
    code = REPO / "oversight_bench"
    for f in [code / "analysis" / "leaderboard.py", code / "render" / "leaderboard.py", *sorted((code / "render" / "templates").iterdir())]:
        assert "Michael" not in f.read_text(), f


def test_one_reference_per_human_judge(human_board):
    """A model's cell on rooms two human judges judged shows each of them, each on those rooms alone."""
    base, res, only = human_board
    cell = _row(res, "scripted:default")["cells"]["debate · suite:nyu-2023"]
    refs = {r["judge"]: r for r in cell["references"]}
    assert set(refs) == {"human:alice", "human:nyu-2023"}
    for judge, d in (("human:nyu-2023", base / "nyu"), ("human:alice", base / "alice")):
        mine = [x for x in load_run(d).decisions if x.job_key in only]
        assert refs[judge]["accuracy"] == pytest.approx(stats.accuracy(mine)["accuracy"]) and refs[judge]["n"] == cell["n"]
    page = _text((base / "lb" / "index.html").read_text())
    assert all(f"{j} on the same rooms: {pct(r['accuracy'])}" in page for j, r in refs.items())


def test_figure_human_bars_are_on_the_tables_rooms(human_board):
    """The figure's human bar of a column the models judged is the human judges on exactly the rooms
    the models' cells count (what the model cells' reference says), not on all of theirs; in a column
    no model judged, on all of them."""
    base, res, only = human_board
    bars = figure_bars(res["judges"], res["columns"])
    human = next(b for b in bars if b["judge"] == "human:nyu-2023" and b["protocol"] == "debate")
    ref = next(r for r in _row(res, "scripted:default")["cells"]["debate · suite:nyu-2023"]["references"]
               if r["judge"] == "human:nyu-2023")
    all_rooms = _row(res, "human:nyu-2023")["cells"]["debate · suite:nyu-2023"]
    assert human["rooms"] == "models' rooms" and human["accuracy"] == pytest.approx(ref["accuracy"])
    assert human["n"] == ref["n"] < all_rooms["n"]
    cons = next(b for b in bars if b["judge"] == "human:nyu-2023" and b["protocol"] == "consultancy")
    assert cons["rooms"] == "all" and cons["accuracy"] == all_rooms_acc(res, "consultancy")
    model = next(b for b in bars if b["judge"] == "scripted:default")
    assert model["rooms"] is None and model["accuracy"] == _row(res, "scripted:default")["cells"]["debate · suite:nyu-2023"]["accuracy"]
    # the human row's cell shows first what the figure draws
    assert f"on the {len(only)} rooms the models' cells count" in _text((base / "lb" / "index.html").read_text())


def all_rooms_acc(res, protocol):
    return _row(res, "human:nyu-2023")["cells"][f"{protocol} · suite:nyu-2023"]["accuracy"]


# -- deviations per cell ------------------------------------------------------------------------------------

def test_deviations_are_per_cell_where_cells_differ(tmp_path):
    """A judge whose cells come from runs with different settings: each cell lists its own runs'
    deviations, and the toggle says which cells a deviation applies to."""
    x = make_run(tmp_path / "x", n_questions=3, judge="sim:judge-a")
    _set_config(x, deviations=["D-common", "D-only-x"])
    y = make_run(tmp_path / "y", n_questions=3, judge="sim:judge-a", seed=1)
    _set_config(y, deviations=["D-common", "D-only-y"], **{"import": {"kind": "llm-debate"}})
    res = build_leaderboard([x, y], tmp_path / "lb", n_resamples=100, figures=False)
    row = _row(res, "sim:judge-a")
    assert row["deviations"] == ["D-common", "D-only-x", "D-only-y"]
    xs = {k for k, c in row["cells"].items() if not c["scope"].startswith("suite:")}
    ys = set(row["cells"]) - xs
    assert xs and ys and all(row["cells"][k]["deviations"] == ["D-common", "D-only-x"] for k in xs)
    assert all(row["cells"][k]["deviations"] == ["D-common", "D-only-y"] for k in ys)
    html = (tmp_path / "lb" / "index.html").read_text()
    toggle = re.search(r'<details class="devs">(.*?)</details>', html, re.S).group(1)
    items = re.findall(r"<li>(.*?)</li>", toggle)
    assert "D-common" in items  # every cell: no list of cells
    only_x = next(i for i in items if i.startswith("D-only-x"))
    assert all(k in only_x for k in xs) and not any(k in only_x for k in ys)
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert "- D-common\n" in md and re.search(r"- D-only-y — only .*suite:llm-debate", md)


# -- a rebuild is the same ------------------------------------------------------------------------------------

def _stable(path: Path, res: dict) -> bytes:
    data = path.read_bytes()
    for k in ("generated", "commit"):
        if res.get(k):
            data = data.replace(str(res[k]).encode(), b"<" + k.encode() + b">")
            data = data.replace(str(res[k])[:12].encode(), b"<" + k.encode() + b">")
            data = data.replace(str(res[k])[:10].encode(), b"<" + k.encode() + b">")
    return data


def test_a_rebuild_and_its_export_are_byte_stable(tmp_path):
    """The same runs build the same board (all but the build's time and commit) and the same room
    pages, byte for byte, file for file."""
    a = make_run(tmp_path / "runs" / "a", n_questions=4, judge="sim:judge-a")
    b = make_run(tmp_path / "runs" / "b", n_questions=4, judge="sim:judge-b", seed=1)
    boards = []
    for name in ("one", "two"):
        out = tmp_path / name
        res = build_leaderboard([a, b], out, n_resamples=200)
        cells, back = viewer.read_cells_file(out / "rooms-cells.json")
        viewer.export_static([a, b], out / "rooms", cells=cells, back=back, page_size=5)
        boards.append((out, res))
    (one, r1), (two, r2) = boards
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    assert len([f for f in files if f.parts[0] == "rooms"]) > 20
    for f in files:
        assert _stable(one / f, r1) == _stable(two / f, r2), f
    shutil.rmtree(two / "rooms")
    build_leaderboard([a, b], two, n_resamples=200, force=True)  # rebuilt in place, --force: its room pages too
    again = sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    assert [f for f in again if f.parts[0] != "rooms"] == [f for f in files if f.parts[0] != "rooms"]
    def pages(fs):  # every room, question and run page (the lists are paged by another page size)
        return {f for f in fs if f.parts[0] == "rooms" and "cells" not in f.parts and not f.name.startswith("list-")}

    assert pages(again) == pages(files) and len(pages(files)) > 20


def test_the_committed_readme_quotes_the_board_by_the_same_rule():
    """Every "accuracy [low, high]" the committed leaderboard's README quotes is a figure of its
    results.json (a cell, a human reference, the human judges on the models' rooms) printed by the one
    rounding rule the page and leaderboard.md use: a README written from another rounding, or from a
    board since rebuilt, fails here."""
    res = json.loads((REPO / "leaderboards" / "results.json").read_text())
    figures = set()
    for row in res["judges"]:
        for c in row["cells"].values():
            for s in (c, c.get("reference"), *(c.get("references") or []), c.get("on_model_rooms")):
                if s and s.get("accuracy") is not None:
                    figures.add((pct(s["accuracy"]), pct(s.get("ci_low")), pct(s.get("ci_high"))))
    text = (REPO / "leaderboards" / "README.md").read_text()
    quoted = re.findall(r"\*{0,2}(\d+\.\d)\*{0,2} \[(\d+\.\d), (\d+\.\d)\]", text)
    assert quoted
    assert [q for q in quoted if q not in figures] == []


# -- a judge with a judge tool ----------------------------------------------------------------------------

def test_a_judge_tool_row_finds_its_turns_and_rooms_by_its_judge(tmp_path):
    """A judge that had a judge tool (`-o judge_tool=...`, beyond the paper) is its own row, labelled
    "JUDGE (judge tool: TOOL)"; the label is only the row's key: its cells find their agent turns and
    their rooms by the decisions' own judge, so they count what the same judge's row without the tool
    counts on the same transcripts (the label found no turn and no room)."""
    from oversight_bench import hookimpl
    from oversight_bench.analysis.leaderboard import ROOMS_DIR
    from oversight_bench.api import JudgeTool
    from oversight_bench.commands import rejudge
    from oversight_bench.registry import get_registry, reset_registry

    class Sizes(JudgeTool):
        name, label = "sizes", "how long each answer is"

        def supports(self, task):
            return True

        def run(self, question, answers):
            return tuple(f"{len(a)} characters" for a in answers)

    class SizesPlugin:
        @hookimpl
        def register_judge_tools(self, register):
            register(Sizes())

    reset_registry()
    try:
        get_registry().add_module_plugin("sizes", "test-sizes-tool", "0", module=SizesPlugin())
        src = make_run(tmp_path / "src", n_questions=2)
        rejudge(str(src), "scripted:default", str(tmp_path / "plain"), progress=False)
        rejudge(str(src), "scripted:default", str(tmp_path / "tool"), progress=False, option_overrides={"judge_tool": "sizes"})
        res = build_leaderboard([tmp_path / "plain", tmp_path / "tool"], tmp_path / "lb", n_resamples=100, figures=False, min_n=1)
    finally:
        reset_registry()
    rows = {r["judge"]: r for r in res["judges"]}
    assert set(rows) == {"scripted:default", "scripted:default (judge tool: sizes)"}
    plain, tool = rows["scripted:default"], rows["scripted:default (judge tool: sizes)"]
    rooms = json.loads((tmp_path / "lb" / ROOMS_DIR / "cells.json").read_text())["cells"]
    cell_of = lambda c: rooms[c["rooms"].split("/")[-2]]  # noqa: E731  (rooms/cells/CELL/index.html: that cell's rooms)
    assert plain["cells"].keys() == tool["cells"].keys()
    turns = {key: (c["quality"]["n_agent_turns"], tool["cells"][key]["quality"]["n_agent_turns"])
             for key, c in plain["cells"].items()}
    assert turns["debate · extractive"][0] > 0 and all(a == b for a, b in turns.values()), turns
    for key, c in plain["cells"].items():
        mine, theirs = cell_of(tool["cells"][key]), cell_of(c)
        assert mine["rooms"] == theirs["rooms"] > 0 and mine["missing"] == theirs["missing"] == 0, (key, mine, theirs)
