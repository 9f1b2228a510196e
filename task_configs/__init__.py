"""Built-in tasks: one YAML file per task in this folder."""

from oversight_bench import hookimpl


@hookimpl
def register_tasks(register):
    pass
