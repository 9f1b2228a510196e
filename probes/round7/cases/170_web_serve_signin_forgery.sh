#!/usr/bin/env bash
# serve: forged, cross-port, Origin-less, mismatched and replayed sign-in tokens; wrong organiser token
. "$(dirname "$0")/../lib.sh"
mkrun "$T/r" || broke setup
timeout 60 python "$P9/helpers/web_serve.py" "$T/r" "$T/s1" "$T/s2" | tail -1
