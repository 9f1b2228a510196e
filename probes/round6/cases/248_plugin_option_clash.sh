#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does:     def c(x): pass
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin option_clash 'import click
from oversight_bench.hookspecs import hookimpl
@hookimpl
def register_commands(cli):
    @cli.command('"'"'p8cmd'"'"')
    @click.option('"'"'--x'"'"')
    @click.option('"'"'--x'"'"')
    def c(x): pass'
plugin_check option_clash
