# Area 6 (plugins): an entry point naming a module that does not exist
from plugins import *
check_plugin("p15", HEAD, ep_target="probe_no_such_module_xyz")
