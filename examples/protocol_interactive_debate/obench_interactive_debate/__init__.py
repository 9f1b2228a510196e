"""Example protocol plugin: interactive debate (Khan et al. 2024), written on `oversight_bench.api` alone."""

from oversight_bench import hookimpl


@hookimpl
def register_protocols(register):
    from obench_interactive_debate.protocol import InteractiveDebate

    register(InteractiveDebate())
