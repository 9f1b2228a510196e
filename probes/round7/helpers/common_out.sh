# foreign FILE: a file the command did not write; check_foreign FILE
foreign() { mkdir -p "$(dirname "$1")"; echo "precious $RANDOM" > "$1"; sha256sum "$1" > "$1.sum.$$"; mv "$1.sum.$$" "$T/$(echo "$1" | md5sum | cut -c1-8).sum"; }
intact() { sha256sum -c --quiet "$T/$(echo "$1" | md5sum | cut -c1-8).sum" >/dev/null 2>&1; }
