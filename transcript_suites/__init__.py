"""The built-in transcript suites and the importers that make them: Michael et al. 2023's human
debates (`nyu-2023`), Khan et al. 2024's GPT-4o debates (`khan-2024`; any llm_debate CSV: `import
llm-debate`), and any committed local run.

A plugin like any other (entry point `suites`): it registers suites and the `import` commands.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from oversight_bench import hookimpl
from oversight_bench.api import BenchError
from oversight_bench.api import DATA_ENV, ImportedSuite, RunSuite, is_run_dir, output_option
from oversight_bench.api import suite_data_dir as data_dir


def _nyu_importer(out: Path) -> None:
    from transcript_suites.importers import import_nyu_debate

    src = data_dir() / "quality" / "michael2023_debates"
    if not src.is_dir():
        raise BenchError(f"suite nyu-2023 needs the NYU debate data at {src}; set {DATA_ENV} to the datasets folder")
    import_nyu_debate(src, out, paper_only=True, both_orders=True)


NYU_2023 = ImportedSuite(
    name="nyu-2023", version="3",  # 3: the source's settings recorded, not our option defaults  # 2: each debate also mirrored, answers and debater names swapped
    description="Michael et al. 2023 QuALITY debates (human and GPT-4 debaters) with live human judges; paper rooms "
                "only, each debate also in the other answer order with the debaters' names swapped (unjudged)",
    source="julianmichael/debate (CC BY 4.0): quality/michael2023_debates",
    importer=_nyu_importer, static=("consultancy",), import_kind="nyu-debate",
    static_reason="the consultant answered the live judge's questions, so another judge cannot be put in its place",
)


def _khan_importer(out: Path) -> None:
    from transcript_suites.importers import KHAN_2024_REPORTED, import_llm_debate

    src = data_dir() / "quality" / "khan2024_TH_first40" / "data0.csv"
    if not src.is_file():
        raise BenchError(f"suite khan-2024 needs the Khan et al. 2024 debate CSV at {src}; set {DATA_ENV} to the datasets folder")
    import_llm_debate(src, out, both_orders=True, suite="khan-2024", reported=KHAN_2024_REPORTED)


KHAN_2024 = ImportedSuite(
    name="khan-2024", version="3",  # 3: the source's settings recorded, not our option defaults  # 2: the mirror swaps the debaters' names with the answers
    description="Khan et al. 2024 QuALITY debates (GPT-4o best-of-4 debaters, 3 simultaneous rounds), the first 40 "
                "questions of their human-experiment set T_H, each debate in both answer orders, the debaters' names "
                "swapped with the answers (the correct debater is \"Debater A\" in half the rooms)",
    source="Chang-Han-Chen/llm_debate (MIT; QuALITY CC BY 4.0): quality/khan2024_TH_first40",
    importer=_khan_importer, faithful_arguments=True,  # GPT-4o debaters, each arguing its assigned answer
    meta={"reference": "the CSV's `answer` column (the original judge's verdict) where filled; empty in this file"},
)


def _local_run_suites() -> list[RunSuite]:
    """One suite per committed local run under leaderboards/runs/<name>/ (none while none is committed)."""
    base = Path(__file__).resolve().parents[1] / "leaderboards" / "runs"
    if not base.is_dir():
        return []
    return [RunSuite(name=f"local-{p.name}", path=p, description="committed local run")
            for p in sorted(base.iterdir()) if is_run_dir(p)]


@hookimpl
def register_suites(register):
    register(NYU_2023)
    register(KHAN_2024)
    for s in _local_run_suites():
        register(s)


@click.group(name="import")
def import_cmd():
    """Import peer transcripts (human and LLM debates) as ordinary run directories."""


@import_cmd.command(name="nyu-debate")
@click.argument("path", type=click.Path())
@output_option("new run directory", required=True)
@click.option("--paper-only", is_flag=True, help="keep only the rooms Michael et al. 2023 included in their paper")
@click.option("--task", default="quality", show_default=True, help="task name recorded for the rooms")
@click.option("--both-orders", is_flag=True, help="store each debate a second time (unjudged) with the answers "
              "swapped and the debaters' names with them (the `nyu-2023` suite does)")
def nyu_debate(path, output, paper_only, task, both_orders):
    """Michael et al. 2023 human/GPT-4 debates and consultancies with human judges."""
    from transcript_suites.importers import import_nyu_debate

    counts = import_nyu_debate(path, output, paper_only=paper_only, task=task, both_orders=both_orders)
    click.echo(json.dumps(counts, indent=1))


@import_cmd.command(name="llm-debate")
@click.argument("path", type=click.Path())
@output_option("new run directory", required=True)
@click.option("--agent", default="gpt-4o-2024-08-06", show_default=True, help="the debater model that wrote the file")
@click.option("--task", default="quality", show_default=True, help="task name recorded for the debates")
@click.option("--both-orders", is_flag=True, help="store each debate a second time with the answers swapped "
              "and the debaters' names with them (unjudged), so a re-judge sees both orders (the `khan-2024` suite does)")
def llm_debate(path, output, agent, task, both_orders):
    """Khan et al. 2024 llm_debate CSV (the `transcript` JSON column)."""
    from transcript_suites.importers import import_llm_debate

    counts = import_llm_debate(path, output, agent=agent, task=task, both_orders=both_orders)
    click.echo(json.dumps(counts, indent=1))


@hookimpl
def register_commands(cli):
    cli.add_command(import_cmd)
