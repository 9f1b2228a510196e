"""Shared by the web app tests: a scripted source run, the plugin registered in-process, a server
subprocess, and a minimal form-driving client."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

from helpers import cli, cli_popen

SOURCE_PROTOCOLS = "qa_without_article,qa_with_article,debate,consultancy"

#: run in a server subprocess: the plugin is added in-process where its entry point is not installed yet
SERVE_CODE = ("import human_judging; from oversight_bench.registry import get_registry; r = get_registry()\n"
              "if not r.pm.is_registered(human_judging): r.add_module_plugin('web', 'oversight-bench', 'test', module=human_judging)\n"
              "from oversight_bench.cli import cli, main; r.pm.hook.register_commands(cli=cli); main()")


def make_source(directory: Path, tasks: str = "prontoqa,quality", protocols: str = SOURCE_PROTOCOLS, limit: int = 3) -> Path:
    res = cli("run", "--judge", "scripted:default", "--agent", "scripted:default", "--tasks", tasks, "--limit", str(limit),
              "--protocols", protocols, "--output", str(directory), "--quiet",
              "--answer-order", "random", "--rounds", "2", "--best-of-n", "1")  # the small source the tests were sized on
    assert res.exit_code == 0, res.output
    return directory


def register_plugin():
    """The `serve` command on the root group, through the register_commands hook (as the entry point does)."""
    import human_judging
    from oversight_bench.cli import cli as group
    from oversight_bench.registry import get_registry

    reg = get_registry()
    if not reg.pm.is_registered(human_judging):
        reg.add_module_plugin("web", "oversight-bench", "test", module=human_judging)
    reg.pm.hook.register_commands(cli=group)
    return group


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_command(command: str, *args: str, port: int) -> subprocess.Popen:
    """`oversight-bench COMMAND ARGS --port PORT` (serve or view) in a subprocess, once it listens."""
    proc = cli_popen(command, *args, "--port", str(port), code=SERVE_CODE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                     text=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{command} exited: {proc.stdout.read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"{command} did not start")


def start_server(*args: str, port: int) -> subprocess.Popen:
    return start_command("serve", *args, port=port)


def require_chromium():
    """selenium's webdriver module, at a browser test module's top: without Debian's chromium and its
    driver the module is skipped, except under CI (which installs them), where its tests fail."""
    import pytest

    if not (shutil.which("chromium") or shutil.which("chromium-browser")) or not shutil.which("chromedriver"):
        if os.environ.get("CI") != "true":
            pytest.skip("chromium and chromium-driver are not installed (Debian: apt-get install chromium chromium-driver)",
                        allow_module_level=True)
    if os.environ.get("CI") == "true":
        return __import__("selenium.webdriver").webdriver
    return pytest.importorskip("selenium.webdriver")


def headless_chromium(webdriver, profile: str, window: str = "1280,900"):
    """Debian's chromium under selenium, headless, with a throwaway profile."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    assert chromium and driver, "CI needs Debian's chromium and chromium-driver (.ci/setup installs them)"
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--window-size={window}", f"--user-data-dir={profile}"):
        opts.add_argument(flag)
    drv = webdriver.Chrome(service=webdriver.ChromeService(executable_path=driver), options=opts)
    drv.set_page_load_timeout(60)
    return drv


def form_fields(html: str) -> dict[str, str]:
    return dict(re.findall(r'name="(csrf|id)" value="([^"]*)"', html))


def question_text(html: str) -> str | None:
    m = re.search(r'<h2 id="question-text">(.*?)</h2>', html, re.S)
    return m.group(1) if m else None
