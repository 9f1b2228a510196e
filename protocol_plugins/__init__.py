"""Built-in protocols, one module each (registered through the `oversight_bench` entry point)."""

from oversight_bench import hookimpl


@hookimpl
def register_protocols(register):
    pass
