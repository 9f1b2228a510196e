"""Build a Khan et al. llm_debate CSV: khan.py OUT.csv JSON_SPEC  (spec: list of rows {story, correct_text, incorrect_text, judge, qid, answer})"""
import csv, json, sys
out, spec = sys.argv[1], json.loads(sys.argv[2])
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["id", "question_set_id", "question", "story", "story_title", "correct answer", "negative answer", "answer", "transcript"])
    w.writeheader()
    for i, r in enumerate(spec):
        story = r.get("story", "The ship sailed at dawn. The captain was named Ada Blue. Nobody saw the whale.")
        t = {"story": story, "question": r.get("question", "Who was the captain?"),
             "answers": {"correct": "Ada Blue", "incorrect": "Bob Grey"},
             "names": {"correct": "Debater A", "incorrect": "Debater B"}, "rollout_type": "quality_sim",
             "rounds": [{"correct": r.get("correct_text", "<quote>The captain was named Ada Blue</quote>"),
                         "incorrect": r.get("incorrect_text", "It was Bob."),
                         **({"judge": r["judge"]} if "judge" in r else {})}]}
        w.writerow({"id": i, "question_set_id": r.get("qid", "q1"), "question": t["question"], "story": r.get("row_story", story),
                    "story_title": "T", "correct answer": "Ada Blue", "negative answer": "Bob Grey",
                    "answer": r.get("answer", "Debater A"), "transcript": json.dumps(t) if "raw" not in r else r["raw"]})
