#!/usr/bin/env python3
# area: hostile stores; tries: update meta set value=printf('%.*c', 50000, '[') || printf('%.*c', 50000, ']') where rowid=(select min(rowid) from meta) then salvage/report/view/export/preferences/leaderboard/resume
import sys; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import store
print(store.mutate_and_read("update meta set value=printf('%.*c', 50000, '[') || printf('%.*c', 50000, ']') where rowid=(select min(rowid) from meta)"))
