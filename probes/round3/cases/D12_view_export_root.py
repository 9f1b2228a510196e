# Area 1 (data loss): view --export / (inside a private mount namespace whose / is a scratch copy is not possible here: uses a folder that stands for a home folder: dotfiles only)
from probe import *
from foreign import check
check(lambda run, out: ["view", run, "--export", out], {".bashrc": "export PATH", ".profile": "x"}, "d12")
