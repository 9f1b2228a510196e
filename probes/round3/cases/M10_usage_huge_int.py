# Area 4 (model servers): usage holds prompt_tokens 10**40 and completion_tokens 1e300
from usage import check_usage
check_usage("m10", {"prompt_tokens": 10**40, "completion_tokens": 1e300})
