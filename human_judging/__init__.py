"""Human judges in the same store: `oversight-bench serve`, a local web app where people judge stored
transcripts, or live consultancies and debates, and their decisions become ordinary `decision`
records with judge `human:<name>`; and `oversight-bench view`, which browses run directories read-only
(`viewer.py`). A built-in plugin; it needs the `[web]` extra."""

from __future__ import annotations

import ipaddress
import re
import secrets
import socket

import click

from oversight_bench import hookimpl
from oversight_bench.api import BenchError, read_input_text


JUDGE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")


def judge_names(judges: str | None, judges_file: str | None) -> list[str]:
    """The judges the organiser names: `--judges alice,bob` and/or `--judges-file` (one a line, # comments)."""
    names = [n.strip() for n in (judges or "").split(",") if n.strip()]
    if judges is not None and not names:  # `--judges ","` would open a study anyone signs in to
        raise BenchError(f"--judges {judges!r} names no judge; expected names separated by commas, e.g. alice,bob")
    if judges_file:
        text = read_input_text(judges_file, "--judges-file", "a text file, one judge name a line", 1024 * 1024)
        names += [ln.split("#")[0].strip() for ln in text.splitlines() if ln.split("#")[0].strip()]
    for n in names:
        if not JUDGE_NAME.match(n):
            raise BenchError(f"judge name {n!r}: use 1 to 40 letters, digits, dots, dashes or underscores")
    return list(dict.fromkeys(names))


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_port(port: int) -> None:
    """`--port` of `serve` and `view`: a TCP port, checked before anything is opened or written."""
    if not 1 <= port <= 65535:
        raise BenchError(f"--port {port} is not a TCP port; expected a whole number from 1 to 65535")


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to HOST:PORT and listening, made before anything is printed or written (the
    server is handed it: `run_app`), so a port in use or a host that is no address of this machine is
    one line, exit 2, instead of the server's own error after the links were shown."""
    check_port(port)
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    expected = (f"expected a free port (another program listens on {port}? give --port) and --host an address "
                "of this machine (e.g. 127.0.0.1)")
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (OSError, UnicodeError) as exc:  # socket.gaierror is an OSError; an IDNA failure a UnicodeError
        reason = getattr(exc, "strerror", None) or " ".join(str(exc).split()) or type(exc).__name__
        raise BenchError(f"cannot listen on {where} ({reason}); {expected}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: a restart reuses a port in TIME_WAIT
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(addr)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise BenchError(f"cannot listen on {where} ({exc.strerror or exc}); {expected}") from None
    return sock


def run_app(app, sock: socket.socket) -> None:
    """Serve `app` on the socket `listen` bound (closed when the server stops)."""
    import uvicorn

    try:
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    finally:
        sock.close()


@click.command()
@click.option("--from", "source", help="run directory whose transcripts people judge")
@click.option("--suite", help="a transcript suite instead of --from (`oversight-bench list suites`), e.g. nyu-2023")
@click.option("--output", "--output_path", "--output-path", "output", required=True,
              help="run directory for the human decisions (resumable: serve it again to continue)")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on; non-loopback needs --judges")
@click.option("--port", type=int, default=8000, show_default=True, help="port to listen on")
@click.option("--judges", help="the study's judges, comma-separated: each gets a personal link, printed once "
                               "(only its hash is kept); only these links sign judges in")
@click.option("--judges-file", type=click.Path(dir_okay=False), help="the judges' names, one a line (with or instead of --judges)")
@click.option("--new-links", is_flag=True, help="issue new personal links to the judges named (their old links and sessions end)")
@click.option("--token", envvar="OVERSIGHT_BENCH_SERVE_TOKEN",
              help="the organiser's password for the progress page (http://HOST:PORT/organiser?token=...); "
                   "or set OVERSIGHT_BENCH_SERVE_TOKEN; without one a fresh one is made and its link printed once")
@click.option("--agent", help="agent model spec for live judging (e.g. llamacpp:qwen2.5-coder-1.5b)")
@click.option("--live", default="", help="protocols to run live with a human judge: consultancy,debate")
@click.option("--seed", type=int, default=0, show_default=True, help="seed of the assignment queue")
@click.option("--per-judge", type=int, help="at most this many items per judge")
@click.option("-o", "--option", "extra_options", multiple=True, help="protocol option for live runs as KEY=VALUE (e.g. rounds=2)")
def serve(source, suite, output, host, port, judges, judges_file, new_links, token, agent, live, seed, per_judge,
          extra_options):
    """Serve a web app where human judges judge stored transcripts (and live consultancies) into OUT."""
    if (source is None) == (suite is None):
        raise BenchError("serve needs exactly one of --from RUN_DIR or --suite NAME")
    check_port(port)  # before the study opens (and creates) the output folder
    try:
        import uvicorn  # noqa: F401

        from human_judging.app import create_app
        from human_judging.study import Study
    except ModuleNotFoundError as exc:
        raise BenchError(f"serve needs the web extra ({exc.name} is missing): pip install 'oversight-bench[web]'") from None
    from oversight_bench.api import parse_key_values, register_secret

    names = judge_names(judges, judges_file)
    if not is_loopback(host) and not names:
        raise BenchError(f"--host {host} is reachable from other machines: name the judges with --judges alice,bob "
                         "(each gets a personal link; without it anyone could judge under any name)")
    if new_links and not names:
        raise BenchError("--new-links needs --judges (or --judges-file): the judges whose links to replace")
    if token is not None and len(token) < 8:
        raise BenchError("--token must be at least 8 characters")
    if per_judge is not None and per_judge < 1:
        raise BenchError("--per-judge must be at least 1")
    sock = listen(host, port)  # before the study creates the output folder or any link is printed
    try:
        if suite is not None:  # imported once into the user cache, like `judge --suite`
            from oversight_bench.api import get_suite

            source = str(get_suite(suite).materialize())
        study = Study(source, output, agent=agent, live=[p.strip() for p in live.split(",") if p.strip()], seed=seed,
                      per_judge=per_judge, option_overrides=parse_key_values(extra_options))
    except BaseException:
        sock.close()
        raise
    try:
        issued = study.register_judges(names, new_links=new_links)
        hosts = None if is_loopback(host) else ["*"]  # off loopback every judge route needs a personal link's session
        given_token = token is not None
        token = token or secrets.token_urlsafe(24)  # the organiser's page is always token-protected
        for secret in (token, *issued.values()):
            register_secret(secret)  # shown below on purpose, once; masked in any log record or error
        app = create_app(study, token=token, allowed_hosts=hosts)
        shown = host if host not in ("0.0.0.0", "::") else socket.gethostname()
        shown = f"[{shown}]" if ":" in shown else shown
        base = f"http://{shown}:{port}"
        reach = study.reach()
        click.echo(f"serving {len(study.items)} items ({reach['questions']} questions) from {source} -> {output}; a judge "
                   f"never sees a question twice, so each judges at most {reach['each']}"
                   + (f": at most {reach['reachable']} can be judged by the {reach['judges']} judges" if reach["judges"] else ""),
                   err=True)
        for s in study.skipped:
            click.echo(f"skipped {s['count']} {s['protocol']} transcript{'' if s['count'] == 1 else 's'}: {s['reason']}", err=True)
        if study.judges():
            click.echo("each judge's personal link (shown only now; a lost one: serve again with --new-links):", err=True)
            for name in study.judges():
                click.echo(f"  {name}: " + (f"{base}/?key={issued[name]}" if name in issued
                                            else "the link given before still works"), err=True)
        else:
            click.echo(f"judges open: {base}/ and sign in with a name", err=True)
        click.echo(f"organiser (progress per judge): {base}/organiser?token="
                   + ("<the token>" if given_token else token), err=True)
        run_app(app, sock)
    finally:
        sock.close()
        study.close()
    click.echo(f"stopped; decisions are in {output}: oversight-bench report {output} --output REPORT_DIR", err=True)


@click.command()
@click.argument("dirs", nargs=-1, required=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on; non-loopback needs --token")
@click.option("--port", type=int, default=8000, show_default=True, help="port to listen on")
@click.option("--token", envvar="OVERSIGHT_BENCH_VIEW_TOKEN",
              help="password every request must carry (link: http://HOST:PORT/?token=...); or set OVERSIGHT_BENCH_VIEW_TOKEN")
@click.option("--export", "export_dir", help="write the pages as static files into this folder instead of serving")
@click.option("--cells", help="with --export: JSON file of cells to list ({\"cells\": {ID: {\"title\": ..., "
                              "\"decisions\": [[RUN_DIR, JUDGE, JOB_KEY], ...]}}}, RUN_DIR relative to the file's folder or "
                              "the current one; `leaderboard` writes one); default one per judge, protocol and task")
@click.option("--page-size", type=int, default=100, show_default=True, help="rooms per page of an exported list")
def view(dirs, host, port, token, export_dir, cells, page_size):
    """Browse run directories read-only: a sortable, filterable list of rooms, each room's turns, verdicts and calls,
    and each run's overview. A folder that holds runs (not itself one) opens every run under it."""
    try:
        from human_judging import viewer
    except ModuleNotFoundError as exc:
        raise BenchError(f"view needs the web extra ({exc.name} is missing): pip install 'oversight-bench[web]'") from None
    if page_size < 1:
        raise BenchError("--page-size must be at least 1")
    if export_dir is None and cells:
        raise BenchError("--cells applies to --export only")
    if export_dir is not None:
        chosen, back = viewer.read_cells_file(cells) if cells else (None, None)
        manifest = viewer.export_static(dirs, export_dir, cells=chosen, page_size=page_size, back=back)
        click.echo(f"exported {len(manifest)} cells' room lists and their rooms to {export_dir} "
                   f"(open {export_dir}/index.html; cells: {export_dir}/cells.json)", err=True)
        return
    try:
        import uvicorn  # noqa: F401
    except ModuleNotFoundError as exc:
        raise BenchError(f"view needs the web extra ({exc.name} is missing): pip install 'oversight-bench[web]'") from None
    if not is_loopback(host) and not token:
        raise BenchError(f"--host {host} is reachable from other machines: give --token SECRET (every request must carry it)")
    if token is not None and len(token) < 8:
        raise BenchError("--token must be at least 8 characters")
    sock = listen(host, port)  # before anything is printed: a port in use is one line
    try:
        index = viewer.Index(dirs, build=False)  # indexed in the background: the list answers at once
    except BaseException:
        sock.close()
        raise
    try:
        app = viewer.create_view_app(index, token=token, allowed_hosts=None if is_loopback(host) else ["*"])
        shown = f"[{host}]" if ":" in host else host
        click.echo(f"open: http://{shown}:{port}/" + ("?token=<the token>" if token else ""), err=True)
        run_app(app, sock)
    finally:
        sock.close()
        live = getattr(index, "live", None)  # the app's current index (rebuilt while a run is in progress)
        if live is not None:
            live.close()
        index.close()


@hookimpl
def register_commands(cli):
    cli.add_command(serve)
    cli.add_command(view)


@hookimpl
def register_room_writers(register):
    """`leaderboard` writes the room pages its cells link to through this (the core imports no plugin)."""
    def write(run_dirs, folder, cells_file):
        from human_judging.viewer import write_room_pages

        return write_room_pages(run_dirs, folder, cells_file)

    register("viewer", write)


__all__ = ["serve", "view", "register_commands", "register_room_writers", "is_loopback", "judge_names", "check_port", "listen", "run_app"]
