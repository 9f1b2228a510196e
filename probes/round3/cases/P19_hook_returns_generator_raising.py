# Area 6 (plugins): a plugin whose register_tasks registers a task whose name is not text (an int) and one whose name has a newline
from plugins import *
check_plugin("p19", HEAD + """class T:
    task_type = "closed"; sample_size = 1
    def __init__(self, n): self.name = n
    def load(self, d, l, s): return []
@hookimpl
def register_tasks(register):
    register(T(42)); register(T("evil\\nname"))
""")
