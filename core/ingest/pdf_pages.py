"""Stored PDF files and their rendered pages (issue 29).

Ingest keeps each PDF's bytes under ``<data_dir>/files/<sha256>.pdf`` (content-addressed: an
old answer's chunk names the version it cited in ``metadata["file_sha256"]``, and a changed
file never overwrites it). A page is rendered with pypdfium2 (PDFium → bitmap → PNG with a
:data:`PALETTE_COLOURS` palette) at :data:`RENDER_WIDTH` pixels and cached as ``<data_dir>/page-cache/<sha256>-<page>-<width>.png``.

Errors: :func:`render_page` raises :class:`PageUnavailable` (Chinese reason) when the file is not
stored, the page does not exist or PDFium cannot render it; the caller shows the text instead.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from pathlib import Path

#: Width of a rendered page image in pixels (about 1.3x an A4 page at 96 dpi).
RENDER_WIDTH = 1000
#: Colours of the page image's palette (median cut): a text page's PNG is about 4x smaller than
#: in full colour (~100 KiB for a dense A4 page at 1000 px), figures keep their main colours.
PALETTE_COLOURS = 16
_SHA = re.compile(r"[0-9a-f]{64}")


class PageUnavailable(Exception):
    """A page that cannot be shown as an image; the message is the Chinese reason."""


def file_path(data_dir: Path, sha256: str) -> Path:
    """Where the PDF with this SHA-256 (64 lowercase hex digits) is stored. Raises ``ValueError``
    for anything else (the value comes from a stored record)."""
    if not isinstance(sha256, str) or not _SHA.fullmatch(sha256):
        raise ValueError("not a SHA-256 hex digest")
    return Path(data_dir) / "files" / f"{sha256}.pdf"


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def store_file(data_dir: Path, sha256: str, source: Path) -> Path:
    """Copy ``source`` (a PDF whose bytes hash to ``sha256``) to :func:`file_path` unless it is there."""
    target = file_path(data_dir, sha256)
    if not target.exists():
        _write_atomic(target, Path(source).read_bytes())
    return target


def _with_page(data_dir: Path, sha256: str, page: int, use):  # noqa: ANN001, ANN202
    """``use(pdf_page)`` on page ``page`` (1-based) of the stored PDF, closed afterwards."""
    try:
        import pypdfium2 as pdfium
    except ImportError as exc:
        raise PageUnavailable("显示页面需要 pypdfium2（pip install -r requirements.txt）") from exc

    path = file_path(data_dir, sha256)
    if not path.exists():
        raise PageUnavailable("原文件未保存（可能是在保存原文件之前导入的），无法显示页面")
    try:
        doc = pdfium.PdfDocument(path)
        try:
            if not 1 <= page <= len(doc):
                raise PageUnavailable(f"原文件没有第 {page} 页")
            pg = doc[page - 1]
            try:
                return use(pg)
            finally:
                pg.close()
        finally:
            doc.close()
    except pdfium.PdfiumError as exc:
        raise PageUnavailable(f"无法打开或渲染第 {page} 页（{exc}）") from exc


def page_size(data_dir: Path, sha256: str, page: int) -> tuple[float, float]:
    """``(width, height)`` of a stored PDF's page (1-based) in PDF points. Raises ``PageUnavailable``."""
    return _with_page(data_dir, sha256, page, lambda pg: (pg.get_width(), pg.get_height()))


def render_page(data_dir: Path, sha256: str, page: int, width: int = RENDER_WIDTH) -> bytes:
    """PNG bytes of page ``page`` (1-based) of the stored PDF ``sha256``, ``width`` pixels wide,
    from the page cache when rendered before. Raises ``PageUnavailable``."""
    cached = Path(data_dir) / "page-cache" / f"{file_path(data_dir, sha256).stem}-{int(page)}-{int(width)}.png"
    if cached.exists():
        return cached.read_bytes()
    image = _with_page(data_dir, sha256, page, lambda pg: pg.render(scale=width / pg.get_width()).to_pil())
    image = image.convert("RGB").quantize(PALETTE_COLOURS)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    data = buf.getvalue()
    _write_atomic(cached, data)
    return data
