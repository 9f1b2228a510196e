#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does:     pass
. /work/probe8/lib.sh; . /work/probe8/helpers/plugin.sh
mkplugin hook_bad_signature 'from oversight_bench.hookspecs import hookimpl
@hookimpl
def register_tasks(register, nonexistent_arg):
    pass'
plugin_check hook_bad_signature
