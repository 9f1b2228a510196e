#!/usr/bin/env python3
# area: hostile stores; tries: update questions set data=json_set(data,'$.correct', json('[1]')) then salvage/report/view/export/preferences/leaderboard/resume
import sys; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import store
print(store.mutate_and_read("update questions set data=json_set(data,'$.correct', json('[1]'))"))
