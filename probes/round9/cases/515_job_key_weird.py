# area 5: decisions' job_key has no | separators / protocol null
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("job_key_weird", "update records set job_key='x', protocol=NULL, task=NULL where kind='decision' and id=(select min(id) from records where kind='decision')")
