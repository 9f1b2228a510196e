# Area 4 (model servers): timeout=-1 is refused in one line
from timeouts import check_timeout
check_timeout("m17", "-1")
