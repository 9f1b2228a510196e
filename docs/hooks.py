"""MkDocs hook: the options reference is generated from the option models themselves (a backend's
`Options`, the protocols' options), so the page cannot drift from the code."""

from __future__ import annotations

import re

MARKER = re.compile(r"<!--\s*options:(\w+)\s*-->")


def _cell(value) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def options_table(model) -> str:
    """A Markdown table of a pydantic model's fields: name, type, default, the paper's value, help."""
    rows = ["| option | type | default | paper | what it does |", "|---|---|---|---|---|"]
    for name, field in model.model_fields.items():
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        paper = extra.get("paper", "outside the paper")
        kind = getattr(field.annotation, "__name__", None) or str(field.annotation).replace("typing.", "")
        default = field.default if field.default_factory is None else field.default_factory()
        rows.append(f"| `{name}` | {_cell(kind)} | `{_cell(default)}` | {_cell(paper)} | {_cell(field.description)} |")
    return "\n".join(rows) + "\n"


def _protocol_tables() -> str:
    from oversight_bench.docs_reference import protocol_option_models  # noqa: I001

    return "\n".join(f"### {title}\n\n{options_table(model)}" for title, model in protocol_option_models())


def _backend_tables() -> str:
    from oversight_bench.docs_reference import backend_option_models

    return "\n".join(f"### `{name}:`\n\n{options_table(model)}" for name, model in backend_option_models())


def on_page_markdown(markdown: str, page, config, files) -> str:
    makers = {"protocols": _protocol_tables, "backends": _backend_tables}
    return MARKER.sub(lambda m: makers[m.group(1)](), markdown)
