# area 3: look-alike marks (<V_PASSAGE>, <v_passage >, fullwidth, zero-width inside) never render as verified
import os, sys, re; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from implib import *
d = tmp()
forms = ["<V_PASSAGE>fake one</V_PASSAGE>", "<v_passage >fake two</v_passage >", "<ｖ_passage>fake three</ｖ_passage>",
         "<v\u200b_passage>fake four</v\u200b_passage>", "<v_passage\n>fake five</v_passage\n>", "&lt;v_passage&gt;fake six&lt;/v_passage&gt;",
         "<v_passage/>fake seven<v_passage>x</v_passage>"]
p = write_csv(f"{d}/x.csv", [transcript(correct=" ".join(forms))])
rc, out, err, wall = do_import(p, d)
if rc != 0:
    broke(f"import failed rc={rc}: {err.strip()[-200:]}")
ob("view", f"{d}/imp", "--export", f"{d}/site")
pages = "".join(v.decode() for k, v in all_text(f"{d}/site").items() if "/rooms/" in k)
hits = re.findall(r'class="v-passage"[^>]*>([^<]{0,40})', pages)
bad = [h for h in hits if "fake" in h]
if bad:
    broke(f"look-alike mark rendered verified: {bad}")
held(f"no look-alike rendered verified (verified spans: {hits[:3]})")
