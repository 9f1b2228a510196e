#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: sys.stdout = None
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin stdout_none_import 'import sys
sys.stdout = None'
plugin_check stdout_none_import
