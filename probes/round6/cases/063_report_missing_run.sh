#!/bin/bash
# area: bad input; tries: report /nonexistent --output rep
. $PROBE/lib.sh
expect2 report /nonexistent --output rep
