#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: raise E()
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin error_str_raises 'class E(Exception):
    def __str__(self): raise ValueError('"'"'nested'"'"')
raise E()'
plugin_check error_str_raises
