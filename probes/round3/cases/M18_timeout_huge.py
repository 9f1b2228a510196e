# Area 4 (model servers): timeout=1e18 (finite, absurd) is refused in one line
from timeouts import check_timeout
check_timeout("m18", "1e18")
