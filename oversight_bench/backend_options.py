"""What every backend's options share (public: `oversight_bench.api.BackendOptions`). Each backend declares its own as `Options`, a pydantic model
on its model class (simonw/llm style): the one place that names them, types them, bounds them and
gives their defaults. The core checks a spec against it once (`oversight_bench.models.check_spec`)
before a run writes anything and keeps the typed options on the spec (`Spec.validated`); the adapter
reads its settings from them (`parse_backend_options(self, spec)` in its constructor: the typed
options, defaults filled in), so a default is written once and no option set is validated twice.

Each `Options` also says which of its options are execution settings (`EXECUTION_ONLY`: how
calls are made, never what they ask or answer, such as the calls in flight or a timeout): a resume
may change those (`identity_options`, which the run's identity compares), and nothing else.

Only pydantic is imported by a backend's module at load time, so checking a spec never loads
torch, llama_cpp or an HTTP client.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from oversight_bench.errors import MAX_COUNT, validation_error


class BackendOptions(BaseModel):
    """Unknown options are refused; numbers given where text is expected (a key `123456`) stay text."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)

    #: options that change how calls are made, not a request or its answer: a resumed run may change them
    EXECUTION_ONLY: ClassVar[frozenset[str]] = frozenset({"concurrency"})

    concurrency: int | None = Field(None, ge=1, le=MAX_COUNT, description="a whole number >= 1 (calls in flight)")
    #: what the model's calls cost, for `--max-cost` (`oversight_bench.budget`); never sent, never identity
    price_in: float | None = Field(None, ge=0, allow_inf_nan=False, description="USD per million prompt tokens, >= 0")
    price_out: float | None = Field(None, ge=0, allow_inf_nan=False, description="USD per million reply tokens, >= 0")

    @classmethod
    def identity_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """The options (as a spec gives them) that name what this model is asked and answers: all but
        the execution settings and the prices. Two specs whose identity options are equal give the
        same outputs, so a run started with one may resume with the other."""
        return {k: v for k, v in options.items() if k not in cls.EXECUTION_ONLY and k not in ("price_in", "price_out")}


def parse_backend_options(model: Any, spec: Any) -> Any:
    """`spec`'s options validated by `model.Options` (defaults filled in): those `check_spec` validated
    (`Spec.validated`), or, for adapters built without it (tests, library use), validated here, with a
    one-line BenchError naming the option otherwise."""
    validated = getattr(spec, "validated", None)
    if getattr(spec, "checked", False) and isinstance(validated, model.Options):
        return validated
    try:
        return model.Options.model_validate(spec.options)
    except ValidationError as exc:
        raise validation_error(exc, f"{spec.backend} model", noun="option", model=model.Options) from None
