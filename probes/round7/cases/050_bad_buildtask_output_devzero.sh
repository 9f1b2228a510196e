#!/usr/bin/env bash
# build-task --output /dev/zero: a device is no JSONL to append to -> refused, exit 2
. "$(dirname "$0")/../lib.sh"
expect_err "build-task --output /dev/zero" ob build-task gsm8kqa --model scripted:default --output /dev/zero --limit 1
held
