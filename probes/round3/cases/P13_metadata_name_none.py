# Area 6 (plugins): a plugin distribution whose METADATA has no Name field (metadata name None)
from plugins import *
check_plugin("p13", HEAD + "@hookimpl\ndef register_tasks(register):\n    pass\n", dist_name=None, need_named=False)
