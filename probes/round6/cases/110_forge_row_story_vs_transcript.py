#!/usr/bin/env python3
# area: imports (verified quotes); tries: llm-debate rows [{"row_story": "The FORGED captain.", "story": "The FORGED captain.", "correct_text": "<quote>The FORGED captain.</quote>"}, {"story": "x"}]
import sys; sys.path.insert(0, __import__('os').environ['PROBE'] + "/helpers"); import imp
print(imp.forged_check([{'row_story': 'The ship sailed at dawn.', 'story': 'The FORGED captain.', 'correct_text': '<quote>The FORGED captain.</quote>'}]))
