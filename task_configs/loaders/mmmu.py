"""MMMU (Yue et al. 2024) multiple-choice questions with their images, from `mmmu/subset.jsonl`.

Images become `Image(bytes, mime)`; a row whose image file is missing or is not a PNG/JPEG/GIF/
WebP is skipped and counted, as are open (short-answer) questions and questions whose options are
themselves images. Binary: the correct option against one random other option.
"""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

from oversight_bench.api import Image
from task_configs.loaders.common import LoadContext, Records, read_rows

_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"))


def sniff(data: bytes) -> str | None:
    """The image's MIME type from its header, or None when it is not an image we can send."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _decodes(data: bytes) -> bool:
    try:
        import io

        from PIL import Image as PILImage
    except ImportError:  # Pillow is optional: the header check stands alone
        return True
    try:
        with PILImage.open(io.BytesIO(data)) as im:
            im.verify()
        return True
    except Exception:
        return False


@functools.lru_cache(maxsize=2048)
def _image(path: str, size: int, mtime: int) -> Image | None:
    data = Path(path).read_bytes()
    mime = sniff(data)
    return Image(data, mime) if mime and _decodes(data) else None


def load(cfg, ctx: LoadContext) -> Records:
    rows, skipped, read = [], Counter(), 0
    for path in ctx.files(cfg.source.local.files, cfg.source.local.exclude):
        file_rows, bad = read_rows(path, "jsonl")
        skipped["malformed_row"] += bad
        read += len(file_rows)
        for r in file_rows:
            if r.get("question_type") != "multiple-choice":
                skipped["not_multiple_choice"] += 1
                continue
            if r.get("options_reference_images"):
                skipped["image_options"] += 1
                continue
            images, reason = [], None
            for im in r.get("images") or []:
                f = path.parent / im.get("file", "")
                if not f.is_file():
                    reason = "missing_image"
                    break
                st = f.stat()
                img = _image(str(f), st.st_size, st.st_mtime_ns)
                if img is None:
                    reason = "undecodable_image"
                    break
                images.append(img)
            if reason:
                skipped[reason] += 1
                continue
            meta = {k: r.get(k) for k in ("subject", "split", "subfield", "topic_difficulty", "image_tags_in_question")}
            rows.append({**r, "images": images, "_meta": meta})
    return Records(rows, +skipped, facts={"rows": read})  # the subset's size, for the task's `substitution`
