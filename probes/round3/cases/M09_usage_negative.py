# Area 4 (model servers): usage holds prompt_tokens -100 and completion_tokens -3
from usage import check_usage
check_usage("m09", {"prompt_tokens": -100, "completion_tokens": -3})
