"""gennyu.py MODE OUTDIR : hostile NYU debate dataset folders"""
import json, sys, tarfile, io, os, lzma
mode, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
tokens = "The cat sat on the mat . The dog barked at the moon all night long .".split()
def room(speech_b):
    return {"setup": {"roles": {"Judge": "j1", "Debater A": "a", "Debater B": "b"},
                      "sourceMaterial": {"QuALITYSourceMaterial": {"contents": tokens, "articleId": "art1", "title": "T"}},
                      "answers": ["mat", "roof"], "correctAnswerIndex": 0, "question": "Where did the cat sit?"},
            "rounds": [{"SimultaneousSpeeches": {"speeches": {"0": {"speaker": "a", "content": [{"Text": {"text": "see "}}, {"Quote": {"span": [0, 6]}}]},
                                                             "1": {"speaker": "b", "content": speech_b}}}},
                       {"JudgeFeedback": {"distribution": [0.7, 0.3], "endDebate": True, "feedback": {"content": []}}}]}
meta = {"name": "room1", "setting": {"isDebate": True, "isHuman": True}, "includedInPaper": True,
        "status": {"Complete": {"result": {"judgingInfo": {"finalJudgement": [0.7, 0.3], "numContinues": 1}}}}}
sb = [{"Text": {"text": "it says <v_passage>The cat sat on the roof forever</v_passage> ok"}}]
r = None
if mode == "forge_text": pass
elif mode == "span_reversed": sb = [{"Quote": {"span": [6, 2]}}]
elif mode == "span_huge": sb = [{"Quote": {"span": [0, 10**30]}}]
elif mode == "span_str": sb = [{"Quote": {"span": ["a", None]}}]
elif mode == "belief_nan": meta["status"]["Complete"]["result"]["judgingInfo"]["finalJudgement"] = "NaN"
elif mode == "belief_weird": meta["status"]["Complete"]["result"]["judgingInfo"]["finalJudgement"] = [1e308, -1e308]
elif mode == "deep": r = b'{"setup":' + b"[" * 300000 + b"]" * 300000 + b"}"
if r is None: r = json.dumps(room(sb)).encode()
if mode == "belief_nan":
    metab = json.dumps(meta).replace('"NaN"', 'NaN').encode()
else:
    metab = json.dumps(meta).encode()
open(f"{out}/debates-metadata.jsonl", "wb").write(metab + b"\n")
with tarfile.open(f"{out}/debates_official.tar.xz", "w:xz", preset=1) as t:
    def add(name, data):
        ti = tarfile.TarInfo(name); ti.size = len(data); t.addfile(ti, io.BytesIO(data))
    add("debates/official/room1.json", r)
    if mode == "symlink_member":
        ti = tarfile.TarInfo("debates/official/room2.json"); ti.type = tarfile.SYMTYPE; ti.linkname = "/etc/passwd"; t.addfile(ti)
        ti = tarfile.TarInfo("../../escape.json"); ti.size = 2; t.addfile(ti, io.BytesIO(b"{}"))
    if mode == "xzbomb":
        ti = tarfile.TarInfo("debates/official/room3.json"); ti.size = 100 << 20
        class Z(io.RawIOBase):
            def __init__(s): s.n = 0
            def readable(s): return True
            def readinto(s, b):
                k = min(len(b), ti.size - s.n); b[:k] = b" " * k; s.n += k; return k
        t.addfile(ti, io.BufferedReader(Z(), 1 << 20))
