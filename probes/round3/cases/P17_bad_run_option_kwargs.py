# Area 6 (plugins): a plugin whose register_run_options passes a bad click type
from plugins import *
check_plugin("p17", HEAD + "@hookimpl\ndef register_run_options(add):\n    add(\"--probe-x\", type=\"not-a-type\", nargs=-5)\n")
