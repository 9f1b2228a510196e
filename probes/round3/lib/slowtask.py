"""Source of a plugin whose task `probe_slow` waits in load() until $PROBE_GO exists, then raises
(PROBE_MODE=refuse) or returns 2 questions (PROBE_MODE=ok)."""
SOURCE = r'''
import os, time
from pathlib import Path
from oversight_bench import hookimpl
from oversight_bench.api import BenchError, Question

class SlowTask:
    name = "probe_slow"
    task_type = "closed"
    sample_size = 2
    def load(self, data_dir, limit, seed):
        go = Path(os.environ["PROBE_GO"])
        Path(os.environ["PROBE_GO"] + ".waiting").write_text("x")
        end = time.time() + 60
        while not go.exists() and time.time() < end:
            time.sleep(0.05)
        if os.environ.get("PROBE_MODE", "refuse") == "refuse":
            raise BenchError("probe_slow: refused on purpose")
        return [Question(id=f"q{i}", task="probe_slow", task_type="closed", question=f"Is {i} even?",
                         correct="yes" if i % 2 == 0 else "no", incorrect="no" if i % 2 == 0 else "yes")
                for i in range(2)]

@hookimpl
def register_tasks(register):
    register(SlowTask())
'''
