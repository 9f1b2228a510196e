# area 5: a decision duplicated under another judge label with the same job (two judges' rows, one missing turns)
import os, sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from storelib import *
store_case("decision_dup_keys", "insert into records(kind, job_key, seq, judge, agent, protocol, task, question_id, assignment, answer_order, round, data, created) select kind, job_key, seq, 'ghost:judge', agent, protocol, task, question_id, assignment, answer_order, round, data, created from records where kind='decision'")
