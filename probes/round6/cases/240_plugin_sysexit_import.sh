#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: sys.exit(3)
. /work/probe8/lib.sh; . /work/probe8/helpers/plugin.sh
mkplugin sysexit_import 'import sys
sys.exit(3)'
plugin_check sysexit_import
