"""Format conversion for ingest: HTML and PDF files → Markdown text that
``core.chunking.parse_markdown`` reads (one job: turning other formats into our
Markdown; walking folders and reading text files is ``core.corpus``).

* HTML: ``markdownify`` after BeautifulSoup removes script/style content; the
  ``<title>`` becomes the document title.
* PDF: ``pypdf`` text per page, one ``## 第 N 页`` section per page (1-based), so
  each chunk knows its page; a page whose text is mostly unreadable is left out
  with a warning (see ``core.sourcetext``).

Reasons and warnings are Chinese text for the 知识库 page.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from core.sourcetext import GARBLED_SHARE, remove_controls, unreadable_share

PAGE_HEADING = "第 {n} 页"
logging.getLogger("pypdf").setLevel(logging.ERROR)


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
    for tag in soup(["script", "style", "noscript", "template", "head"] if soup.body else ["script", "style", "noscript", "template"]):
        if tag.name == "head":
            continue
        tag.decompose()
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    if soup.title:
        soup.title.decompose()
    body = soup.body or soup
    return markdownify(str(body), heading_style="ATX", strip=["img"]), title or None


def _escape_md_line_starts(text: str) -> str:
    # PDF text is plain text: keep a line starting with '#', '>', '-', '+', '*', '|'
    # or '1.' from turning into Markdown structure.
    out = []
    for line in text.splitlines():
        stripped = line.lstrip()
        if stripped[:1] in ("#", ">", "-", "+", "*", "|", "`", "=") or (
            stripped[:1].isdigit() and "." in stripped[:4]
        ):
            line = "\\" + stripped
        out.append(line)
    return "\n".join(out)


def _pages(numbers: Sequence[int]) -> str:
    return "、".join(str(n) for n in numbers[:10]) + ("…" if len(numbers) > 10 else "")


def pdf_to_markdown(path: Path) -> tuple[str, str | None, int, list[str]]:
    """Markdown for a PDF: one ``## 第 N 页`` section per page (1-based), the
    text of each page as ``pypdf`` extracts it, plus the document title from
    its metadata. Returns ``(markdown, title, page_count, warnings)``.

    A page whose text is mostly unreadable (:data:`GARBLED_SHARE`, e.g. a font
    without a usable ToUnicode map extracts as NULs and U+FFFD) is left out
    with a warning; control characters are removed from the other pages.
    Raises ``ReadError`` (Chinese reason) for an encrypted or unreadable PDF,
    and for one with no readable text at all (scanned, or every page garbled).
    """
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            raise ReadError("PDF 已加密，无法读取")
        title = (reader.metadata.title if reader.metadata else None) or None
        if title and unreadable_share(title) <= GARBLED_SHARE:  # a UTF-16 title read as bytes holds NULs too
            title = remove_controls(title)[0].strip() or None
        else:
            title = None
        sections: list[str] = []
        garbled: list[tuple[int, float]] = []
        removed = 0
        for n, page in enumerate(reader.pages, start=1):
            raw = page.extract_text() or ""
            share = unreadable_share(raw)
            if share > GARBLED_SHARE:
                garbled.append((n, share))
                continue
            text, k = remove_controls(raw)
            removed += k
            text = text.strip()
            if text:
                sections.append(f"## {PAGE_HEADING.format(n=n)}\n\n{_escape_md_line_starts(text)}")
        page_count = len(reader.pages)
    except ReadError:
        raise
    except (PdfReadError, OSError, ValueError, KeyError, TypeError) as exc:
        raise ReadError(f"不是可读取的 PDF（{exc}）") from exc
    garbled_note = ""
    if garbled:
        worst = max(s for _, s in garbled)
        garbled_note = (
            f"第 {_pages([n for n, _ in garbled])} 页提取出的文字大多无法识别（最多约 {worst:.0%} 是控制字符"
            "或替换字符，常见原因是字体缺少 ToUnicode 映射），不作为可检索文本保存"
        )
    if not sections:
        if garbled_note:
            raise ReadError(garbled_note + "；未导入。请换用可复制文字的 PDF，或先转成文本")
        raise ReadError("PDF 中没有可提取的文字（可能是扫描件或图片），未导入")
    warnings = [garbled_note] if garbled_note else []
    if removed:
        warnings.append(f"已删除 {removed} 个控制字符（如 NUL）")
    return "\n\n".join(sections), title, page_count, warnings
