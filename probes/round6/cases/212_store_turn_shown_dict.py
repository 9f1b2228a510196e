#!/usr/bin/env python3
# area: hostile stores; tries: update records set data=json_set(data,'$.shown', json('{"x":1}')) where id=(select id from records where kind='turn' limit 1) then salvage/report/view/export/preferences/leaderboard/resume
import sys; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import store
print(store.mutate_and_read('update records set data=json_set(data,\'$.shown\', json(\'{"x":1}\')) where id=(select id from records where kind=\'turn\' limit 1)'))
