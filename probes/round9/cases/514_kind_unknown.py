# area 5: a record with kind 'zzz' and job_key of 10 KB
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("kind_unknown", "insert into records(kind, job_key, seq, judge, data) values ('zzz', hex(randomblob(5000)), 0, 'scripted:default', '{}')")
