import json, os, re, subprocess, sys, tempfile, time, shutil
sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers")
ENV = dict(os.environ, PYTHONPATH=os.environ.get("REPO", "/work/wt/probe"), OVERSIGHT_BENCH_DATA=os.environ.get("OVERSIGHT_BENCH_DATA", "/work/shared/datasets"), PYTHONDONTWRITEBYTECODE="1")
PY = sys.executable
def ob(args, cwd, timeout=60):
    t = time.time()
    try:
        p = subprocess.run(["nice", PY, "-m", "oversight_bench.cli", *args], cwd=cwd, env=ENV, capture_output=True, text=True, timeout=timeout, errors="replace")
        return p.returncode, p.stdout, p.stderr, time.time() - t
    except subprocess.TimeoutExpired:
        return 124, "", "timeout", time.time() - t
def tb(err): return "Traceback" in err
def write_csv(path, spec):
    subprocess.run([PY, __import__('os').environ['PROBE'] + "/helpers/khan.py", path, json.dumps(spec)], check=True)
def forged_check(spec, marker="FORGED", csvbytes=None):
    """import llm-debate, view --export, export: no v-passage span/shown v_passage may contain marker"""
    d = tempfile.mkdtemp(dir=__import__('os').environ['PROBE'] + "/tmp")
    try:
        p = os.path.join(d, "k.csv")
        if csvbytes is not None: open(p, "wb").write(csvbytes)
        else: write_csv(p, spec)
        rc, o, e, _ = ob(["import", "llm-debate", p, "--output", "out/i"], d)
        if tb(e): return "BROKE: import traceback " + e.strip().splitlines()[-1][:120]
        if rc != 0: return f"HELD (import refused rc={rc}: {e.strip()[:100]})" if rc == 2 else f"BROKE: import rc={rc} {e.strip()[-150:]}"
        rc, o, e, _ = ob(["view", "out/i", "--export", "ex"], d)
        if tb(e) or rc != 0: return f"BROKE: view --export rc={rc} {e.strip()[-150:]}"
        html = ""
        for root, _, fs in os.walk(os.path.join(d, "ex")):
            for f in fs:
                if f.endswith(".html"): html += open(os.path.join(root, f), errors="replace").read()
        for m in re.finditer(r'<span class="v-passage"[^>]*>(.*?)</span>', html, re.S):
            import html as H
            txt = " ".join(H.unescape(re.sub(r"<[^>]+>", "", m.group(1))).split())
            arts = [" ".join(str(r.get("row_story", r.get("story", "The ship sailed at dawn. The captain was named Ada Blue. Nobody saw the whale."))).split()) for r in spec[:1]]
            if marker in m.group(1) and not any(txt.strip(".… ") in a for a in arts):
                return f"BROKE: view shows verified text not in the stored article: {m.group(0)[:120]!r}"
        rc, o, e, _ = ob(["export", "out/i"], d)
        if tb(e) or rc != 0: return f"BROKE: export rc={rc} {e.strip()[-150:]}"
        for line in o.splitlines():
            for m in re.finditer(r"<v_passage>(.*?)</v_passage>", line):
                if marker in m.group(1) and '"shown"' in line:
                    # only shown fields matter; check precisely
                    rec = json.loads(line)
                    for t in (rec.get("turns") or []):
                        for mm in re.finditer(r"<v_passage>(.*?)</v_passage>", str(t.get("shown") or "")):
                            if marker in mm.group(1): return f"BROKE: export shown verified {mm.group(0)[:100]!r}"
        return "HELD"
    finally:
        shutil.rmtree(d, ignore_errors=True)
