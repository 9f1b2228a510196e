"""Turn processing edge cases: thinking split, word limit, passage verification, answer parsing."""

import json
from pathlib import Path

import pytest

from oversight_bench.model_text import (NO_ARGUMENT, limit_words, parse_answer, parse_choice, parse_letter,
                                        process_turn, split_thinking, turn_notes, verify_passages)

ARTICLE = "The quick brown fox jumps over the lazy dog.\nCaf\u00e9 au lait costs  two coins."


@pytest.mark.parametrize("text, expected", [
    ("Answer: 1", 1),
    ("Answer: <2>", 2),
    ("Answer:2", 2),
    ("answer: 1", 1),
    ("**Answer:** 2", 2),
    ("**Answer: 1**", 1),
    ("Answer: [2]", 2),
    ("Answer: (1).", 1),
    ("Answer:\n2", 2),
    ("Final Answer: 2 because Bob quoted the article.", 2),
    ("Answer: 2, since answer 1 is unsupported", 2),
    ("The format is Answer: <1|2>. Having weighed it all, Answer: 1", 1),  # last occurrence wins
    ("Answer: 1\nOn reflection, Answer: 2", 2),
    ("I choose this answer: it is clear. Answer: 1", 1),  # prose after "answer:" is ignored
    ("Answer: 3", None),
    ("Answer: 12", None),
    ("Answer: 1.5", None),
    ("Answer: 0", None),
    ("The answer is 1", None),
    ("1", None),
    ("Answer: 1 or 2", None),
    ("Answer: <1|2>", None),
    ("Answer: 1/2", None),
    ("Answer: 1 and 2", None),
    ("Answer: 2\nAnswer: 3", None),  # the last one decides, and it is invalid
    ("Answer: Alice", None),
    ("", None),
])
def test_parse_answer(text, expected):
    assert parse_answer(text) == expected


def test_parse_choice_allows_n_options():
    assert parse_choice("Answer: 4", 4) == 4
    assert parse_choice("Answer: 5", 4) is None
    assert parse_choice("Answer: <1|2|3|4>", 4) is None


@pytest.mark.parametrize("text, expected", [
    ("Thinking: secret plan\nArgument: public case", ("secret plan", "public case")),
    ("**Thinking:** secret\n**Argument:** public", ("secret", "public")),
    ("## Thinking:\nsecret\n## Argument:\npublic", ("secret", "public")),
    ("Thinking: my opponent's argument: weak\nArgument: public", ("my opponent's argument: weak", "public")),
    ("Thinking: s\nArgument: draft\nArgument: final", ("s\nArgument: draft", "final")),
    ("Argument: public\nThinking: afterthought", ("afterthought", "public")),
    ("Thinking: secret Argument: inline public", ("secret", "inline public")),
    # no "Argument:" section: everything is private (the judge sees NO_ARGUMENT)
    ("Just an argument with no headers.", ("Just an argument with no headers.", "")),
    ("Thinking: only private text, no argument", ("only private text, no argument", "")),
    ("Thinking: Bob's argument: weak", ("Bob's argument: weak", "")),  # lower-case "argument:" is prose
    # "Thinking:" inside the argument ends it, inline or at a line start
    ("Argument: Thinking: \n1. Bob's plan is weak", ("1. Bob's plan is weak", "")),
    ("Argument: public. Thinking: private", ("private", "public.")),
    ("Argument: public\n**Thinking**: private", ("private", "public")),
    ("Thinking: a\nArgument: public\nthinking: b", ("a\nb", "public")),
    ("", ("", "")),
])
def test_split_thinking(text, expected):
    assert split_thinking(text) == expected


def test_turn_notes_record_malformed_output():
    assert turn_notes("", 150) == {"empty_output": True}
    assert turn_notes("plain text", 150) == {"no_argument_section": True}
    assert turn_notes("Thinking: only this", 150) == {"no_argument_section": True}
    assert turn_notes("Argument: Thinking: 1. plan", 150) == {"thinking_in_argument": True, "empty_argument": True}
    assert turn_notes("Argument: case. Thinking: plan", 150) == {"thinking_in_argument": True}
    assert turn_notes("Thinking: t\nArgument: " + "w " * 20, 10) == {"over_word_limit": 20}
    assert turn_notes("Thinking: t\nArgument: " + "w " * 20, 10, truncate=True) == {"truncated_from_words": 20}
    assert turn_notes("Thinking: t\nArgument: fine", 150) == {}


def test_limit_words_keeps_spacing_and_closes_cut_passage():
    assert limit_words("one\ntwo  three four", 3) == "one\ntwo  three"
    assert limit_words("short text", 5) == "short text"
    assert limit_words("a b <passage>c d e</passage> f", 4) == "a b <passage>c d</passage>"
    assert limit_words("a <passage>b</passage> c d", 3) == "a <passage>b</passage> c"


def test_limit_words_then_verify_keeps_a_genuine_prefix_verified():
    shown = process_turn("Argument: see <passage>quick brown fox jumps over</passage>", ARTICLE, 3)
    assert shown == "see <v_passage>quick brown</v_passage>"


