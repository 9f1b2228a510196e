#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does:     pass
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin unknown_hook 'from oversight_bench.hookspecs import hookimpl
@hookimpl
def register_everything(register):
    pass'
plugin_check unknown_hook
