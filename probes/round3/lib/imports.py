"""Build small NYU (Michael et al. 2023) and Khan et al. 2024 import files with hostile content."""
import csv, io, json, lzma, tarfile, time
from pathlib import Path
from probe import *

ARTICLE = "The ship sailed north in the spring. The captain was a therapist who loved the sea . Nobody saw Mars ."


def tokens(text=ARTICLE):
    return text.split(" ")


def nyu_room(name="room1", *, text_a="I argue A.", text_b="I argue B.", quote_span=(0, 3), belief=(0.7, 0.3),
             contents=None, question="Where did the ship sail?", article_id="art1", extra_rounds=()):
    contents = contents if contents is not None else tokens()
    room = {"setup": {"roles": {"Judge": "judge1", "Debater A": "deb-a", "Debater B": "deb-b"},
                      "sourceMaterial": {"QuALITYSourceMaterial": {"articleId": article_id, "title": "T", "contents": contents}},
                      "answers": ["north", "south"], "correctAnswerIndex": 0, "question": question},
            "rounds": [{"SimultaneousSpeeches": {"speeches": {
                "0": {"speaker": "deb-a", "content": [{"Text": {"text": text_a}}, {"Quote": {"span": list(quote_span)}}]},
                "1": {"speaker": "deb-b", "content": [{"Text": {"text": text_b}}]}}}},
                *extra_rounds,
                {"JudgeFeedback": {"distribution": list(belief), "feedback": {"content": []}, "endDebate": True}}]}
    meta = {"name": name, "setting": {"isDebate": True, "isHuman": True}, "includedInPaper": True,
            "status": {"Complete": {"result": {"judgingInfo": {"finalJudgement": list(belief) if belief is not None else None}}}}}
    return room, meta


def write_nyu(folder: Path, rooms, *, raw_meta_lines=None, raw_rooms=None):
    """rooms: [(room_dict, meta_dict)]; raw_*: bytes used as is (for non-JSON / hostile JSON)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = raw_meta_lines if raw_meta_lines is not None else [json.dumps(m).encode() for _, m in rooms]
    (folder / "debates-metadata.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    members = raw_rooms if raw_rooms is not None else {m["name"]: json.dumps(r).encode() for r, m in rooms}
    with tarfile.open(folder / "debates_official.tar.xz", "w:xz", preset=0) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(f"debates/official/{name}.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return folder


def khan_transcript(correct="<argument>I say north. <quote>The ship sailed north</quote></argument>",
                    incorrect="<argument>I say south.</argument>", rounds=1, rollout="quality_sim", judge=None):
    rds = []
    for _ in range(rounds):
        rd = {"correct": correct, "incorrect": incorrect}
        if judge:
            rd["judge"] = judge
        rds.append(rd)
    return {"question": "Where did the ship sail?", "answers": {"correct": "north", "incorrect": "south"},
            "names": {"correct": "Debater A", "incorrect": "Debater B"}, "rollout_type": rollout, "rounds": rds}


def write_khan(path: Path, rows):
    """rows: list of dicts with id, question, story, transcript (dict or raw str), answer."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "story", "question_set_id", "transcript", "answer"])
        for r in rows:
            tr = r.get("transcript", khan_transcript())
            w.writerow([r.get("id", "1"), r.get("question", "Where did the ship sail?"), r.get("story", ARTICLE),
                        r.get("qsid", "qs1"), tr if isinstance(tr, str) else json.dumps(tr), r.get("answer", "Answer: A")])
    return path


def turns_of(run: Path):
    c = db(run)
    return [json.loads(r[0]) for r in c.execute("SELECT data FROM records WHERE kind='turn'")]


def verified_quotes(run: Path):
    import re
    out = []
    for t in turns_of(run):
        out += re.findall(r"<v_passage>(.*?)</v_passage>", t.get("shown") or "", re.S)
    return out


def view_green(run: Path, needle: str, t: Path) -> bool:
    """Whether the exported view shows `needle` inside a verified (v-passage) span."""
    import re
    p = ob(["view", run, "--export", t / "site"])
    if p.returncode:
        error("view --export failed: " + last_line(err_of(p)))
    for f in (t / "site" / "rooms").glob("*.html"):
        html = f.read_text()
        for m in re.finditer(r'<span class="v-passage"[^>]*>(.*?)</span>', html, re.S):
            if needle in m.group(1):
                return True
    return False
