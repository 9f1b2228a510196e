#!/usr/bin/env python3
# area: hostile stores; tries: update calls set latency_s='NaN' then salvage/report/view/export/preferences/leaderboard/resume
import sys; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import store
print(store.mutate_and_read("update calls set latency_s='NaN'"))
