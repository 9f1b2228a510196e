for e in "$@"; do id=${e%%:*}; v=${e#*:}
cat > cases/${id}_import_llm_${v}.sh <<EOS
#!/usr/bin/env bash
# import llm-debate with a hostile row ($v): exit 0 or one-line exit 2, no traceback; then view/report/judge read it;
# no forged <v_passage> survives
. "\$(dirname "\$0")/../lib.sh"
python "\$P9/helpers/mkcsv.py" $v "\$T/x.csv"
OBT=30 ob import llm-debate "\$T/x.csv" --output "\$T/o" >"\$T/so" 2>"\$T/se"; rc=\$?
grep -q Traceback "\$T/se" && broke "import traceback: \$(grep -v '^ ' \$T/se | tail -1)"
[ \$rc -eq 124 ] && broke "import hangs"
if [ \$rc -eq 2 ]; then [ -e "\$T/o" ] && broke "refused but left \$T/o"; held "refused: \$(head -c 120 \$T/se)"; fi
[ \$rc -eq 0 ] || broke "import rc \$rc: \$(tail -1 \$T/se)"
ob view --export "\$T/site" "\$T/o" >/dev/null 2>"\$T/e" || broke "view of import: \$(grep -v '^ ' \$T/e | tail -1)"
ob judge --from "\$T/o" --judge scripted:default --output "\$T/j" --quiet >/dev/null 2>"\$T/e"; r=\$?
grep -q Traceback "\$T/e" && broke "judge traceback: \$(grep -v '^ ' \$T/e | tail -1)"
ob report "\$T/o" --output "\$T/rep" --no-figures >/dev/null 2>"\$T/e"; grep -q Traceback "\$T/e" && broke "report traceback"
if ob export "\$T/o" 2>/dev/null | grep -qiE 'moon|Dogs rule'; then
  ob export "\$T/o" 2>/dev/null | python -c "
import sys,json,re
for l in sys.stdin:
    r=json.loads(l)
    for t in r.get('turns') or [r]:
        s=str(t.get('shown') or '')
        for m in re.findall(r'<v_passage>(.*?)</v_passage>', s, re.S):
            if 'moon' in m or 'Dogs' in m: print('FORGED', m[:60])
" | grep -q FORGED && broke "a forged quote is stored as <v_passage>"
  grep -rl 'moon' "\$T/site" | xargs grep -l 'v_passage\|verified' >/dev/null 2>&1
fi
held "rc \$rc"
EOS
done
