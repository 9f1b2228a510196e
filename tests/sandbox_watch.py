"""Wait for a sandbox's end instead of sleeping: the tests that check that nothing of a program
outlives it (or that nothing it left behind writes later) wait until every process of its sandbox is
gone, then assert. A sandbox is its own PID namespace (bwrap --unshare-pid); its processes are the
ones in that namespace."""

from __future__ import annotations

import json
import os
import time


class SandboxWatch:
    """Records the PID namespace of every sandbox started while it watches (through the sandbox's
    own look-up of its init, `_init_pidfd`); `wait_ended` returns once no live process on the host
    is in one of them."""

    def __init__(self, monkeypatch):
        from task_configs import sandbox

        self.namespaces: set[str] = set()
        real = sandbox._init_pidfd

        def watching(raw: bytes, bwrap_pid: int):
            fd = real(raw, bwrap_pid)
            try:
                self.namespaces.add(os.readlink(f"/proc/{json.loads(raw.decode())['child-pid']}/ns/pid"))
            except (OSError, ValueError, KeyError, TypeError):
                pass
            return fd

        monkeypatch.setattr(sandbox, "_init_pidfd", watching)

    def alive(self) -> list[str]:
        """`pid command line` of each live (not zombie) process in a watched namespace."""
        found = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                if os.readlink(f"/proc/{pid}/ns/pid") not in self.namespaces:
                    continue
                with open(f"/proc/{pid}/stat", "rb") as f:
                    if f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                        continue
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
                found.append(f"{pid} {cmdline[:200]}")
            except (OSError, IndexError):
                pass
        return found

    def wait_ended(self, limit: float = 10.0) -> None:
        """Return once every watched sandbox's processes are gone; fail, naming them, after `limit` s."""
        assert self.namespaces, "no sandbox started while watching: nothing to wait for"
        deadline = time.monotonic() + limit
        while (left := self.alive()) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not left, f"still running {limit} s after the run ended: {left}"
