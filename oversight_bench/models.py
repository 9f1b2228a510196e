"""The model interface every backend implements, and spec strings `backend:model[,key=value...]`.

Messages are OpenAI-style dicts (`{"role": "user", "content": str | list[part]}`); an image is a
part `{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}`. Protocols only
see this interface, never a backend.
"""

from __future__ import annotations

import abc
import functools
from dataclasses import dataclass, field
from typing import Any, Callable

from oversight_bench.errors import BenchError, validation_error
from oversight_bench.redact import MASK, redact_options, redact_text, redact_url, register_secret

Message = dict[str, Any]



@dataclass(frozen=True)
class ModelStatus:
    """What a plugin knows of a named model's local files, shown by `list models`: whether it can run
    here now, its size on disk, and where it is or what to install."""

    installed: bool
    size_bytes: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class ModelName:
    """A bare model name a backend plugin declares (hook `register_model_names`), so `--judge NAME`
    works without `backend:`; `default_for` names the roles ("judge", "agent") it plays in a run
    given no model for them; `status`, where the plugin gives one, tells `list models` whether the
    model's files are installed (a model behind an API has none). The core itself names no model."""

    name: str
    spec: str
    default_for: tuple[str, ...] = ()
    status: Callable[[], ModelStatus] | None = field(default=None, compare=False)


@dataclass
class Completion:
    """One sampled text with its token counts."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: "length" when the token budget ended it, "stop" for a stop string or the end of the reply,
    #: None where the backend does not say (then `completion_tokens` against the budget tells)
    finish_reason: str | None = None


@dataclass
class Capabilities:
    """What a backend can do; protocols and tasks check these before any call."""

    images: bool = False
    logprobs: bool = False  # can give P(choice) for the next token (judge confidence)
    multi_sample: bool = True  # n > 1 in one call
    #: can continue a reply already begun: `generate(..., prefix=TEXT)` samples what follows TEXT
    #: at the start of the assistant's reply (an agent forced from thinking to its argument)
    continuation: bool = False


@dataclass
class Spec:
    """A model spec parsed once (`parse_spec`, `judge_spec`) and checked once (`check_spec`): every later
    step of a run receives this object, never the text again."""

    backend: str
    model: str
    options: dict[str, Any] = field(default_factory=dict)
    #: the options as the backend's `Options` validated them (`check_spec`, defaults filled in); the adapter
    #: reads these (`parse_backend_options`) instead of validating again. None: not checked, or no `Options`
    validated: Any = field(default=None, compare=False, repr=False)
    #: True once `check_spec` has checked it: a later `check_spec` or `build_model` takes it as it is
    checked: bool = field(default=False, compare=False, repr=False)
    #: a judge's `debias=true` (`judge_spec`): a judging strategy taken off the options, so never in its name
    debias: bool = field(default=False, compare=False, repr=False)

    def __str__(self) -> str:
        opts = "".join(f",{k}={v}" for k, v in self.options.items())
        return f"{self.backend}:{self.model}{opts}"


def _coerce(value: str) -> Any:
    low = value.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


def parse_spec(text: str) -> Spec:
    """`backend:model[,key=value...]` -> Spec. A bare model name means the spec a plugin declared for it."""
    text = text.strip()
    if not text:
        raise BenchError("empty model spec; expected 'backend:model[,key=value...]' or a model name (`list models`)")
    given = 1  # where the options the user wrote begin (a named model's own options may be overridden)
    if ":" not in text:
        head, _, options = text.partition(",")
        named = model_names().get(head)
        if named is None:
            known = ", ".join(sorted(model_names())) or "none installed"
            raise BenchError(f"model spec {text!r} has no backend; expected 'backend:model[,key=value...]' "
                             f"or a model name (known names: {known})")
        given = len(named.spec.split(","))
        text = named.spec + ("," + options if options else "")
    backend, rest = text.split(":", 1)
    parts = rest.split(",")
    model, options, written = parts[0], {}, set()
    for i, part in enumerate(parts[1:], start=1):
        if "=" not in part:
            raise BenchError(f"model spec {text!r}: option {part!r} is not key=value")
        k, v = part.split("=", 1)
        k = k.strip()
        if not k:
            raise BenchError(f"model spec {text!r}: option {part!r} has an empty key")
        if i >= given:  # the user's own options: `timeout=2,timeout=3` -- which was meant?
            if k in written:
                raise BenchError(f"model spec {backend}:{model}: option {k!r} is given twice; expected each option once")
            written.add(k)
        options[k] = _coerce(v.strip())
    if not backend or not model:
        raise BenchError(f"model spec {text!r}: expected 'backend:model', got an empty backend or model")
    spec = Spec(backend, model, options)
    _register_secrets(spec)
    _check_common_options(spec)
    return spec


def model_names() -> dict[str, ModelName]:
    from oversight_bench.registry import get_registry

    return {n: e.obj for n, e in get_registry().entries["model_names"].items()}


def default_model(role: str) -> str:
    """The spec a run uses for `role` ("judge" or "agent") when none is given: the one the model
    plugins declare (`ModelName.default_for`), the built-in plugins' first where several do."""
    from oversight_bench.registry import BUILTIN_PACKAGE, get_registry

    entries = [e for e in get_registry().entries["model_names"].values() if role in e.obj.default_for]
    entries.sort(key=lambda e: e.package != BUILTIN_PACKAGE)
    if not entries:
        raise BenchError(f"no default {role} model: no installed plugin declares one; give --{role} backend:model")
    if len(entries) > 1 and entries[0].package != BUILTIN_PACKAGE:
        names = ", ".join(f"{e.obj.spec} ({e.package})" for e in entries)
        raise BenchError(f"several plugins declare a default {role} model ({names}); give --{role} backend:model")
    return entries[0].obj.spec


