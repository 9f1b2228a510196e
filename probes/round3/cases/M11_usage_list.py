# Area 4 (model servers): usage is a list
from usage import check_usage
check_usage("m11", [1, 2, 3])
