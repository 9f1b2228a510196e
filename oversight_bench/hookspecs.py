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
def register_suites(register):
    """Call register(suite) for each transcript suite (`.name`, `.version`, `.description`, `.source`,
    `.materialize() -> run directory`; see oversight_bench/suites.py)."""
