# mkplugin NAME MODULE_SOURCE  -> installs into $T/site a dist "p8-NAME" with entry point NAME = p8mod_NAME
mkplugin() { local n=$1; mkdir -p site/p8-$n-0.1.dist-info; printf '%s\n' "$2" > site/p8mod_$n.py
  printf 'Metadata-Version: 2.1\nName: p8-%s\nVersion: 0.1\n' $n > site/p8-$n-0.1.dist-info/METADATA
  printf '[oversight_bench]\n%s = p8mod_%s\n' "${3:-$n}" $n > site/p8-$n-0.1.dist-info/entry_points.txt
  : > site/p8-$n-0.1.dist-info/RECORD; export PYTHONPATH=$PYTHONPATH:$T/site; }
plugin_check() { # list plugins must name it, run/export must work
  OB list plugins >lp.out 2>lp.err; r1=$?
  grep -q Traceback lp.out lp.err && { echo "BROKE: list plugins traceback: $(grep -v '^ ' lp.err | tail -1 | cut -c1-120)"; return; }
  [ $r1 = 0 ] || { echo "BROKE: list plugins rc=$r1: $(tail -1 lp.err | cut -c1-120)"; return; }
  grep -q "p8-$1\|p8_$1" lp.out lp.err || { echo "BROKE: list plugins does not name p8-$1"; return; }
  OB run $SJ --tasks arith --limit 1 --protocols qa_without_article --output out/r --quiet >r.out 2>r.err; r2=$?
  grep -q Traceback r.err && { echo "BROKE: run traceback: $(tail -1 r.err | cut -c1-120)"; return; }
  [ $r2 = 0 ] || { echo "BROKE: run rc=$r2: $(tail -1 r.err | cut -c1-120)"; return; }
  OB export out/r >e.out 2>e.err; r3=$?; python3 -c "import json,sys; [json.loads(l) for l in open('e.out')]" 2>/dev/null || { echo "BROKE: export JSONL corrupted (rc=$r3)"; return; }
  [ $(wc -c < r.err) -lt 5000 ] || { echo "BROKE: run stderr $(wc -c < r.err) bytes of plugin noise"; return; }
  echo "HELD (list/run/export fine; warning: $(grep -i "p8" r.err lp.err | head -1 | cut -c1-80))"
}
