"""Built-in tasks: one YAML file per task in this folder, read by `yaml_task.YamlTask`."""

from pathlib import Path

from oversight_bench import hookimpl

HERE = Path(__file__).parent


@hookimpl
def register_tasks(register):
    from task_configs.yaml_task import load_yaml_dir

    for task in load_yaml_dir(HERE):
        register(task)
