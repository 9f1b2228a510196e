#!/usr/bin/env bash
# report --output a folder with a foreign file (named like report output): refused, intact
. "$(dirname "$0")/../lib.sh"; . "$P9/helpers/common_out.sh"
mkrun "$T/r" || broke "setup"
foreign "$T/rep/report.md"; foreign "$T/rep/mine.csv"
expect_err "report into foreign folder" ob report "$T/r" --output "$T/rep" --no-figures
intact "$T/rep/report.md" && intact "$T/rep/mine.csv" || broke "foreign files changed"
held