def _register_secrets(spec: Spec) -> None:
    """Remember the spec's secrets (credential options, URL userinfo, the value of every query
    parameter of `base_url`, the key in the variable `api_key_env` names) so every later output is scrubbed of them."""
    import os

    redact_options(spec.options)
    for k, v in spec.options.items():
        if k.endswith("_env") and isinstance(v, str):
            register_secret(os.environ.get(v))
    for secret in _spec_secrets(spec):  # every query value and the userinfo: secrets by rule, whatever their names
        register_secret(secret)


#: the range of the `timeout` option, in seconds
MIN_TIMEOUT, MAX_TIMEOUT = 0.001, 86400
#: the most retries of one call a spec may ask for
MAX_RETRIES = 100

#: options that mean the same on every backend that takes them: (check, what is expected)
_COMMON_OPTIONS = {
    # from 1 ms (timeout=1e-320 passed "> 0" and made every call time out at once) to a day
    "timeout": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and MIN_TIMEOUT <= v <= MAX_TIMEOUT,
                f"a number of seconds from {MIN_TIMEOUT:g} to {MAX_TIMEOUT:g}"),
    # at most 100: each retry may wait up to 60 s for a server's Retry-After, so max_retries=10**9 held a
    # call for ever whatever `timeout` said
    "max_retries": (lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_RETRIES,
                    f"a whole number from 0 to {MAX_RETRIES}"),
    "concurrency": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1, "a whole number >= 1"),
}


def _check_common_options(spec: Spec) -> None:
    """One-line errors for options whose meaning is the same on every backend, before any backend
    sees them (a float('abc') deep inside an adapter would be a traceback)."""
    from urllib.parse import urlsplit

    for k, (ok, expected) in _COMMON_OPTIONS.items():
        if k in spec.options and not ok(spec.options[k]):
            raise BenchError(f"model spec {redact_spec(spec)!r}: option {k}={redact_text(spec.options[k])!r} is not {expected}")
    url = spec.options.get("base_url")
    if url is not None:
        try:
            parts = urlsplit(str(url))
            parts.port  # noqa: B018 - raises on a bad port or an unclosed IPv6 bracket
        except ValueError as exc:
            raise BenchError(f"model spec {redact_spec(spec)!r}: base_url {redact_url(str(url))!r} is not a valid URL ({exc}); "
                             f"expected e.g. http://127.0.0.1:8000/v1") from None


