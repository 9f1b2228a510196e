# Area 5 (stores): a stored question's images hold bad base64 and a non-string mime
from probe import *
from hostile_store import check
check(["UPDATE questions SET data=json_set(data,'$.images',json('[{\"data\":\"!!!notb64\",\"mime\":5}]'))"], "t32")
