"""Import harness: build a Khan-style llm-debate CSV, import it, read back the store."""
import csv, io, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import *

STORY = "The ship landed on the red moon at dawn. Captain Ora said the air was thin but breathable."


def transcript(correct="I argue <quote>the air was thin but breathable</quote>.", incorrect="No.", **over):
    t = {"index": 0, "question": "Was the air breathable?", "question_set_id": "q1", "story": STORY,
         "names": {"correct": "Debater A", "incorrect": "Debater B"},
         "answers": {"correct": "Yes", "incorrect": "No"}, "swap": False, "rollout_type": "quality_sim",
         "rounds": [{"correct": correct, "incorrect": incorrect, "judge": None}]}
    t.update(over)
    return t


def write_csv(path, transcripts, raw=None, story=STORY):
    if raw is not None:
        open(path, "wb").write(raw)
        return path
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "correct answer", "negative answer", "complete", "transcript", "answer", "story", "story_title", "question_set_id"])
        for i, t in enumerate(transcripts):
            w.writerow([i, "Was the air breathable?", "Yes", "No", "True", t if isinstance(t, str) else json.dumps(t), "", story, "T", "q1"])
    return path


def do_import(path, d, kind="llm-debate", timeout=90):
    t = time.time()
    rc, out, err = ob("import", kind, path, "--output", f"{d}/imp", timeout=timeout)
    return rc, out, err, time.time() - t


def turns_shown(d):
    return [json.loads(r[0]) for r in q(f"{d}/imp/results.sqlite", "select data from records where kind='turn'")]
