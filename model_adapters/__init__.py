"""Built-in model backends. Each registers a factory; heavy libraries are imported lazily inside
the adapter modules, so importing this package never loads torch, transformers, vllm,
llama_cpp or lm_eval."""

from oversight_bench import hookimpl


def _lazy(module: str, cls: str):
    """A factory that imports its adapter module only when a model of that backend is built."""

    def factory(spec):
        import importlib

        return getattr(importlib.import_module(f"model_adapters.{module}"), cls)(spec)

    factory.__name__ = f"{cls}_factory"
    return factory


@hookimpl
def register_models(register):
    from model_adapters.scripted import ScriptedModel

    register("scripted", ScriptedModel)
    register("llamacpp", _lazy("llamacpp", "LlamaCppModel"))
    register("openai", _lazy("openai_api", "OpenAIModel"))
    register("hf", _lazy("hf", "HFModel"))
    register("vllm", _lazy("vllm_engine", "VLLMModel"))
    register("lm_eval", _lazy("lm_eval_adapter", "LMEvalModel"))
