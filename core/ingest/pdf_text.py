"""A PDF's text with the place of every character: pypdfium2 (PDFium) → Markdown + origins.

One job: reading a PDF's text layer into the Markdown that ``core.ingest.chunking`` parses, and
remembering, for every code point of that Markdown, where its character sits on its page
(``core.ingest.pdf_positions`` turns that into each chunk's ``TextRun`` list).

* Characters come from PDFium's text page (``FPDFText_GetUnicode``, the loose character box
  ``FPDFText_GetLooseCharBox``, ``FPDFText_GetFontSize``); PDFium's generated line breaks
  split lines, its generated spaces get the gap between their neighbours as their box.
* Compatibility look-alikes are replaced by their NFKC form, one code point for one: Kangxi
  radicals (U+2F00–U+2FDF, ``⼿`` → ``手``), CJK Radicals Supplement (U+2E80–U+2EFF, where NFKC
  maps them) and full-width Latin letters and digits (``Ａ１`` → ``A1``). Full-width punctuation
  (``，：（``) is ordinary Chinese text and stays.
* Lines set in a font at least :data:`HEADING_RATIO` times the body size (the most common size,
  by characters), short and without sentence-final punctuation, are Markdown headings (the
  largest size ``##``, the next ``###``, then ``####``); the rest are paragraphs, split where
  the gap between lines is larger than half a line. A paragraph continues over a page break
  unless its last line ends a sentence.
* The title: the metadata title unless it is empty or a placeholder (:func:`is_placeholder_title`:
  ``about:blank``, ``untitled``, ``Microsoft Word - …``, a file name such as ``in.html``), else
  the first heading, else the file name without its suffix.

Coordinates are PDF points (1/72 inch) from the page's top-left corner.
Raises :class:`PdfError` (a Chinese reason) for a file PDFium cannot open, an encrypted one,
one with more than :data:`MAX_PAGES` pages, and one without readable text.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from core.cjk import fold_lookalike
from core.ingest.sourcetext import GARBLED_SHARE, remove_controls, unreadable_share

#: A line whose font is this many times the body size (or more) may be a heading.
HEADING_RATIO = 1.2
#: PDFs with more pages than this are refused with a reason (split them): reading one costs
#: about 10 ms a page, and a page image is rendered per citation.
MAX_PAGES = 300
#: The longest line (code points) still taken as a heading.
HEADING_MAX_CHARS = 60
_SENTENCE_END = tuple("。！？.!?；;，,：:")
_MD_LINE_START = ("#", ">", "-", "+", "*", "|", "`", "=")

#: ``(page, line number on the page, x0, x1)`` of one Markdown code point; the line's box is
#: ``PdfMarkdown.lines[(page, line)]``.
Origin = tuple[int, int, float, float]


class PdfError(Exception):
    """A PDF that cannot be read as a source; the message is the Chinese reason."""


@dataclass
class PdfMarkdown:
    """What :func:`read_pdf` gives: ``markdown`` (no front matter), ``origins`` (one entry per
    code point of ``markdown``: its :data:`Origin`, or None for Markdown syntax and joins),
    ``lines`` (``(page, line)`` → ``(top, bottom)`` points), the chosen ``title``, the page
    count, Chinese ``warnings`` and the SHA-256 (hex) of the file's bytes."""

    markdown: str
    origins: list[Origin | None]
    lines: dict[tuple[int, int], tuple[float, float]]
    title: str
    page_count: int
    warnings: list[str] = field(default_factory=list)
    file_sha256: str = ""


def compat_char(ch: str) -> str:
    """``ch`` with a compatibility look-alike replaced by its NFKC form (see the module doc);
    every other character as it is. Always one code point."""
    return fold_lookalike(ch)


_FILE_NAME = re.compile(r"^[^\s/\\]{1,80}\.(?:html?|pdf|docx?|xlsx?|pptx?|txt|md|aspx?|php|jsp|rtf|odt)$", re.I)
_PLACEHOLDERS = {
    "about:blank",
    "untitled",
    "untitled document",
    "无标题",
    "无标题文档",
    "document",
    "blank",
    "new document",
}


