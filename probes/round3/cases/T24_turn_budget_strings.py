# Area 5 (stores): a turn's extra.budget forced/cut are strings; a decision's extra.debiased a list
from probe import *
from hostile_store import check
check(["UPDATE records SET data=json_set(data,'$.extra.budget',json('{\"forced\":\"x\",\"cut\":[1]}')) WHERE kind='turn'", "UPDATE records SET data=json_set(data,'$.extra.debiased',json('[1]')) WHERE kind='decision'"], "t24")
