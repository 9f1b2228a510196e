#!/usr/bin/env python3
# area: imports (verified quotes); tries: llm-debate rows [{}, {"story": "Totally FORGED sentence here.", "correct_text": "<quote>Totally FORGED sentence here.</quote>"}]
import sys; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import imp
print(imp.forged_check([{}, {'story': 'Totally FORGED sentence here.', 'correct_text': '<quote>Totally FORGED sentence here.</quote>'}]))
