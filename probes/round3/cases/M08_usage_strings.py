# Area 4 (model servers): usage holds prompt_tokens "many" and completion_tokens "-5"
from usage import check_usage
check_usage("m08", {"prompt_tokens": "many", "completion_tokens": "-5", "total_tokens": "x"})
