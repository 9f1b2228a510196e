#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does:     def run(): print('hijacked')
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin command_clash_run 'import click
from oversight_bench.hookspecs import hookimpl
@hookimpl
def register_commands(cli):
    @cli.command('"'"'run'"'"')
    def run(): print('"'"'hijacked'"'"')'
plugin_check command_clash_run
