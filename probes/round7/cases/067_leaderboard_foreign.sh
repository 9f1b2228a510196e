#!/usr/bin/env bash
# leaderboard --output non-empty foreign folder (with and without --force): refused, intact
. "$(dirname "$0")/../lib.sh"; . "$P9/helpers/common_out.sh"
mkrun "$T/r" || broke "setup"
foreign "$T/lb/results.json"
expect_err "leaderboard foreign" ob leaderboard "$T/r" --output "$T/lb"
expect_err "leaderboard --force foreign" ob leaderboard "$T/r" --output "$T/lb" --force
intact "$T/lb/results.json" || broke "foreign results.json changed"
held