def is_placeholder_title(title: str | None) -> bool:
    """True for a metadata title that names nothing: empty, ``about:blank``, ``untitled`` (and
    the like), ``Microsoft Word - …``, or a file name (``in.html``, ``Document1.docx``)."""
    t = (title or "").strip()
    if not t:
        return True
    low = t.lower()
    return (
        low in _PLACEHOLDERS
        or low.startswith(("microsoft word -", "microsoft powerpoint -"))
        or bool(_FILE_NAME.match(t))
    )


@dataclass
class _Line:
    page: int
    number: int
    chars: list[tuple[str, float, float]]  # (character, x0, x1)
    top: float
    bottom: float
    size: float

    @property
    def text(self) -> str:
        return "".join(c for c, _, _ in self.chars)


def _page_lines(page, number: int) -> tuple[list[_Line], str]:  # noqa: ANN001 - a pypdfium2 page
    """The lines of one page and its raw text (for the unreadable share)."""
    import pypdfium2.raw as raw

    height = page.get_height()
    textpage = page.get_textpage()
    try:
        lines: list[_Line] = []
        raw_text: list[str] = []
        current: list[tuple[str, tuple[float, float, float, float] | None, float]] = []

        def close() -> None:
            while current and current[-1][0].isspace():
                current.pop()
            while current and current[0][0].isspace():
                current.pop(0)
            boxed = [b for _, b, _ in current if b is not None]
            if current and boxed:
                lines.append(_line(current, page=number, number=len(lines)))
            current.clear()

        for i in range(textpage.count_chars()):
            cp = raw.FPDFText_GetUnicode(textpage, i)
            ch = chr(cp) if 0 <= cp < 0x110000 and not 0xD800 <= cp < 0xE000 else "\ufffd"
            raw_text.append(ch)
            if ch == "\r":
                continue
            if ch == "\n":
                close()
                continue
            ch = remove_controls(compat_char(ch))[0]
            if not ch:
                continue
            box = None
            if not ch.isspace() and raw.FPDFText_IsGenerated(textpage, i) != 1:
                left, bottom, right, top = textpage.get_charbox(i, loose=True)
                box = (left, height - top, right, height - bottom)
            current.append((ch, box, float(raw.FPDFText_GetFontSize(textpage, i))))
        close()
        return lines, "".join(raw_text)
    finally:
        textpage.close()


def _line(chars: list, *, page: int, number: int) -> _Line:
    """A line from ``(character, box or None, font size)``: unboxed characters (spaces) get the gap
    between their boxed neighbours; the line box spans its characters' boxes."""
    boxed = [b for _, b, _ in chars if b is not None]
    top, bottom = min(b[1] for b in boxed), max(b[3] for b in boxed)
    out: list[tuple[str, float, float]] = []
    for k, (ch, box, _) in enumerate(chars):
        if box is None:
            left = next((b[2] for _, b, _ in reversed(chars[:k]) if b is not None), boxed[0][0])
            right = next((b[0] for _, b, _ in chars[k + 1 :] if b is not None), left)
            box = (left, top, max(left, right), bottom)
        out.append((ch, box[0], box[2]))
    size = max((s for (_, b, s) in chars if b is not None), default=0.0)
    return _Line(page, number, out, top, bottom, size)


def _pages(numbers: list[int]) -> str:
    return "、".join(str(n) for n in numbers[:10]) + ("…" if len(numbers) > 10 else "")


