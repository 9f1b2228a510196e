#!/usr/bin/env python3
# area: hostile stores; tries: insert or replace into skipped values ('arith','x','lots') then salvage/report/view/export/preferences/leaderboard/resume
import sys; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import store
print(store.mutate_and_read("insert or replace into skipped values ('arith','x','lots')"))
