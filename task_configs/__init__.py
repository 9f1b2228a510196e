"""Built-in tasks: one YAML file per task in this folder (read by the core's YAML task engine), the
dataset-specific loaders they name, `build-task`, the sandbox that grades GSM8KQA's
model-written programs with its `--unsafe-exec` flag, and GSM8KQA's judge tool `execute`
(`-o judge_tool=execute`: the judge sees each program's sandboxed result; beyond the paper)."""

from pathlib import Path

from oversight_bench import hookimpl

HERE = Path(__file__).parent


@hookimpl
def register_tasks(register):
    from oversight_bench.api import load_yaml_dir

    for task in load_yaml_dir(HERE):
        register(task)


@hookimpl
def register_loaders(register):
    from task_configs.loaders import BUILTIN, lazy

    for name, module in BUILTIN.items():
        register(name, lazy(module))


@hookimpl
def register_commands(cli):
    from task_configs.build_task import build_task
    from task_configs.export_task import export_task

    cli.add_command(build_task)
    cli.add_command(export_task)


@hookimpl
def register_run_options(add):
    from task_configs.sandbox import UNSAFE_EXEC_ATTRS, UNSAFE_EXEC_FLAG

    add(UNSAFE_EXEC_FLAG, **UNSAFE_EXEC_ATTRS)


@hookimpl
def register_judge_tools(register):
    from task_configs.judge_tool import ExecuteTool

    register(ExecuteTool())
