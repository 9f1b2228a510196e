#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: a missing module
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin missing_module 'x=1'; rm site/p8mod_missing_module.py
plugin_check missing_module
