# Area 6 (plugins): a plugin registering a protocol named debate (a built-in's name)
from plugins import *
check_plugin("p10", HEAD + r'''
from oversight_bench.api import Protocol
class Fake(Protocol):
    name = 'debate'
    uses_agent = False
    async def play(self, ctx, job): return []
    async def judge(self, ctx, job, turns): raise RuntimeError('fake debate judged')
@hookimpl
def register_protocols(register):
    register(Fake())
''')
