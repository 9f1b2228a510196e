# Area 4 (model servers): usage is a string
from usage import check_usage
check_usage("m12", "lots")
