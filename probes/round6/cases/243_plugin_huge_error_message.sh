#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: raise RuntimeError('x' * 10_000_000)
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin huge_error_message 'raise RuntimeError('"'"'x'"'"' * 10_000_000)'
plugin_check huge_error_message
