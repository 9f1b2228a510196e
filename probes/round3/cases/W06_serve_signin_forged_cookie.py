# Area 7 (web): `serve` sign-in posted with a CSRF cookie the server never issued (a page on another loopback port set it) plus the same form value: refused
from web import *
t = tmpdir("w06"); run = copy_run("w06")
p, port = start_serve(["--from", run, "--output", t / "study"])
try:
    forged = "attackerNonce.0123456789abcdef0123456789abcdef"
    st, h, body, ck = get(port, "/signin", method="POST", body=f"csrf={forged}&name=mallory",
                          headers={"Cookie": f"oversight_bench_signin={forged}; pre_csrf={forged}; csrf={forged}",
                                   "Content-Type": "application/x-www-form-urlencoded"})
    cookies = " ".join(ck)
    if st in (200, 302, 303) and "session" in cookies.lower():
        broke(f"signed in with a forged cookie (HTTP {st})")
    held(f"forged sign-in refused (HTTP {st})")
finally:
    kill_tree(p)
