#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: raise RuntimeError('x' * 10_000_000)
. /work/probe8/lib.sh; . /work/probe8/helpers/plugin.sh
mkplugin huge_error_message 'raise RuntimeError('"'"'x'"'"' * 10_000_000)'
plugin_check huge_error_message
