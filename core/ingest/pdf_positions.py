"""Where a PDF chunk's characters and a quote's boxes sit on the pages (issue 29).

* :func:`chunk_runs` aligns a chunk's text (code points, as the chunker wrote it: soft line
  breaks joined, headings moved to the heading path) to the Markdown ``core.ingest.pdf_text`` built,
  and groups the aligned code points into ``TextRun`` values, one per line piece.
* :func:`quote_boxes` gives the page boxes of ``chunk.text[start:end]`` (a support's aligned
  quote): one box per line it touches, on every page it crosses.

Offsets are code points into the chunk text (docs/design.md: the chunk's code-point offsets are law);
boxes are PDF points from the page's top-left corner.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.ingest.pdf_text import Origin, PdfMarkdown
from core.models import Chunk, TextRun

#: How far (code points of the Markdown) the alignment looks ahead for a chunk's next character.
WINDOW = 80

#: ``(page, x0, top, x1, bottom)``: one highlight box, PDF points from the page's top-left corner.
Box = tuple[int, float, float, float, float]


def _locate(text: str, source: str, hint: int) -> int:
    """Where ``text`` starts in ``source``: its first line's first 16 code points, searched from
    ``hint`` (chunks come in document order), then from the start; else ``hint``."""
    probe = text.strip().split("\n", 1)[0][:16]
    if not probe:
        return hint
    for start in (hint, 0):
        pos = source.find(probe, start)
        if pos >= 0:
            return pos
    return hint


def align(text: str, source: str, hint: int = 0) -> tuple[list[int | None], int]:
    """For each code point of ``text``, the index of the same character in ``source`` (in order,
    within :data:`WINDOW` of the last match), or None; and where the match ended."""
    j = _locate(text, source, hint)
    out: list[int | None] = []
    for ch in text:
        if ch.isspace():
            if j < len(source) and source[j] == ch:
                out.append(j)
                j += 1
            else:
                out.append(None)
            continue
        k = source.find(ch, j, j + WINDOW)
        if k < 0:
            out.append(None)
            continue
        out.append(k)
        j = k + 1
    return out, j


def chunk_runs(
    text: str,
    source: str,
    origins: Sequence[Origin | None],
    lines: dict[tuple[int, int], tuple[float, float]],
    hint: int = 0,
) -> tuple[tuple[TextRun, ...], int]:
    """The ``TextRun`` list of a chunk whose text is ``text``, aligned to ``source`` (the
    Markdown, with ``origins`` per code point and ``lines`` their boxes; ``core.ingest.pdf_text``);
    and the alignment's end in ``source`` (the ``hint`` for the next chunk)."""
    matched, end = align(text, source, hint)
    runs: list[TextRun] = []
    cur: list[tuple[int, Origin]] = []

    def flush() -> None:
        while cur and text[cur[-1][0]].isspace():
            cur.pop()
        if cur:
            page, line = cur[0][1][0], cur[0][1][1]
            xs = [cur[0][1][2]]
            for (_, a), (_, b) in zip(cur, cur[1:]):
                xs.append((a[3] + b[2]) / 2 if b[2] >= a[3] else a[3])
            xs.append(max(cur[-1][1][3], xs[-1]))
            for k in range(1, len(xs)):
                xs[k] = max(xs[k], xs[k - 1])
            top, bottom = lines[(page, line)]
            runs.append(
                TextRun(
                    page=page,
                    start=cur[0][0],
                    end=cur[-1][0] + 1,
                    top=top,
                    bottom=bottom,
                    xs=tuple(round(x, 1) for x in xs),
                )
            )
        cur.clear()

    for i, k in enumerate(matched):
        o = origins[k] if k is not None and k < len(origins) else None
        if o is None or (cur and (cur[-1][1][:2] != o[:2] or cur[-1][0] != i - 1)):
            flush()
        if o is not None and not (not cur and text[i].isspace()):
            cur.append((i, o))
    flush()
    return tuple(runs), end


def quote_boxes(runs: Sequence[TextRun] | None, start: int, end: int) -> list[Box]:
    """The boxes of ``text[start:end]`` (code points into the chunk text), in text order: one
    per run it overlaps (a line piece), so a quote over three lines and a page break gives
    boxes on both pages. Empty without runs or for an empty span."""
    out: list[Box] = []
    for run in runs or ():
        a, b = max(start, run.start), min(end, run.end)
        if a >= b:
            continue
        x0, x1 = run.xs[a - run.start], run.xs[b - run.start]
        if out and out[-1][0] == run.page and abs(out[-1][2] - run.top) < 0.05 and abs(out[-1][3] - x0) < 0.05:
            out[-1] = (run.page, out[-1][1], run.top, x1, run.bottom)  # the same line, continued
        else:
            out.append((run.page, x0, run.top, x1, run.bottom))
    return out


def pages_of(runs: Sequence[TextRun] | None, start: int = 0, end: int | None = None) -> list[int]:
    """The pages (ascending, each once) that ``text[start:end]`` touches; all the chunk's pages by default."""
    stop = end if end is not None else max((r.end for r in runs or ()), default=0)
    return sorted({r.page for r in runs or () if r.start < stop and r.end > start})


def pdf_chunks(chunks: Sequence[Chunk], pdf: PdfMarkdown) -> list[Chunk]:
    """``chunks`` (parsed from ``pdf.markdown``, in document order) with their ``positions``
    and the metadata ``page`` / ``page_end`` (first and last page, 1-based) and ``file_sha256``
    (the stored file they came from; ``core.ingest.pdf_pages``)."""
    out: list[Chunk] = []
    hint = 0
    for c in chunks:
        runs, hint = chunk_runs(c.text, pdf.markdown, pdf.origins, pdf.lines, hint)
        pages = pages_of(runs)
        meta = {**c.metadata, "file_sha256": pdf.file_sha256}
        if pages:
            meta.update(page=pages[0], page_end=pages[-1])
        out.append(c.model_copy(update={"metadata": meta, "positions": runs or None}))
    return out
