# Area 7 (web): `view` on loopback asked with Host: evil.example (DNS rebinding) is refused; with Host: 127.0.0.1 it answers
from web import *
run = copy_run("w04")
p, port = start_view([run])
try:
    st, h, body, ck = get(port, "/", headers={"Host": "evil.example"})
    st2 = get(port, "/")[0]
    if st == 200: broke("answered a request for Host: evil.example (DNS rebinding)")
    held(f"evil host -> {st}, loopback -> {st2}")
finally:
    kill_tree(p)
