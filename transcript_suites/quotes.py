"""The text rules of an import: a NYU token list as plain text (`detokenize`), a NYU speech's
quotes marked (`nyu_render`), and a peer's `<quote>` checked against the article it carries
(`verify_quotes`, `spans_article`). Each takes text and gives text; reading the files is
`importers`' and `untrusted`'s."""

from __future__ import annotations

import re

from transcript_suites.untrusted import sub_pairs

_NO_SPACE_BEFORE = {"n't", "'s", "'re", "'ll", "'d", "'ve", "'m", ".", ",", ";", ":", "?", "!", ")", "]", "''", "%"}
_PTB = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}", "``": '"', "''": '"'}


def detokenize(tokens: list[str]) -> str:
    """Approximate plain text from the NYU CoreNLP token lists (see the datasets README)."""
    out: list[str] = []
    prev = None
    for tok in tokens:
        if tok == "\n":
            out.append("\n")
            prev = "\n"
            continue
        text = _PTB.get(tok, tok)
        if out and prev not in ("\n", "``", "-LRB-", "-LSB-", "-LCB-") and tok not in _NO_SPACE_BEFORE and tok not in ("-RRB-", "-RSB-", "-RCB-"):
            out.append(" ")
        out.append(text)
        prev = tok
    return "".join(out)


def nyu_render(content: list[dict], tokens: list[str]) -> tuple[str, str]:
    """(content with <quote>, shown with <v_passage>) from a speech's Text/Quote segments."""
    raw, shown = [], []
    for seg in content:
        if "Text" in seg:
            t = seg["Text"].get("text", "")
            raw.append(t)
            shown.append(t)
        elif "Quote" in seg:
            a, b = seg["Quote"]["span"]
            q = detokenize(tokens[a:b]).strip()
            if raw and raw[-1].endswith("</quote>"):
                raw.append(" ")  # the debate UI shows back-to-back quotes as separate spans
                shown.append(" ")
            raw.append(f"<quote>{q}</quote>")
            shown.append(f"<v_passage>{q}</v_passage>")
    return "".join(raw), "".join(shown)


_QUOTE = re.compile(r"<(/?)(?:v_|u_)?quote>")  # paired by `sub_pairs`: <quote>...</quote>, either mark
_STRIP = " \t\n\"'“”‘’."


def _norm(text: str) -> str:
    """Whitespace collapsed and curly quotes straightened: the story's hard line breaks and
    typography should not make a faithful quote unverified."""
    text = text.translate(str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"}))
    return re.sub(r"\s+", " ", text).strip()


def _core(q: str) -> str:
    return _norm(q).strip(_STRIP).strip(".… ").strip(_STRIP)


def _quoted(q: str, norm_article: str) -> bool:
    """The import's rule: a quote is in the (normalised) article, up to an ellipsis at either end."""
    core = _core(q)
    return bool(core) and core in norm_article


def squash(text: str) -> str:
    """Words and punctuation marks as tokens, one space between: "ship ?" and "ship?" agree, "the
    rapist" and "therapist" do not (a word boundary is never whitespace aside)."""
    return " ".join(re.sub(r"([^\w\s])", r" \1 ", _norm(text)).split())


def spans_article(q: str, squashed_article: str) -> bool:
    """Whether a marked quote is a span of whole tokens of the article the import carries (as written,
    or its core as `_quoted` takes it), whitespace between tokens aside: the rule every imported
    `<v_passage>` is held to at the end (`importers`). NYU quotes are spans of their room's own copy of
    the story, which can be tokenised differently ("ship ?") from the copy the question keeps."""
    article = f" {squashed_article} "
    return any(core and f" {core} " in article for core in (squash(q), squash(_core(q))))


def verify_quotes(text: str, article: str) -> str:
    """Rewrite each <quote> as <v_passage> if it is in the article (exact up to whitespace and quote
    marks; a trailing/leading ellipsis is allowed), else <u_passage>.

    Deliberately not `processing.verify_passages` (the live runs' exact rule): these quotes were
    checked by another system against its own copy of the story, and the copy we hold differs in
    layout only (hard line breaks, typographic quotes). tests/test_passage_rules.py pins where the
    two rules agree (made-up, changed, empty and forged quotes) and where they differ (layout)."""
    norm_article = _norm(article)

    def sub(_open: re.Match, q: str, _close: re.Match) -> str:
        tag = "v_passage" if _quoted(q, norm_article) else "u_passage"
        return f"<{tag}>{q}</{tag}>"

    return sub_pairs(text, _QUOTE, sub)  # linear: a lazy regex is quadratic in unclosed tags
