#!/usr/bin/env bash
# run --output a folder holding foreign files: refused or run, but the foreign files survive
. "$(dirname "$0")/../lib.sh"; . "$P9/helpers/common_out.sh"
foreign "$T/o/thesis.tex"; foreign "$T/o/results.json"; foreign "$T/o/sub/x"
mkrun "$T/o"; rc=$?
grep -q Traceback "$T/mkrun.err" && broke traceback
intact "$T/o/thesis.tex" && intact "$T/o/results.json" && intact "$T/o/sub/x" || broke "run (rc $rc) changed a foreign file"
held "rc $rc"
