#!/bin/bash
# area: bad input; tries: report /nonexistent --output rep
. /work/probe8/lib.sh
expect2 report /nonexistent --output rep
