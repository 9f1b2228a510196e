"""The sandbox's seccomp filter: a classic BPF program bwrap loads (`--seccomp FD`) before it starts
the launcher, refusing what no GSM8KQA program needs and what outlives or escapes its sandbox:

- a new user namespace: `unshare` or `clone` with CLONE_NEWUSER fail with EPERM; `clone3` (whose
  flags sit in a struct a filter cannot read) fails with ENOSYS, so glibc falls back to `clone`,
  which is checked;
- the kernel keyrings: `add_key`, `request_key` and `keyctl` fail with EPERM, so no key a program
  adds can outlive its sandbox in its uid's keyring and reach a later program given the same uid;
- ignoring SIGCHLD: `rt_sigaction(SIGCHLD, act != NULL, ...)` fails with EPERM (reading the
  current action, `act == NULL`, is allowed), so neither SIG_IGN nor SA_NOCLDWAIT can make the kernel
  reap children by itself. Every child is then reaped by a waiting parent, or by the sandbox's init
  once orphaned, and its CPU lands in that reaper's cutime, which the supervisor's tree sum counts
  (an auto-reaped child's CPU would reach no process's cutime at all);
- any other ABI: on x86_64 the x32 syscall numbers and the i386 ABI (`int 0x80`), where the same
  calls have other numbers, fail with ENOSYS as a whole.

Written out by hand (24 instructions) rather than built with libseccomp's Python binding: that
binding is not on PyPI (only Debian's `python3-seccomp`, for the system interpreter, which a venv
does not see), and the filter is small enough to read in full. `tests/test_sandbox_seccomp.py`
checks each refusal from inside a real sandbox. Machines other than x86_64 and aarch64 get no
filter (`program()` is None) and the documented limits of the sandbox without it.
"""

from __future__ import annotations

import os
import platform
import struct

# BPF opcodes (linux/bpf_common.h, linux/filter.h)
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K

_ALLOW = 0x7FFF0000  # SECCOMP_RET_ALLOW
_ERRNO = 0x00050000  # SECCOMP_RET_ERRNO | errno
EPERM, ENOSYS = 1, 38
CLONE_NEWUSER = 0x10000000
SIGCHLD = 17  # x86_64 and aarch64 alike

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (args[0]'s low word at 16,
# args[1]'s words at 24 and 28: both machines are little-endian)
_NR, _ARCH, _ARG0_LO, _ARG1_LO, _ARG1_HI = 0, 4, 16, 24, 28

#: per machine: (AUDIT_ARCH, first number of another ABI on the same arch or None, syscall numbers)
_TABLES = {
    "x86_64": (0xC000003E, 0x40000000,
               {"unshare": 272, "clone": 56, "clone3": 435, "add_key": 248, "request_key": 249, "keyctl": 250,
                "rt_sigaction": 13}),
    "aarch64": (0xC00000B7, None,
                {"unshare": 97, "clone": 220, "clone3": 435, "add_key": 217, "request_key": 218, "keyctl": 219,
                 "rt_sigaction": 134}),
}


def program(machine: str | None = None) -> bytes | None:
    """The filter as bwrap reads it (an array of struct sock_filter), or None on an unknown machine."""
    table = _TABLES.get(machine or platform.machine())
    if table is None:
        return None
    arch, other_abi, nr = table
    # (opcode, k, jump-if-true label, jump-if-false label, own label); None: the next instruction
    code: list[tuple[int, int, str | None, str | None, str | None]] = [
        (_LD_W_ABS, _ARCH, None, None, None),
        (_JEQ_K, arch, None, "nosys", None),  # another ABI: refused as a whole
        (_LD_W_ABS, _NR, None, None, None),
        *([(_JGE_K, other_abi, "nosys", None, None)] if other_abi is not None else []),  # x32 numbers
        (_JEQ_K, nr["unshare"], "flags", None, None),
        (_JEQ_K, nr["clone"], "flags", None, None),
        (_JEQ_K, nr["clone3"], "nosys", None, None),
        (_JEQ_K, nr["add_key"], "perm", None, None),
        (_JEQ_K, nr["request_key"], "perm", None, None),
        (_JEQ_K, nr["keyctl"], "perm", None, None),
        (_JEQ_K, nr["rt_sigaction"], "sigaction", None, None),
        (_RET_K, _ALLOW, None, None, None),
        (_LD_W_ABS, _ARG0_LO, None, None, "flags"),  # unshare/clone: their flags are the first argument
        (_JSET_K, CLONE_NEWUSER, "perm", None, None),
        (_RET_K, _ALLOW, None, None, None),
        (_LD_W_ABS, _ARG0_LO, None, None, "sigaction"),  # rt_sigaction(signum, act, oldact, size)
        (_JEQ_K, SIGCHLD, None, "allow", None),
        (_LD_W_ABS, _ARG1_LO, None, None, None),  # a new action for SIGCHLD (act != NULL): refused
        (_JEQ_K, 0, None, "perm", None),
        (_LD_W_ABS, _ARG1_HI, None, None, None),
        (_JEQ_K, 0, None, "perm", None),
        (_RET_K, _ALLOW, None, None, "allow"),
        (_RET_K, _ERRNO | EPERM, None, None, "perm"),
        (_RET_K, _ERRNO | ENOSYS, None, None, "nosys"),
    ]
    at = {label: i for i, (*_, label) in enumerate(code) if label}

    def jump(label: str | None, i: int) -> int:
        return 0 if label is None else at[label] - i - 1

    return b"".join(struct.pack("=HBBI", op, jump(jt, i), jump(jf, i), k) for i, (op, k, jt, jf, _) in enumerate(code))


def memfd() -> int | None:
    """A file descriptor holding the filter, at offset 0, for bwrap's `--seccomp` (None: no filter
    here). One per sandbox: bwrap reads it to the end."""
    data = program()
    if data is None:
        return None
    fd = os.memfd_create("oversight-bench-seccomp", os.MFD_CLOEXEC)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
