# Area 7 (web): `view --token`: no token, a wrong token, a token in a cookie of another name, and a prefix of the token are refused; the token never appears in a page
from web import *
run = copy_run("w10"); TOKEN = "probe-token-4f8a2c9d1e"
p, port = start_view([run, "--token", TOKEN])
try:
    for path, hd in (("/", {}), ("/?token=wrong-token-xyz", {}), ("/?token=" + TOKEN[:-1], {}), ("/", {"Cookie": "token=" + TOKEN}),
                     ("/", {"Authorization": "Bearer wrong"}), ("/view.css", {})):
        st, h, body, ck = get(port, path, headers=hd)
        if st == 200 and path != "/view.css": broke(f"{path} {hd} -> 200 without the token")
    st, h, body, ck = get(port, "/?token=" + TOKEN)
    st2, h2, body2, _ = get(port, "/", headers={"Cookie": "; ".join(c.split(";", 1)[0] for c in ck)})
    if TOKEN in body2: broke("the token appears in the page")
    held(f"refused without the token; with it -> {st2}")
finally:
    kill_tree(p)
