for e in "$@"; do id=${e%%:*}; enc=${e#*:}
cat > cases/${id}_leak_echo_${enc}.sh <<EOS
#!/usr/bin/env bash
# a server echoing the API key and a query credential as $enc: nowhere in results.sqlite, export, view export, terminal
. "\$(dirname "\$0")/../lib.sh"; srv echo_enc $enc
export OPENAI_API_KEY=sk-p9Zq8Wx7Vc6Bn5Mm4Ll3Kk2Jj1
S="openai:m,base_url=http://127.0.0.1:\$PORT/v1?code=Qz9Xy8Wv7Ut6Sr5,max_retries=0,timeout=10"
ob run --judge "\$S" --agent scripted:default --tasks arith --protocols qa_without_article --limit 1 --quiet --output "\$T/o" >"\$T/so" 2>"\$T/se"; rc=\$?
grep -q Traceback "\$T/se" && broke "traceback"
ob export "\$T/o" > "\$T/exp.jsonl" 2>>"\$T/se"
ob view --export "\$T/site" "\$T/o" >/dev/null 2>>"\$T/se"
for s in sk-p9Zq8Wx7Vc6Bn5Mm4Ll3Kk2Jj1 Qz9Xy8Wv7Ut6Sr5; do
  h=\$(python "\$P9/helpers/leakcheck.py" $enc "\$s" "\$T/o" "\$T/exp.jsonl" "\$T/site" "\$T/so" "\$T/se")
  [ -n "\$h" ] && broke "secret \${s:0:6}.. echoed as $enc reached: \$(echo "\$h" | head -2 | tr '\n' ' ')"
done
held "rc \$rc"
EOS
done
