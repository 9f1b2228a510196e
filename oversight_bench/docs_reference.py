"""What the generated reference pages list: every option model a user can set, read from the
registry, so `docs/reference/options.md` always shows the installed protocols' and backends' options."""

from __future__ import annotations

from pydantic import BaseModel


def protocol_option_models() -> list[tuple[str, type[BaseModel]]]:
    """(title, model): the options every protocol shares, then each installed protocol's own (the
    fields its `Options` adds to `CommonOptions`)."""
    from pydantic import create_model

    from oversight_bench.protocol_options import CommonOptions
    from oversight_bench.registry import get_registry

    out: list[tuple[str, type[BaseModel]]] = [("Every protocol (`-o KEY=VALUE`, `options:` in a config)", CommonOptions)]
    reg = get_registry()
    for name in reg.names("protocols"):
        options = getattr(reg.get("protocols", name), "Options", CommonOptions)
        own = {k: (f.annotation, f) for k, f in options.model_fields.items() if k not in CommonOptions.model_fields}
        if own:
            out.append((f"`{name}` adds", create_model(f"{name}_own", **own)))
    return out


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
