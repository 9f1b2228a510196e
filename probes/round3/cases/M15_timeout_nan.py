# Area 4 (model servers): timeout=nan is refused in one line before any request
from timeouts import check_timeout
check_timeout("m15", "nan")
