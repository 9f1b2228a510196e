# Area 4 (model servers): timeout=1e999 (overflows to inf) is refused in one line
from timeouts import check_timeout
check_timeout("m16", "1e999")
