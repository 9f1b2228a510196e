"""Message handling every text backend shares, written once: a chat as text-only messages (image
parts dropped) and, for models without a chat template, as one plain prompt."""

from __future__ import annotations

from oversight_bench.api import text_of


def text_messages(messages: list[dict]) -> list[dict]:
    """The messages with each content reduced to its text (image parts dropped)."""
    return [{"role": m["role"], "content": text_of(m.get("content") or "")} for m in messages]


def plain_prompt(messages: list[dict]) -> str:
    """A base model's prompt (no chat template): the conversation as text, roles labelled only
    when there are several turns, ending where the reply starts."""
    texts = [(m["role"], text_of(m.get("content") or "")) for m in messages]
    if sum(1 for r, _ in texts if r != "system") <= 1:
        return "\n\n".join(t for _, t in texts).rstrip() + "\n\n"
    labels = {"system": "", "user": "User: ", "assistant": "Assistant: "}
    return "\n\n".join(labels.get(r, "") + t for r, t in texts) + "\n\nAssistant: "
