#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: raise KeyboardInterrupt
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin keyboardinterrupt_import 'raise KeyboardInterrupt'
plugin_check keyboardinterrupt_import
