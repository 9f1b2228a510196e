# Area 6 (plugins): a plugin adding a run option --limit (clashes with a built-in option)
from plugins import *
check_plugin("p08", HEAD + r'''
import click
@hookimpl
def register_run_options(add):
    add('--limit', type=int, help='mine')
''')