def read_pdf(path: Path) -> PdfMarkdown:
    """Read the PDF at ``path`` (see the module docstring). Raises :class:`PdfError`."""
    import pypdfium2 as pdfium

    data = Path(path).read_bytes()
    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise PdfError("PDF 已加密（需要密码），无法读取；请上传未加密的版本") from exc
        raise PdfError(f"不是可读取的 PDF（{exc}）") from exc
    try:
        count = len(doc)
        if count > MAX_PAGES:
            raise PdfError(f"PDF 有 {count} 页，超过 {MAX_PAGES} 页的上限，未导入；请拆分成较小的文件后再上传")
        meta_title = (doc.get_metadata_value("Title") or "").strip()
        lines: list[_Line] = []
        garbled: list[tuple[int, float]] = []
        for n in range(1, count + 1):
            page = doc[n - 1]
            try:
                page_lines, raw_text = _page_lines(page, n)
            finally:
                page.close()
            share = unreadable_share(raw_text)
            if share > GARBLED_SHARE:
                garbled.append((n, share))
                continue
            lines.extend(page_lines)
    finally:
        doc.close()
    note = ""
    if garbled:
        note = (
            f"第 {_pages([n for n, _ in garbled])} 页提取出的文字大多无法识别（最多约 {max(s for _, s in garbled):.0%} "
            "是控制字符或替换字符，常见原因是字体缺少 ToUnicode 映射），不作为可检索文本保存"
        )
    if not lines:
        if note:
            raise PdfError(note + "；未导入。请换用可复制文字的 PDF，或先转成文本")
        raise PdfError("PDF 中没有可提取的文字（可能是扫描件或图片，需要先做文字识别 OCR），未导入")
    md = _markdown(lines)
    first_heading = next((ln.text.strip() for ln, level in _classify(lines) if level), None)
    if unreadable_share(meta_title) > GARBLED_SHARE:
        meta_title = ""
    meta_title = remove_controls(meta_title)[0].strip()
    title = meta_title if not is_placeholder_title(meta_title) else first_heading or Path(path).stem or Path(path).name
    return PdfMarkdown(
        *md,
        title=title,
        page_count=count,
        warnings=[note] if note else [],
        file_sha256=hashlib.sha256(data).hexdigest(),
    )


def _classify(lines: list[_Line]) -> list[tuple[_Line, int]]:
    """Each line with its heading level (2–4), or 0 for body text."""
    sizes = Counter()
    for ln in lines:
        sizes[round(ln.size * 2) / 2] += len(ln.chars)
    body = sizes.most_common(1)[0][0] if sizes else 0.0

    def heading(ln: _Line) -> bool:
        text = ln.text.strip()
        return (
            body > 0
            and ln.size >= body * HEADING_RATIO
            and 0 < len(text) <= HEADING_MAX_CHARS
            and not text.endswith(_SENTENCE_END)
        )

    levels = sorted({round(ln.size * 2) / 2 for ln in lines if heading(ln)}, reverse=True)
    return [(ln, min(4, 2 + levels.index(round(ln.size * 2) / 2)) if heading(ln) else 0) for ln in lines]


def _markdown(lines: list[_Line]) -> tuple[str, list[Origin | None], dict[tuple[int, int], tuple[float, float]]]:
    parts: list[str] = []
    origins: list[Origin | None] = []
    boxes: dict[tuple[int, int], tuple[float, float]] = {}

    def emit(text: str, origin: list[Origin | None] | None = None) -> None:
        parts.append(text)
        origins.extend(origin if origin is not None else [None] * len(text))

    prev: _Line | None = None
    prev_heading = True
    for ln, level in _classify(lines):
        boxes[(ln.page, ln.number)] = (round(ln.top, 1), round(ln.bottom, 1))
        chars = [(c, (ln.page, ln.number, x0, x1)) for c, x0, x1 in ln.chars]
        if level:
            if parts:
                emit("\n\n")
            emit("#" * level + " ")
        elif prev is not None:
            emit("\n\n" if prev_heading or _paragraph_break(prev, ln) else "\n")
        cut = _escape_at(ln.text) if not level else None
        if cut is not None:  # plain text that would start a Markdown block: escape its marker
            emit("".join(c for c, _ in chars[:cut]), [o for _, o in chars[:cut]])
            emit("\\")
            chars = chars[cut:]
        emit("".join(c for c, _ in chars), [o for _, o in chars])
        prev, prev_heading = ln, bool(level)
    return "".join(parts), origins, boxes


_ORDERED = re.compile(r"\d{1,9}(?=[.)])")


def _escape_at(text: str) -> int | None:
    """Where a backslash keeps ``text`` (a line) from starting a Markdown block: before ``#``,
    ``>``, ``-``, ``+``, ``*``, ``|``, `````, ``=`` at its start, after the digits of ``1.`` / ``1)``."""
    if text[:1] in _MD_LINE_START:
        return 0
    m = _ORDERED.match(text)
    return m.end() if m else None


def _paragraph_break(prev: _Line, ln: _Line) -> bool:
    if ln.page != prev.page:  # a sentence that runs over the page break stays one paragraph
        return prev.text.rstrip().endswith(_SENTENCE_END[:6])
    height = max(1.0, prev.bottom - prev.top)
    return ln.top - prev.bottom > 0.5 * height or abs(ln.size - prev.size) > 0.1 * max(ln.size, prev.size)
