"""Numbers as text, by the project's one rounding rule (half up, as the README says): every printed
figure (tables, pages, Markdown, the end-of-run table, the commands' lines) goes through these, so a
rate prints the same digits wherever it appears. `analysis` returns the numbers; these write them."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal


def decimal_round(v: float, digits: int) -> str:
    """The project's one rounding rule for every figure it prints (tables, pages, Markdown, the
    READMEs that quote them): the number as Python writes it (`repr`, its shortest exact decimal),
    rounded half away from zero to `digits` decimals. So 0.9995 → 99.95% → "100.0" and 0.0625 →
    6.25% → "6.3", as a reader rounding the printed value by hand would; `f"{x:.1f}"` (binary
    value, ties to even) would print "99.9"/"6.2" and JavaScript's toFixed other digits again."""
    if not math.isfinite(v):
        return str(v)
    d = Decimal(repr(float(v))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return f"{d + 0:.{digits}f}" if d else f"{0:.{digits}f}"  # never "-0.0"


def sig(v: float, digits: int = 3) -> str:
    """`v` to `digits` significant digits by `decimal_round`'s rule, written as `f"{v:.3g}"` writes it
    (no trailing zeros; an exponent only where `g` would use one): 0.5625 → "0.563", not "0.562"."""
    if not math.isfinite(v) or v == 0:
        return f"{v:.{digits}g}"
    d = Decimal(repr(float(v)))
    q = d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=ROUND_HALF_UP)
    return f"{float(q):.{digits}g}"


def pct(v: float | None, digits: int = 1) -> str:
    """A rate as a percentage (`decimal_round` of 100·v); '–' where unknown (no budget records) or undefined."""
    return "–" if v is None else decimal_round(float(Decimal(repr(float(v))).scaleb(2)), digits)


def p_text(p: float | None) -> str:
    """A p-value as every table prints it: "<0.001" below 0.001, else two significant digits
    (`decimal_round`'s rule: 0.0165 → "0.017", 0.85 → "0.85")."""
    if p is None or not math.isfinite(p):
        return "–"
    if p < 0.001:
        return "<0.001"
    d = Decimal(repr(float(p)))
    q = d.quantize(Decimal(1).scaleb(d.adjusted() - 1), rounding=ROUND_HALF_UP)
    if q.adjusted() > d.adjusted():  # 0.0995 -> 0.100: two significant digits are 0.10
        q = q.quantize(Decimal(1).scaleb(q.adjusted() - 1), rounding=ROUND_HALF_UP)
    return f"{q:.{max(0, 1 - q.adjusted())}f}"


def pts(diff: float | None) -> str:
    """A difference of two accuracies in percentage points, signed ("+12.5", "−3.0"; `pct`'s rule)."""
    if diff is None:
        return "–"
    text = pct(abs(diff))
    return ("+" if diff >= 0 or text.strip("0.") == "" else "−") + text


def pct_sign(v: float | None) -> str:
    """'12.5%', or '–' (unknown) without a percent sign."""
    return "–" if v is None else pct(v) + "%"
