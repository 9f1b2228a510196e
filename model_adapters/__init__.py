"""Built-in model backends. Each registers a factory; heavy libraries are imported lazily inside
the adapter modules, so importing this package never loads torch, transformers, vllm,
llama_cpp or lm_eval."""

from oversight_bench import hookimpl


class _Lazy:
    """A factory that imports its adapter module only when a model of that backend is built or its
    options (`Options`, on the model class) are checked."""

    def __init__(self, module: str, cls: str):
        self.module, self.cls, self.__name__ = module, cls, f"{cls}_factory"

    def model_class(self):
        import importlib

        return getattr(importlib.import_module(f"model_adapters.{self.module}"), self.cls)

    def __call__(self, spec):
        return self.model_class()(spec)

    @property
    def Options(self):  # noqa: N802 - the model class's attribute, passed through
        return getattr(self.model_class(), "Options", None)


@hookimpl
def register_models(register):
    from model_adapters.scripted import ScriptedModel

    register("scripted", ScriptedModel)
    register("llamacpp", _Lazy("llamacpp", "LlamaCppModel"))
    register("openai", _Lazy("openai_api", "OpenAIModel"))
    register("hf", _Lazy("hf", "HFModel"))
    register("vllm", _Lazy("vllm_engine", "VLLMModel"))
    register("lm_eval", _Lazy("lm_eval_adapter", "LMEvalModel"))


#: the embedded models a run uses when given none (the paper's judge is plain 0-shot predict;
#: `,debias=true` on the judge asks for the position-debiased one)
DEFAULT_ROLES = {"qwen2.5-coder-0.5b": ("judge",), "qwen2.5-coder-1.5b": ("agent",)}


@hookimpl
def register_model_names(register):
    """The embedded GGUF models answer to their bare names on the llamacpp backend."""
    import functools

    from oversight_bench.api import ModelName
    from model_adapters.local_models import MODELS, status

    for name in MODELS:
        register(ModelName(name, f"llamacpp:{name}", DEFAULT_ROLES.get(name, ()), functools.partial(status, name)))
