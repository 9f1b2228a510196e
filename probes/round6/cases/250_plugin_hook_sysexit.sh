#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does:     sys.exit('bye')
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin hook_sysexit 'import sys
from oversight_bench.hookspecs import hookimpl
@hookimpl
def register_tasks(register):
    sys.exit('"'"'bye'"'"')'
plugin_check hook_sysexit
