# Area 4 (model servers): timeout=inf is refused in one line before any request
from timeouts import check_timeout
check_timeout("m14", "inf")
