# generate cases/NNN_bad_*.sh from a table: NNN|name|args (with $SCR, $T available)
while IFS='|' read -r id name args; do
  [ -z "$id" ] && continue
  f=cases/${id}_bad_${name}.sh
  cat > "$f" <<EOS
#!/usr/bin/env bash
# bad input: $name -> one-line error:, exit 2, no traceback, nothing written
. "\$(dirname "\$0")/../lib.sh"
expect_err "$name" ob $args
[ -e "\$T/out1" ] && broke "$name: wrote \$T/out1 although refused"
held
EOS
done
