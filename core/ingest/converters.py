"""Format conversion for ingest: HTML and PDF files → Markdown text that
``core.ingest.chunking.parse_markdown`` reads (one job: turning other formats into our
Markdown; walking folders and reading text files is ``core.ingest.corpus``).

* HTML: ``markdownify`` after BeautifulSoup removes script/style content; the
  ``<title>`` becomes the document title.
* PDF: ``core.ingest.pdf_text`` (pypdfium2): headings from font size, every code point's
  page and box kept for ``core.ingest.pdf_positions``; a page whose text is mostly
  unreadable is left out with a warning (see ``core.ingest.sourcetext``).

``FORMATS`` is the one registry of the file types the product reads: their suffixes, their media
type (for a Gemini File Search store), how they become Markdown, and their Chinese name. The folder
walk (``core.ingest.corpus``), the library's checks, the 知识库 uploader's accepted types and the
File Search upload all read it, so adding a type is its converter and one ``FileFormat`` line.

Reasons and warnings are Chinese text for the 知识库 page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.ingest.pdf_positions import pdf_chunks
from core.ingest.pdf_text import PdfError, PdfMarkdown, read_pdf
from core.models import Chunk


class ReadError(Exception):
    """A file that cannot be read as a source; the message is the Chinese reason."""


def html_to_markdown(html: str) -> tuple[str, str | None]:
    """Markdown for an HTML page (``markdownify``, ATX headings) and its ``<title>``.

    ``<script>``, ``<style>``, ``<noscript>`` and ``<template>`` are removed
    first (BeautifulSoup); their content never becomes text. A ``|`` inside a table cell is escaped
    (``\\|``, GFM) so that it does not split the cell.
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
    for cell in soup.find_all(["td", "th"]):  # a pipe in a cell is text, not the Markdown table's cell border
        for piece in cell.find_all(string=True):
            if "|" in piece:
                piece.replace_with(piece.replace("|", "\\|"))
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


@dataclass(frozen=True)
class FileFormat:
    """One kind of source file.

    ``name``: a short id; ``label``: its Chinese name (the upload hint); ``suffixes``: lower-case,
    with the dot; ``mime_type``: the media type a Gemini File Search store is given (the File
    Search docs list ``text/plain``, ``text/html`` and ``application/pdf``; ``text/markdown`` only
    informally, so Markdown goes up as plain text). A text format is read as text (decoded and
    checked by ``core.ingest.sourcetext``), then ``to_markdown`` turns it into (Markdown, title or
    None) — None: the text is Markdown already. A binary format has ``read`` instead: path → a
    document with ``markdown``, ``title`` and ``warnings`` (raising ``ReadError``), and ``place``
    gives the parsed chunks their places in the file (PDF: pages and character boxes)."""

    name: str
    label: str
    suffixes: tuple[str, ...]
    mime_type: str
    to_markdown: Callable[[str], tuple[str, str | None]] | None = None
    read: Callable[[Path], Any] | None = None
    place: Callable[[list[Chunk], Any], list[Chunk]] | None = None


#: Markdown is also how a file of no registered suffix is read when it is named explicitly.
MARKDOWN = FileFormat("markdown", "Markdown", (".md", ".markdown"), "text/plain")

FORMATS: tuple[FileFormat, ...] = (
    MARKDOWN,
    FileFormat("text", "纯文本", (".txt",), "text/plain"),
    FileFormat("html", "HTML", (".html", ".htm"), "text/html", to_markdown=html_to_markdown),
    FileFormat("pdf", "PDF", (".pdf",), "application/pdf", read=pdf_to_markdown, place=pdf_chunks),
)

#: Every suffix a source file may have (lower-case, with the dot), in registry order.
SOURCE_SUFFIXES: tuple[str, ...] = tuple(s for f in FORMATS for s in f.suffixes)


def format_of(name: str | Path) -> FileFormat | None:
    """The format of a file name or path by its suffix (case-insensitive), or None."""
    suffix = Path(name).suffix.lower()
    return next((f for f in FORMATS if suffix in f.suffixes), None)


def upload_types(formats: Sequence[FileFormat] = FORMATS) -> tuple[str, ...]:
    """The suffixes without the dot, as ``st.file_uploader(type=...)`` takes them."""
    return tuple(s[1:] for f in formats for s in f.suffixes)


def mime_types(formats: Sequence[FileFormat] = FORMATS) -> dict[str, str]:
    """Suffix (with the dot) → media type, for every suffix."""
    return {s: f.mime_type for f in formats for s in f.suffixes}
