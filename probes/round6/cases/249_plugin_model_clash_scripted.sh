#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does:     register('scripted', object)
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin model_clash_scripted 'from oversight_bench.hookspecs import hookimpl
@hookimpl
def register_models(register):
    register('"'"'scripted'"'"', object)'
plugin_check model_clash_scripted