def check_spec(spec: Spec | str) -> Spec:
    """A spec checked as far as can be without building the model: its syntax, its backend (an
    unknown name is refused with "did you mean") and every option's name, type and range
    through the backend's pydantic model (`Options` on the registered model class or factory,
    when it has one). Runs before a command writes anything, so a typo costs nothing to correct.
    The validated options stay on the spec (`Spec.validated`); a spec already checked is returned as it is."""
    from pydantic import ValidationError

    from oversight_bench.registry import get_registry

    spec = parse_spec(spec) if isinstance(spec, str) else spec
    if spec.checked:
        return spec
    factory = get_registry().get("models", spec.backend)
    options_model = getattr(factory, "Options", None)
    if options_model is not None:
        try:
            spec.validated = options_model.model_validate(spec.options)
        except ValidationError as exc:
            raise validation_error(exc, f"model spec {redact_spec(spec)!r}", noun="option", model=options_model) from None
    spec.checked = True
    return spec


def split_specs(text: str) -> list[str]:
    """A comma-separated list of specs, where a `key=value` part belongs to the spec before it:
    `a:x,b:y,best_of_n=4` -> [`a:x`, `b:y,best_of_n=4`]."""
    specs: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        is_option = "=" in part and ":" not in part.split("=", 1)[0]
        if is_option and specs:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return specs


def redact_spec(spec: Spec | str) -> str:
    """The spec as text with every secret masked (credential options, URL userinfo, the value of
    every URL query parameter; see `oversight_bench.redact`): safe for records, logs and errors."""
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    own = _spec_secrets(spec)  # an option whose value is one of them is masked too, however short
    shown = {k: MASK if not k.endswith("_env") and str(v) in own else v for k, v in redact_options(spec.options).items()}
    return redact_text(str(Spec(spec.backend, spec.model, shown)))


def _spec_secrets(spec: Spec) -> set[str]:
    """The secret values a spec configures (4 characters or more: shorter ones are not keys):
    credential-named options, `base_url`'s userinfo and every value of its query."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    from oversight_bench.redact import is_secret_name

    found = {str(v) for k, v in spec.options.items() if not k.endswith("_env") and is_secret_name(k)}
    url = spec.options.get("base_url")
    if isinstance(url, str):
        try:
            parts = urlsplit(url)
            found.update(unquote(p) for p in (parts.username, parts.password) if p)
            found.update(v for _, v in parse_qsl(parts.query, keep_blank_values=True))
        except ValueError:
            pass
    return {s for s in found if len(s) >= 4 and s != MASK}


def identity_spec(name: str) -> str:
    """A model's name (a redacted spec) without its execution settings (`BackendOptions.EXECUTION_ONLY`
    of its backend's `Options`, and what its `identity_options` drops): what a resumed run must
    share with the run it continues. A name that is not a spec of an installed backend (a human
    judge, a plugin that is gone) stands for itself."""
    from oversight_bench.registry import get_registry

    try:
        spec = parse_spec(name)
        options_model = getattr(get_registry().get("models", spec.backend), "Options", None)
    except (BenchError, ValueError, LookupError):
        return name
    identify = getattr(options_model, "identity_options", None)
    options = identify(spec.options) if identify else spec.options
    return str(Spec(spec.backend, spec.model, dict(sorted(options.items()))))  # their order changes no request


def execution_changes(old: str, new: str) -> list[str]:
    """The options in which two names of one model (`identity_spec` equal) differ: its execution
    settings that a resume changed, by name."""
    try:
        a, b = parse_spec(old).options, parse_spec(new).options
    except BenchError:
        return []
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def judge_spec(spec: Spec | str) -> Spec:
    """A judge's spec: `debias=true` asks for the position-debiased judge (both orders, averaged
    probabilities), a judging strategy, not a backend option, so it is taken off the options into
    `Spec.debias` and kept out of the judge's name (records carry it as `judge_debias`)."""
    spec = parse_spec(spec) if isinstance(spec, str) else spec
    if "debias" in spec.options:
        spec.debias = bool(spec.options.pop("debias"))
    return spec


