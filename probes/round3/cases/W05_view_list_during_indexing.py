# Area 7 (web): `view` of a 300,000-decision store: while it indexes, a room request is pending, and the list must still answer (< 3 s each)
import re, threading
from web import *
run = copy_run("w05")
c = db(run)
c.execute("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 300000)
INSERT INTO records (kind, job_key, seq, judge, agent, protocol, task, question_id, assignment, answer_order, round, data, created)
SELECT 'decision', 'bulk-' || i, -1, r.judge, r.agent, r.protocol, r.task, r.question_id, r.assignment, r.answer_order, NULL, r.data, r.created
FROM n, (SELECT * FROM records WHERE kind='decision' LIMIT 1) r""")
c.close()
p, port = start_view([run])
try:
    st, h, body, ck = get(port, "/", timeout=30)
    links = re.findall(r'href="(/room/[^"?#]+)', body)
    if not links: error(f"no room link in the first list (HTTP {st})")
    slow = []
    th = threading.Thread(target=lambda: slow.append(get(port, links[-1], timeout=120)[0]), daemon=True)
    th.start()
    time.sleep(0.3)
    worst = 0
    for _ in range(3):
        t0 = time.time()
        st2 = get(port, "/", timeout=60)[0]
        worst = max(worst, time.time() - t0)
    if worst > 3: broke(f"the list took {worst:.1f}s while a room request waited for the index")
    held(f"list answered in <= {worst:.2f}s during indexing (HTTP {st2})")
finally:
    kill_tree(p)
