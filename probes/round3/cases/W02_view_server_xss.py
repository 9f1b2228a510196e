# Area 7 (web): the same hostile run served by `view`: the list, every room page, run and question pages escape the payloads
import re
from web import *
run = xss_run("w02")
p, port = start_view([run])
try:
    time.sleep(1.5)
    st, h, body, ck = get(port, "/")
    pages = {"/": body}
    for link in sorted(set(re.findall(r'href="(/(?:room|run|question)/[^"?#]+)', body)))[:12]:
        pages[link] = get(port, link)[2]
    hits = [(k, b) for k, v in pages.items() for b in BAD if b in v]
    if hits: broke(f"unescaped {hits[0][1]!r} in {hits[0][0]}")
    if len(pages) < 3: error(f"found only {len(pages)} pages to check")
    held(f"{len(pages)} served pages escape the payloads")
finally:
    kill_tree(p)
