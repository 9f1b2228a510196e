#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does:     pass
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin hook_bad_signature 'from oversight_bench.hookspecs import hookimpl
@hookimpl
def register_tasks(register, nonexistent_arg):
    pass'
plugin_check hook_bad_signature