def judge_label(name: str, debias: bool) -> str:
    """How tables show a judge: its name, with "(debiased)" when the position-debiased option was on."""
    return f"{name} (debiased)" if debias else name


def judge_of_record(name: str, debias: bool | None) -> tuple[str, bool]:
    """(name, debias) of a stored judge. Stores written before debiasing became its own setting name
    the judge `backend:model,...,debias=True`; the option is read off that name here."""
    if isinstance(name, str) and ",debias=" in name:
        try:
            spec = judge_spec(name)
        except BenchError:
            return name, bool(debias)
        return redact_spec(spec), bool(debias) or spec.debias
    return name, bool(debias)


class Model(abc.ABC):
    """A backend instance. Subclasses set `capabilities` and implement `generate`."""

    capabilities = Capabilities()
    #: how many calls may be in flight at once for this model (the runner enforces it)
    max_concurrency: int = 1
    #: how many jobs are worth interleaving when every model of a run says so (None: no limit).
    #: An in-process CPU backend that runs one call at a time gains nothing from interleaving
    #: jobs, and loses the prompt-prefix cache that consecutive turns of one job share.
    max_jobs: int | None = None

    def __init__(self, spec: Spec):
        self.spec = spec

    @functools.cached_property
    def name(self) -> str:
        """The spec with secrets hidden (computed once: every call's record carries it)."""
        return redact_spec(self.spec)

    @abc.abstractmethod
    async def generate(
        self,
        messages: list[Message],
        *,
        n: int = 1,
        max_tokens: int = 512,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> list[Completion]:
        """Return n completions of the chat `messages`. A backend whose capabilities say
        `continuation` also takes `prefix=TEXT`: the reply starts with TEXT and the completion is
        what follows it (TEXT itself not included)."""

    async def choice_probs(self, messages: list[Message], prefix: str = "Answer: ", choices=("1", "2")) -> list[float] | None:
        """P(choice) for the token after `prefix` appended as the start of the reply, normalised
        over `choices`; None when the backend cannot tell."""
        return None

    def count_tokens(self, messages: list[Message]) -> int | None:
        """Prompt tokens of `messages` as this model sees them (chat template included); None: unknown."""
        return None

    def context_length(self) -> int | None:
        """The most tokens (prompt + reply) one call may hold; None: unknown or not limited here."""
        return None

    async def aclose(self) -> None:
        """Release resources (servers, engines)."""

    async def check_ready(self, *, probs: bool = False) -> str | None:
        """Called once before a run writes anything (`probs`: it reads answer probabilities): raise a
        one-line BenchError naming the fix when this model cannot serve the run; a returned text is a
        note for the user (a form of request chosen by a probe, say)."""
        return None

    def traffic(self) -> dict[str, Any] | None:
        """What a backend behind a server sent during the run (requests, re-sends, the concurrency it
        settled at), reported and stored at the end of the run; None where there is nothing to say."""
        return None

    def request_fingerprint(self) -> dict[str, Any]:
        """What identifies this model in a cache key (secrets excluded)."""
        return {"model": self.name}


def build_model(spec: Spec | str) -> Model:
    """Construct the model through the registered backend factory. `spec`: a spec checked once
    (`check_spec`), or its text (a plugin's), parsed and checked here."""
    from oversight_bench.registry import get_registry

    spec = check_spec(spec)
    factory = get_registry().get("models", spec.backend)
    try:
        return factory(spec)
    except BenchError:
        raise
    except (TypeError, ValueError) as exc:  # e.g. int('abc') on an option a backend reads
        raise BenchError(f"model spec {redact_spec(spec)!r}: bad options ({redact_text(exc)})") from None


def text_of(content: str | list[dict]) -> str:
    """The text of a message content (image parts dropped)."""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p.get("type") == "text")
