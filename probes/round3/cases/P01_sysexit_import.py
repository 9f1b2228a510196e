# Area 6 (plugins): a plugin calling sys.exit(3) at import
from plugins import *
check_plugin("p01", HEAD + r'''
import sys
sys.exit(3)
''')
