"""What an `openai:` spec may say (`OpenAIModel.Options`), checked before a run starts: the
options, the servers of `base_url`, and which chat-completions parameters pass through by name.
The client that uses them is `openai_api`."""

from __future__ import annotations

from typing import Any, ClassVar
from urllib.parse import urlsplit, urlunsplit

from pydantic import ConfigDict, Field, field_validator, model_validator

from oversight_bench.api import redact_text
from model_adapters.options import BackendOptions

#: set per call by the protocols (or by the options above), never by a spec
HARNESS_PARAMS = {"model", "messages", "n", "max_tokens", "max_completion_tokens", "temperature", "stop", "seed",
                  "logprobs", "top_logprobs", "stream", "stream_options"}
#: the prefix of a server's own request parameter (`extra_body.top_k=20`)
EXTRA = "extra_body."


def replica_urls(text: str) -> list[str]:
    """`URL1|URL2|...` as its servers, each checked whole (scheme, host, port), so a typo in the
    second replica is refused before a run starts, not met by the first call that picks it."""
    urls = [u.strip() for u in str(text).split("|") if u.strip()]
    if not urls:
        raise ValueError("names no server")
    for url in urls:
        if any(c.isspace() or not c.isprintable() for c in url):  # a CR/LF would reach the request line
            raise ValueError(f"{redact_text(url)!r} holds a space or control character")
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - raises on a bad port or an unclosed IPv6 bracket
            problem = ("is not an http(s) URL" if parts.scheme not in ("http", "https")
                       else "names no host" if not parts.hostname else None)
        except ValueError as exc:
            problem = f"is not a valid URL ({exc})"
        if problem:
            raise ValueError(f"{redact_text(url)!r} {problem}" + (f" (server {urls.index(url) + 1} of {len(urls)})"
                                                                      if len(urls) > 1 else ""))
    return urls


def clean_url(url: str) -> str:
    """A base URL without credentials or query, for names and fingerprints."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def pass_through_params() -> frozenset[str]:
    """Request parameters a spec may pass through by name: those the SDK's chat-completions call
    takes. (The SDK is imported only when needed: 0.6 s of CPU, which a run whose calls are all
    stored never pays.)"""
    from openai.types.chat.completion_create_params import CompletionCreateParamsBase as P

    return frozenset(P.__required_keys__ | P.__optional_keys__) - HARNESS_PARAMS


class OpenAIOptions(BackendOptions):
    """Also any chat-completions parameter the SDK takes (`top_p=0.9`) and a server's own as
    `extra_body.NAME=VALUE`: passed through into every request body."""

    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True)
    #: how calls are made, not what they ask: a resume may change these (and the replicas after
    #: the first in `base_url`, see `identity_options`). The key is sent as a header only.
    EXECUTION_ONLY: ClassVar[frozenset[str]] = frozenset(
        {"concurrency", "timeout", "max_retries", "rpm", "tpm", "api_key", "api_key_env"})

    @classmethod
    def identity_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """`base_url=URL1|URL2|...` is identified by its first server, which names the model and its
        cache key; the others only share the load."""
        out = super().identity_options(options)
        if isinstance(out.get("base_url"), str) and "|" in out["base_url"]:
            out["base_url"] = next((u.strip() for u in out["base_url"].split("|") if u.strip()), "")
        return out

    concurrency: int = Field(8, ge=1, description="a whole number >= 1 (calls in flight)")
    base_url: str | None = Field(None, description="an http(s) URL such as http://127.0.0.1:8000/v1, or several "
                                                    "servers of the model as URL1|URL2")
    api_key_env: str | None = Field(None, description="the name of an environment variable")
    api_key: str | None = Field(None, description="the key itself")
    timeout: float = Field(120.0, ge=0.001, le=86400, allow_inf_nan=False,
                           description="a number of seconds from 0.001 to 86400 (the whole request: connect, wait, body)")
    max_retries: int = Field(5, ge=0, le=100, description="a whole number from 0 to 100")
    rpm: int | None = Field(None, ge=1, description="a whole number >= 1 (requests per minute)")
    tpm: int | None = Field(None, ge=1, description="a whole number >= 1 (tokens per minute, prompt + reply)")
    logprobs: bool = Field(False, description="true or false")
    images: bool = Field(False, description="true or false")
    prefill: bool = Field(False, description="true or false")
    max_tokens_field: str = Field("max_tokens", description="the request field for the token limit, e.g. max_completion_tokens")
    top_logprobs: int = Field(20, ge=1, description="a whole number >= 1")
    organization: str | None = Field(None, description="an OpenAI organization id")
    project: str | None = Field(None, description="an OpenAI project id")
    azure: bool = Field(False, description="true or false (Azure OpenAI)")
    api_version: str | None = Field(None, description="an Azure API version such as 2024-06-01")

    @field_validator("base_url")
    @classmethod
    def _servers(cls, value: str | None) -> str | None:
        if value is not None:
            replica_urls(value)
        return value

    @model_validator(mode="after")
    def _known_extras(self):
        for key in self.model_extra or {}:
            if not ((key.startswith(EXTRA) and len(key) > len(EXTRA)) or key in pass_through_params()):
                raise ValueError(
                    f"unknown option {key!r}; expected one of {', '.join(sorted(type(self).model_fields))}, a "
                    f"chat-completions parameter (e.g. top_p, reasoning_effort; not "
                    f"{', '.join(sorted(HARNESS_PARAMS - {'model', 'messages'}))}, which the protocols set) "
                    f"or extra_body.NAME=VALUE")
        return self
