#!/usr/bin/env python3
# area: hostile stores; tries: update calls set response='[1,2,3]' then salvage/report/view/export/preferences/leaderboard/resume
import sys; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import store
print(store.mutate_and_read("update calls set response='[1,2,3]'"))
