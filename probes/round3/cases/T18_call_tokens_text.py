# Area 5 (stores): a call's prompt_tokens is text, completion_tokens 1e300, latency negative text
from probe import *
from hostile_store import check
check(["UPDATE calls SET prompt_tokens='many', completion_tokens=1e300, latency_s='slow', attempts='x'"], "t18")
