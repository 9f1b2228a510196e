"""What the generated reference pages list: every option model a user can set, read from the
registry, so `docs/reference/options.md` always shows the installed protocols' and backends' options."""

from __future__ import annotations

from pydantic import BaseModel


def protocol_option_models() -> list[tuple[str, type[BaseModel]]]:
    """(title, model) for the options every protocol shares and, where a protocol declares its own,
    for that protocol."""
    from oversight_bench.protocol import ProtocolOptions

    return [("Protocol options (`-o KEY=VALUE`, `options:` in a config)", ProtocolOptions)]


def backend_option_models() -> list[tuple[str, type[BaseModel]]]:
    """(backend, its Options model) for every registered model backend that declares one."""
    from oversight_bench.registry import get_registry

    reg = get_registry()
    out = []
    for name in reg.names("models"):
        options = getattr(reg.get("models", name), "Options", None)
        if isinstance(options, type) and issubclass(options, BaseModel):
            out.append((name, options))
    return out
