# Area 6 (plugins): a plugin registering its own command named run (replacing the built-in)
from plugins import *
check_plugin("p09", HEAD + r'''
import click
@hookimpl
def register_commands(cli):
    @click.command(name='run')
    @click.argument('x', nargs=-1)
    @click.option('--judge')
    def run(x, judge):
        raise SystemExit(0)
    cli.add_command(run)
''')
