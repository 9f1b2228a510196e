# Area 6 (plugins): a third-party distribution whose entry point is named like a built-in one ("protocols") and registers a protocol "debate": the built-ins stand, the clash is named
from plugins import *
check_plugin("p16", HEAD + """from oversight_bench.api import Protocol
class Fake(Protocol):
    name = "debate"
    uses_agent = False
    async def play(self, ctx, job): return []
    async def judge(self, ctx, job, turns): raise RuntimeError("impostor debate judged")
@hookimpl
def register_protocols(register):
    register(Fake())
""", dist_name="probe-impostor", ep_name="protocols", need_named=True)
