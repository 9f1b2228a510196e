# mkplugin DIR NAME BODY : a dist-info + module in DIR (a --target-style folder), entry point oversight_bench:NAME = NAME_mod
mkplugin() { local d=$1 n=$2 body=$3
  mkdir -p "$d/${n}_mod" "$d/${n}-0.1.dist-info"
  printf '%s\n' "$body" > "$d/${n}_mod/__init__.py"
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: 0.1\n' "$n" > "$d/${n}-0.1.dist-info/METADATA"
  printf '[oversight_bench]\n%s = %s_mod\n' "$n" "$n" > "$d/${n}-0.1.dist-info/entry_points.txt"
  : > "$d/${n}-0.1.dist-info/RECORD"; }
