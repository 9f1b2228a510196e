"""Human judges in the same store: `oversight-bench serve`, a local web app where people judge stored
transcripts, or live consultancies and debates, and their decisions become ordinary `decision`
records with judge `human:<name>` (a built-in plugin; it needs the `[web]` extra)."""

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
    if not 1 <= port <= 65535:  # before the study opens (and creates) the output folder
        raise BenchError(f"--port {port} is not a TCP port; expected a whole number from 1 to 65535")
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
    click.echo(f"stopped; decisions are in {output}: oversight-bench report {output} -o REPORT_DIR", err=True)


@hookimpl
def register_commands(cli):
    cli.add_command(serve)


__all__ = ["serve", "register_commands", "is_loopback"]
