#!/usr/bin/env bash
# view --export into a folder holding a foreign file: refused, file intact
. "$(dirname "$0")/../lib.sh"; . "$P9/helpers/common_out.sh"
mkrun "$T/r" || broke "setup"
foreign "$T/site/notes.txt"; foreign "$T/site/index.html"
expect_err "view --export non-empty" ob view --export "$T/site" "$T/r"
intact "$T/site/notes.txt" && intact "$T/site/index.html" || broke "foreign files changed"
held
