# area 5: `elo --from` over a store whose identity says crossplay but whose decisions hold garbage debater fields
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lib import *
d = tmp(); run = mkrun(f"{d}/run", protocols="debate")
q(f"{run}/results.sqlite", "update meta set value=json_set(value,'$.kind','elo') where key='identity'")
q(f"{run}/results.sqlite", "update records set data=json_set(data,'$.extra',json('{\"debaters\":[1,[2],null]}')) where kind='decision'")
rc, out, err = ob("elo", "--from", run, "--output", f"{d}/elo")
check_graceful(rc, out, err, "elo --from hostile")
