# mkplugin SITE NAME MODULE_SOURCE_FILE : a minimal installed distribution (dist-info + entry point), as pip --target lays it out
mkplugin() { local site=$1 name=$2 src=$3; mkdir -p $site/$name-1.0.dist-info; cp $src $site/${name}_plug.py
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: 1.0\n' $name > $site/$name-1.0.dist-info/METADATA
  printf '[oversight_bench]\n%s = %s_plug\n' $name $name > $site/$name-1.0.dist-info/entry_points.txt
  : > $site/$name-1.0.dist-info/RECORD; export PYTHONPATH=$PYTHONPATH:$site; }
