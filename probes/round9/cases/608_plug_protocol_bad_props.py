# area 6: a registered protocol whose attributes raise when read later
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pluglib import *
plugin_case("plug_protocol_bad_props", '''from oversight_bench import hookimpl
from oversight_bench.api import Protocol
class P(Protocol):
    name = "p11proto"
    @property
    def uses_agent(self): raise RuntimeError("uses_agent boom")
    @property
    def description(self): raise RuntimeError("description boom")
    async def play(self, ctx, job): return []
    async def judge(self, ctx, job, turns): return None
@hookimpl
def register_protocols(register):
    register(P())''')
