#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: x = 1
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin control_char_name 'x=1' $'bad\x1b[31mname\u202e'
plugin_check control_char_name
