"""Built-in model backends. Each registers a factory; heavy libraries are imported lazily inside
the adapter modules, so importing this package never loads torch, transformers, vllm,
llama_cpp or lm_eval."""

from oversight_bench import hookimpl


def _lazy(module: str, cls: str, options_model=None):
    """A factory that imports its adapter module only when a model of that backend is built;
    `options_model` (model_adapters.options) lets the core check a spec's options before that."""

    def factory(spec):
        import importlib

        return getattr(importlib.import_module(f"model_adapters.{module}"), cls)(spec)

    factory.__name__ = f"{cls}_factory"
    factory.options_model = options_model
    return factory


@hookimpl
def register_models(register):
    from model_adapters.options import HFOptions, LlamaCppOptions, OpenAIOptions
    from model_adapters.scripted import ScriptedModel

    register("scripted", ScriptedModel)
    register("llamacpp", _lazy("llamacpp", "LlamaCppModel", LlamaCppOptions))
    register("openai", _lazy("openai_api", "OpenAIModel", OpenAIOptions))
    register("hf", _lazy("hf", "HFModel", HFOptions))
    register("vllm", _lazy("vllm_engine", "VLLMModel"))
    register("lm_eval", _lazy("lm_eval_adapter", "LMEvalModel"))


#: the embedded models a run uses when given none (the paper's judge is plain 0-shot predict;
#: `,debias=true` on the judge asks for the position-debiased one)
DEFAULT_ROLES = {"qwen2.5-coder-0.5b": ("judge",), "qwen2.5-coder-1.5b": ("agent",)}


@hookimpl
def register_model_names(register):
    """The embedded GGUF models answer to their bare names on the llamacpp backend."""
    from oversight_bench.api import ModelName
    from model_adapters.local_models import MODELS

    for name in MODELS:
        register(ModelName(name, f"llamacpp:{name}", DEFAULT_ROLES.get(name, ())))
