import sys, os, tempfile, shutil, json, resource, subprocess, time
sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import imp
def run_bytes(data: bytes, kind="llm-debate", limit_s=20, name="k.csv"):
    d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp")
    try:
        p = os.path.join(d, name); open(p, "wb").write(data)
        rc, o, e, dt = imp.ob(["import", kind, p, "--output", "out/i"], d, timeout=limit_s + 5)
        if imp.tb(e): return "BROKE: traceback " + e.strip().splitlines()[-1][:140]
        if rc == 124 or dt > limit_s: return f"BROKE: took {dt:.1f}s (> {limit_s}s)"
        if rc not in (0, 2): return f"BROKE: rc={rc} {e.strip()[-140:]}"
        if rc == 2 and not any(l.lower().startswith("error") for l in e.splitlines()): return "BROKE: rc 2 without error line"
        return f"HELD (rc={rc}, {dt:.1f}s{': ' + e.strip().splitlines()[0][:90] if rc == 2 else ''})"
    finally:
        shutil.rmtree(d, ignore_errors=True)
def csv_with_transcript(tr: str, extra_story="s"):
    import csv, io
    b = io.StringIO(); w = csv.writer(b)
    w.writerow(["id", "question", "story", "answer", "transcript"]); w.writerow(["0", "Q?", extra_story, "Debater A", tr])
    return b.getvalue().encode("utf-8", "surrogatepass")
def good_tr(**kw):
    t = {"story": "The ship.", "question": "Q?", "answers": {"correct": "a", "incorrect": "b"}, "names": {"correct": "Debater A", "incorrect": "Debater B"},
         "rollout_type": "quality_sim", "rounds": [{"correct": "<quote>The ship.</quote>", "incorrect": "no"}]}
    t.update(kw); return t
