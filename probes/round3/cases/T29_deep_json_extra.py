# Area 5 (stores): a decision's extra nests 100,000 lists deep
from probe import *
from hostile_store import check
deep = ('{"raw":"x","answer":1,"correct":true,"probs":null,"correct_index":1,"answers":["a","b"],"extra":'
        + '[' * 100000 + ']' * 100000 + '}')
check([("UPDATE records SET data=? WHERE id=(SELECT MIN(id) FROM records WHERE kind='decision')", (deep,))], "t29")
