# area 5: calls prompt_tokens text, latency_s 'NaN', created huge
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("call_tokens_text", "update calls set prompt_tokens='lots', completion_tokens=-5, latency_s='nan', created=1e308")
