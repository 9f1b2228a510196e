#!/bin/bash
# area: plugins; tries: an installed plugin (dist-info entry point) that does: os.write(1, b'garbage not json\n')
. $PROBE/lib.sh; . $PROBE/helpers/plugin.sh
mkplugin write_fd1_import 'import os
os.write(1, b'"'"'garbage not json\n'"'"')'
plugin_check write_fd1_import
