"""Format conversion for ingest: HTML and PDF files → Markdown text that
``core.ingest.chunking.parse_markdown`` reads (one job: turning other formats into our
Markdown; walking folders and reading text files is ``core.ingest.corpus``).

* HTML: ``markdownify`` after BeautifulSoup removes script/style content; the
  ``<title>`` becomes the document title.
* PDF: ``core.ingest.pdf_text`` (pypdfium2): headings from font size, every code point's
  page and box kept for ``core.ingest.pdf_positions``; a page whose text is mostly
  unreadable is left out with a warning (see ``core.ingest.sourcetext``).

Reasons and warnings are Chinese text for the 知识库 page.
"""

from __future__ import annotations

from pathlib import Path

from core.ingest.pdf_text import PdfError, PdfMarkdown, read_pdf


class ReadError(Exception):
    """A file that cannot be read as a source; the message is the Chinese reason."""


def html_to_markdown(html: str) -> tuple[str, str | None]:
    """Markdown for an HTML page (``markdownify``, ATX headings) and its ``<title>``.

    ``<script>``, ``<style>``, ``<noscript>`` and ``<template>`` are removed
    first (BeautifulSoup); their content never becomes text.
    """
    from bs4 import BeautifulSoup
    from markdownify import markdownify

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(
        ["script", "style", "noscript", "template", "head"]
        if soup.body
        else ["script", "style", "noscript", "template"]
    ):
        if tag.name == "head":
            continue
        tag.decompose()
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    if soup.title:
        soup.title.decompose()
    body = soup.body or soup
    return markdownify(str(body), heading_style="ATX", strip=["img"]), title or None


def pdf_to_markdown(path: Path) -> PdfMarkdown:
    """Markdown for a PDF with the page place of each code point (``core.ingest.pdf_text.read_pdf``:
    pypdfium2, headings from font size, NFKC for look-alike characters, the title with its
    fallbacks). Raises ``ReadError`` (Chinese reason) for an encrypted, unreadable, too long
    or text-less PDF (scanned, or every page garbled)."""
    try:
        return read_pdf(path)
    except PdfError as exc:
        raise ReadError(str(exc)) from exc
    except OSError as exc:
        raise ReadError(f"不是可读取的 PDF（{exc}）") from exc
    except ImportError as exc:  # pypdfium2 is in requirements.txt; an old environment lacks it
        raise ReadError("读取 PDF 需要 pypdfium2（pip install -r requirements.txt），未导入") from exc
