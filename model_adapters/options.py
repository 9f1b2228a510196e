"""Each backend's options as a pydantic model: names, types and ranges, checked by the core
(`oversight_bench.models.check_spec`) before a run writes anything, so a typo or an ill-typed
value is one line naming the option and what it expects, never a folder half made.

Only pydantic is imported here, so checking a spec never loads torch, llama_cpp or an HTTP
client. A backend's factory carries its model as `options_model` (see `__init__.py`); the
adapters read their options from the parsed spec as before.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class BackendOptions(BaseModel):
    """Unknown options are refused; numbers given where text is expected (a key `123456`) stay text."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)

    concurrency: int | None = Field(None, ge=1, description="a whole number >= 1 (calls in flight)")


class ScriptedOptions(BackendOptions):
    delay: float = Field(0.0, ge=0, description="seconds >= 0 each call waits")
    logprobs: bool = Field(False, description="true or false")
    images: bool = Field(False, description="true or false")
    continuation: bool = Field(True, description="true or false (whether it continues a begun reply)")


class LlamaCppOptions(BackendOptions):
    n_ctx: int = Field(4096, ge=16, description="a context length in tokens >= 16")
    n_threads: int | None = Field(None, ge=1, description="a whole number of threads >= 1")
    n_batch: int = Field(512, ge=1, description="a whole number >= 1")
    debias: bool = Field(False, description="true or false")
    verbose: bool = Field(False, description="true or false")


class OpenAIOptions(BackendOptions):
    """The `openai:` backend's options (the adapter module is not imported to check them)."""

    base_url: str | None = Field(None, description="an http(s) URL such as http://127.0.0.1:8000/v1")
    api_key_env: str | None = Field(None, description="the name of an environment variable")
    api_key: str | None = Field(None, description="the key itself")
    timeout: float = Field(120, gt=0, description="a number of seconds > 0")
    max_retries: int = Field(5, ge=0, description="a whole number >= 0")
    logprobs: bool = Field(False, description="true or false")
    images: bool = Field(False, description="true or false")
    prefill: bool = Field(False, description="true or false")
    max_tokens_field: str = Field("max_tokens", description="the request field for the token limit, e.g. max_completion_tokens")
    top_logprobs: int = Field(20, ge=1, description="a whole number >= 1")
    organization: str | None = Field(None, description="an OpenAI organization id")
    project: str | None = Field(None, description="an OpenAI project id")
    azure: bool = Field(False, description="true or false (Azure OpenAI)")
    api_version: str | None = Field(None, description="an Azure API version such as 2024-06-01")

    # Also any chat-completions parameter the SDK takes (`top_p=0.9`) and a server's own as
    # `extra_body.NAME=VALUE`: the adapter checks those names when it is built.
    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True)

    @model_validator(mode="after")
    def _known_extras(self):
        from model_adapters.openai_api import pass_through_params

        for key in self.model_extra or {}:
            if not (key.startswith("extra_body.") or key in pass_through_params()):
                raise ValueError(f"unknown option {key!r}; expected one of {', '.join(sorted(type(self).model_fields))}, "
                                 f"a chat-completions parameter or extra_body.NAME")
        return self


class HFOptions(BackendOptions):
    device: str = Field("auto", description="a torch device such as cpu, cuda or auto")
    dtype: str = Field("auto", description="a torch dtype such as float16 or auto")
    batch_size: int = Field(8, ge=1, description="a whole number >= 1")
    trust_remote_code: bool = Field(False, description="true or false")
