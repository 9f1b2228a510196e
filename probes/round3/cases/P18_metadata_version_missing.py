# Area 6 (plugins): a plugin distribution whose METADATA has neither Name nor Version (garbage bytes)
from plugins import *
check_plugin("p18", HEAD, metadata="\x00\xff garbage\n", need_named=False)
