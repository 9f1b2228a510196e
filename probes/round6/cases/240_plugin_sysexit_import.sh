#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: sys.exit(3)
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin sysexit_import 'import sys
sys.exit(3)'
plugin_check sysexit_import
