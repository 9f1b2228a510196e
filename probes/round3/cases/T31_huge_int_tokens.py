# Area 5 (stores): a call's response holds completion_tokens 10**40 and texts of 20 numbers
from probe import *
from hostile_store import check
check(["UPDATE calls SET response=json_set(response,'$.completion_tokens',1e40,'$.prompt_tokens',-5)", "UPDATE calls SET completion_tokens=9223372036854775807, prompt_tokens=9223372036854775807"], "t31")
