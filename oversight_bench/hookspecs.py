"""Plugin hooks. A plugin implements any of them and receives a `register` callback.

Example (a third-party package with `[project.entry-points.oversight_bench] my = "my_pkg"`)::

    from oversight_bench import hookimpl

    @hookimpl
    def register_protocols(register):
        register(MyProtocol())
"""

import pluggy

hookspec = pluggy.HookspecMarker("oversight_bench")
hookimpl = pluggy.HookimplMarker("oversight_bench")


@hookspec
def register_tasks(register):
    """Call register(task) for each task (an object with `.name`, `.task_type`, `.load(...)`)."""


@hookspec
def register_protocols(register):
    """Call register(protocol) for each protocol (a `oversight_bench.protocol.Protocol`)."""


@hookspec
def register_models(register):
    """Call register(backend_name, factory) where factory(spec: models.Spec) -> models.Model."""


@hookspec
def register_commands(cli):
    """Add commands to the root click Group `cli` (e.g. `cli.add_command(serve)`), as simonw/llm does."""
