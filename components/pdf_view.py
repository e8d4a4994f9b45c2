"""A PDF citation as the page the user knows: the page image with the quote's boxes (issue 29).

Pure functions, no Streamlit. :func:`page_html` gives, for a chunk snapshot with ``positions``
and ``metadata["file_sha256"]``, the page(s) the highlighted passage touches (at most
:data:`MAX_PAGES`; the chunk's first page when nothing is highlighted) as ``<img>`` (a PNG data
URI rendered by ``core.ingest.pdf_pages``) under ``<mark class="yz-quote yz-pdf-box">`` boxes placed in
percent of the page, so the highlight scales with the image on a desktop and on a phone. The
first box carries ``mark_id`` (the page scrolls to it). The HTML holds no record text but the
page label; the caller sanitizes it (``components.sanitize`` allows exactly these tags).

The stored files live in the data folder the app runs on: :func:`use_data_dir` names it once per
process (``components.resources``); without it, or when a page cannot be rendered, the caller
shows the text snapshot with :func:`page_note`'s reason.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

from components.static import style
from core.public import ChunkSnapshot, PageUnavailable, page_size, pages_of, quote_boxes, render_page

#: The page view's stylesheet (``components/static/pdf.css``) as a ``<style>`` element.
PDF_CSS = style("pdf.css")
#: The most pages one snapshot shows (a quote over a page break: both pages).
MAX_PAGES = 2
_DATA_DIR: list[Path] = []


def use_data_dir(data_dir: Path | None) -> None:
    """Render stored PDFs from ``data_dir`` (``<data_dir>/files``); None: no page images."""
    _DATA_DIR[:] = [Path(data_dir)] if data_dir is not None else []


def is_pdf_chunk(chunk: ChunkSnapshot) -> bool:
    """True for a chunk with page positions and a stored file (one ingested since issue 29)."""
    return bool(chunk.positions) and isinstance(chunk.metadata.get("file_sha256"), str)


def page_label(first: int | None, last: int | None) -> str:
    """``第 N 页`` or ``第 N–M 页`` ("" without a page)."""
    if first is None:
        return ""
    return f"第 {first} 页" if last in (None, first) else f"第 {first}–{last} 页"


def _pct(value: float, total: float) -> str:
    return f"{max(0.0, min(100.0, 100.0 * value / total)):.3f}%"


def page_html(chunk: ChunkSnapshot, span: tuple[int, int] | None, *, mark_id: str = "yz-quote") -> str:
    """The page images of ``chunk`` with ``span`` (code points into ``chunk.text``) boxed.
    Raises ``PageUnavailable`` (Chinese reason) when no page can be shown."""
    if not _DATA_DIR:
        raise PageUnavailable("未配置原文件目录，无法显示页面")
    if not is_pdf_chunk(chunk):
        raise PageUnavailable("这个片段没有保存页面位置（在支持页面定位之前导入），只能显示文字")
    data_dir, sha = _DATA_DIR[0], str(chunk.metadata["file_sha256"])
    boxes = quote_boxes(chunk.positions, *span) if span else []
    pages = sorted({b[0] for b in boxes}) or pages_of(chunk.positions)[:1]
    out, first = [], True
    for page in pages[:MAX_PAGES]:
        width, height = page_size(data_dir, sha, page)
        png = base64.b64encode(render_page(data_dir, sha, page)).decode("ascii")
        marks = []
        for p, x0, top, x1, bottom in boxes:
            if p != page:
                continue
            ident = f' id="{html.escape(mark_id, quote=True)}"' if first and mark_id else ""
            first = False
            style = (
                f"left:{_pct(x0 - 1, width)};top:{_pct(top - 1, height)};"
                f"width:{_pct(x1 - x0 + 2, width)};height:{_pct(bottom - top + 2, height)}"
            )
            marks.append(f'<mark class="yz-quote yz-pdf-box"{ident} style="{style}"></mark>')
        out.append(
            f'<div class="yz-pdf-page"><div class="yz-pdf-label">{html.escape(page_label(page, None))}</div>'
            f'<div class="yz-pdf-frame"><img class="yz-pdf-img" alt="{html.escape(page_label(page, None))}" '
            f'src="data:image/png;base64,{png}">{"".join(marks)}</div></div>'
        )
    return f'<div class="yz-pdf">{"".join(out)}</div>'


def page_note(reason: str) -> str:
    """The note shown above the text snapshot when the page image cannot be shown (escaped)."""
    return f'<div class="yz-pdf-note">无法显示 PDF 页面：{html.escape(reason)}。以下为提取的文字。</div>'


def snapshot_body_html(chunk: ChunkSnapshot, span: tuple[int, int] | None, text_html: str, *, mark_id: str) -> str:
    """A snapshot's body: for a PDF chunk, its page image(s) with the quote boxed (the first box
    ``mark_id``) and ``text_html`` (the extracted text, rendered) collapsed under 提取的文字; when
    the page cannot be shown, :func:`page_note` and the text; for any other chunk ``text_html``."""
    if not is_pdf_chunk(chunk):
        return text_html
    try:
        pages = page_html(chunk, span, mark_id=mark_id)
    except PageUnavailable as exc:
        return page_note(str(exc)) + text_html
    return pages + f'<details class="yz-pdf-text"><summary>提取的文字</summary>{text_html}</details>'
