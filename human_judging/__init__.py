"""Human judges in the same store: `oversight-bench serve`, a local web app where people judge stored
transcripts, or live consultancies and debates, and their decisions become ordinary `decision`
records with judge `human:<name>`; and `oversight-bench view`, which browses run directories read-only
(`viewer.py`). A built-in plugin; it needs the `[web]` extra."""

from __future__ import annotations

import ipaddress

import click

from oversight_bench import hookimpl
from oversight_bench.api import BenchError


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@click.command()
@click.option("--from", "source", help="run directory whose transcripts people judge")
@click.option("--suite", help="a transcript suite instead of --from (`oversight-bench list suites`), e.g. nyu-2023")
@click.option("--output", "--output_path", "--output-path", "output", required=True,
              help="run directory for the human decisions (resumable: serve it again to continue)")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on; non-loopback needs --token")
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--token", envvar="OVERSIGHT_BENCH_SERVE_TOKEN",
              help="study password every request must carry (invitation link: http://HOST:PORT/?token=...); "
                   "or set OVERSIGHT_BENCH_SERVE_TOKEN")
@click.option("--agent", help="agent model spec for live judging (e.g. llamacpp:qwen2.5-coder-1.5b)")
@click.option("--live", default="", help="protocols to run live with a human judge: consultancy,debate")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the assignment queue")
@click.option("--per-judge", type=int, help="at most this many items per judge")
@click.option("-o", "--option", "extra_options", multiple=True, help="protocol option for live runs as KEY=VALUE (e.g. rounds=2)")
def serve(source, suite, output, host, port, token, agent, live, seed, per_judge, extra_options):
    """Serve a web app where human judges judge stored transcripts (and live consultancies) into OUT."""
    if (source is None) == (suite is None):
        raise BenchError("serve needs exactly one of --from RUN_DIR or --suite NAME")
    try:
        import uvicorn

        from human_judging.app import create_app
        from human_judging.study import Study
    except ModuleNotFoundError as exc:
        raise BenchError(f"serve needs the web extra ({exc.name} is missing): pip install 'oversight-bench[web]'") from None
    from oversight_bench.api import parse_key_values

    if not is_loopback(host) and not token:
        raise BenchError(f"--host {host} is reachable from other machines: give --token SECRET (every request must carry it)")
    if token is not None and len(token) < 8:
        raise BenchError("--token must be at least 8 characters")
    if per_judge is not None and per_judge < 1:
        raise BenchError("--per-judge must be at least 1")
    if suite is not None:  # imported once into the user cache, like `judge --suite`
        from oversight_bench.api import get_suite

        source = str(get_suite(suite).materialize())
    study = Study(source, output, agent=agent, live=[p.strip() for p in live.split(",") if p.strip()], seed=seed,
                  per_judge=per_judge, option_overrides=parse_key_values(extra_options))
    try:
        hosts = None if is_loopback(host) else ["*"]  # off loopback the token guards every request
        app = create_app(study, token=token, allowed_hosts=hosts)
        shown = f"[{host}]" if ":" in host else host
        click.echo(f"serving {len(study.items)} items from {source} -> {output}", err=True)
        click.echo(f"judges open: http://{shown}:{port}/" + ("?token=<the token>" if token else ""), err=True)
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        study.close()
    click.echo(f"stopped; decisions are in {output}: oversight-bench report {output} --output REPORT_DIR", err=True)


@click.command()
@click.argument("dirs", nargs=-1, required=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on; non-loopback needs --token")
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--token", envvar="OVERSIGHT_BENCH_VIEW_TOKEN",
              help="password every request must carry (link: http://HOST:PORT/?token=...); or set OVERSIGHT_BENCH_VIEW_TOKEN")
@click.option("--export", "export_dir", help="write the pages as static files into this folder instead of serving")
@click.option("--cells", help="with --export: JSON file of cells to list ({\"cells\": {ID: {\"title\": ..., "
                              "\"decisions\": [[RUN_DIR, JUDGE, JOB_KEY], ...]}}}); default one per judge, protocol and task")
@click.option("--page-size", type=int, default=100, show_default=True, help="rooms per page of an exported list")
def view(dirs, host, port, token, export_dir, cells, page_size):
    """Browse run directories read-only: a sortable, filterable list of rooms, each room's turns, verdicts and calls."""
    try:
        from human_judging import viewer
    except ModuleNotFoundError as exc:
        raise BenchError(f"view needs the web extra ({exc.name} is missing): pip install 'oversight-bench[web]'") from None
    if page_size < 1:
        raise BenchError("--page-size must be at least 1")
    if export_dir is None and cells:
        raise BenchError("--cells applies to --export only")
    if export_dir is not None:
        chosen = viewer.read_cells(cells) if cells else None
        manifest = viewer.export_static(dirs, export_dir, cells=chosen, page_size=page_size)
        click.echo(f"exported {len(manifest)} cells' room lists and their rooms to {export_dir} "
                   f"(open {export_dir}/index.html; cells: {export_dir}/cells.json)", err=True)
        return
    try:
        import uvicorn
    except ModuleNotFoundError as exc:
        raise BenchError(f"view needs the web extra ({exc.name} is missing): pip install 'oversight-bench[web]'") from None
    if not is_loopback(host) and not token:
        raise BenchError(f"--host {host} is reachable from other machines: give --token SECRET (every request must carry it)")
    if token is not None and len(token) < 8:
        raise BenchError("--token must be at least 8 characters")
    index = viewer.Index(dirs, build=False)  # indexed in the background: the list answers at once
    try:
        app = viewer.create_view_app(index, token=token, allowed_hosts=None if is_loopback(host) else ["*"])
        shown = f"[{host}]" if ":" in host else host
        click.echo(f"open: http://{shown}:{port}/" + ("?token=<the token>" if token else ""), err=True)
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        index.close()


@hookimpl
def register_commands(cli):
    cli.add_command(serve)
    cli.add_command(view)


__all__ = ["serve", "view", "register_commands", "is_loopback"]