@pytest.mark.parametrize("text, expected", [
    ("x <passage>quick brown fox</passage> y", "x <v_passage>quick brown fox</v_passage> y"),
    ("<passage>made-up words</passage>", "<u_passage>made-up words</u_passage>"),
    # outer whitespace of a passage is stripped; inner whitespace must match exactly
    ("<passage>\n  quick brown fox \n</passage>", "<v_passage>quick brown fox</v_passage>"),
    ("<passage>quick  brown</passage>", "<u_passage>quick  brown</u_passage>"),
    ("<passage>costs two coins</passage>", "<u_passage>costs two coins</u_passage>"),
    ("<passage>costs  two coins.</passage>", "<v_passage>costs  two coins.</v_passage>"),
    ("<passage>lazy dog. Caf\u00e9</passage>", "<u_passage>lazy dog. Caf\u00e9</u_passage>"),  # newline in article
    ("<passage>Quick brown fox</passage>", "<u_passage>Quick brown fox</u_passage>"),  # case matters
    # NFC: a decomposed "é" matches the article's composed one
    ("<passage>Cafe\u0301 au lait</passage>", "<v_passage>Cafe\u0301 au lait</v_passage>"),
    # tags are case-insensitive and tolerate inner spaces
    ("<PASSAGE>lazy dog</ Passage >", "<v_passage>lazy dog</v_passage>"),
    # nested tags are flattened into one passage
    ("<passage>The <passage>quick</passage> brown</passage>", "<v_passage>The quick brown</v_passage>"),
    ("<passage>The <passage>slow</passage> brown</passage>", "<u_passage>The slow brown</u_passage>"),
    # an unclosed passage runs to the end and is unverified even if it would match
    ("see <passage>quick brown fox", "see <u_passage>quick brown fox</u_passage>"),
    ("a </passage> b", "a  b"),  # a stray closing tag is dropped
    ("<passage></passage>", "<u_passage></u_passage>"),
    ("<passage>   </passage>", "<u_passage></u_passage>"),
    # an agent cannot forge verification
    ("<v_passage>invented text</v_passage>", "<u_passage>invented text</u_passage>"),
    ("<u_passage>lazy dog</u_passage>", "<v_passage>lazy dog</v_passage>"),
    # quotation marks alone stay plain text (the judge is told they are unverified)
    ('He wrote "quick brown fox" and \u201clazy dog\u201d', 'He wrote "quick brown fox" and \u201clazy dog\u201d'),
    ("<passage>quick</passage> and <passage>cat</passage>", "<v_passage>quick</v_passage> and <u_passage>cat</u_passage>"),
])
def test_verify_passages(text, expected):
    assert verify_passages(text, ARTICLE) == expected


def test_process_turn_strips_thinking_limits_words_and_verifies():
    raw = "Thinking: SECRET <passage>lazy dog</passage>\nArgument: one two <passage>lazy dog</passage> three four"
    assert process_turn(raw, ARTICLE, 4) == "one two <v_passage>lazy dog</v_passage>"
    assert process_turn(raw, None, 4) == "one two <passage>lazy dog</passage>"
    assert process_turn(raw, None) == "one two <passage>lazy dog</passage> three four"  # no limit: no cut
    assert "SECRET" not in process_turn(raw, ARTICLE, 150)


@pytest.mark.parametrize("raw", ["", "   ", "no headers at all", "Thinking: plan only", "Argument: Thinking: plan"])
def test_process_turn_without_an_argument_shows_the_notice(raw):
    assert process_turn(raw, ARTICLE) == NO_ARGUMENT and process_turn(raw, None, 150) == NO_ARGUMENT


@pytest.mark.parametrize("text, n, expected", [
    ("Answer: a", 4, 1), ("Answer: d", 4, 4), ("answer: C", 4, 3), ("**Answer:** (b)", 4, 2), ("Answer: [b].", 4, 2),
    ("Answer: b, because it quotes the article", 4, 2), ("Answer: x where x is one of a, b\nAnswer: c", 4, 3),
    ("Answer: e", 4, None), ("Answer: c", 2, None), ("Answer: a or b", 4, None), ("Answer: a, b", 4, None),
    ("Answer: 2", 4, None), ("Answer: alpha", 4, None), ("b", 4, None), ("The best is b.", 4, None), ("", 4, None),
])
def test_parse_letter(text, n, expected):
    assert parse_letter(text, n) == expected


# -- real outputs of the local models (tests/fixtures/real_agent_outputs.json) ----------------------

REAL = json.loads((Path(__file__).parent / "fixtures" / "real_agent_outputs.json").read_text(encoding="utf-8"))
REAL_ARTICLE = REAL["article"]  # the synthetic article the prompts showed (no dataset text)


@pytest.mark.parametrize("case", REAL["outputs"], ids=lambda c: c["id"])
def test_private_thinking_of_real_outputs_never_shown(case):
    """Raw turns of the local models: what others see holds none of the private text, and either
    the argument or the fixed notice."""
    for article in (REAL_ARTICLE, None):
        shown = process_turn(case["raw"], article)
        for private in case["private"]:
            assert private not in shown
        if case["shown"] == "NO_ARGUMENT":
            assert shown == NO_ARGUMENT
        else:
            assert case["shown"] in shown and not shown.lower().startswith("thinking")
