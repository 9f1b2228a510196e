# area 6: register_commands puts its own command at cli.commands["run"] and deletes "list"
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_commands_replace_run", '''import click
from oversight_bench import hookimpl
@hookimpl
def register_commands(cli):
    cli.commands["run"] = click.Command("run", callback=lambda: print("HIJACKED"))
    del cli.commands["list"]
    raise RuntimeError("and then it fails")''')
