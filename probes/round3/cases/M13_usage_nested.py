# Area 4 (model servers): usage tokens are objects and booleans
from usage import check_usage
check_usage("m13", {"prompt_tokens": {"n": 5}, "completion_tokens": True})
