#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: f()
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin recursion_import 'def f(): return f()
f()'
plugin_check recursion_import
