# Area 6 (plugins): a plugin that recurses without end at import (RecursionError)
from plugins import *
check_plugin("p12", HEAD + r'''
def f(): return f()
f()
''')
