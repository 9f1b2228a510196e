#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: raise KeyboardInterrupt
. /work/probe8/lib.sh; . /work/probe8/helpers/plugin.sh
mkplugin keyboardinterrupt_import 'raise KeyboardInterrupt'
plugin_check keyboardinterrupt_import
