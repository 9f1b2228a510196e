"""Built-in model backends. Each registers a factory; heavy libraries are imported lazily inside."""

from oversight_bench import hookimpl


@hookimpl
def register_models(register):
    from model_adapters.scripted import ScriptedModel

    register("scripted", ScriptedModel)
