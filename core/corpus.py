"""Reading a folder of Markdown files into documents and chunks.

``load_sources`` walks folders (or single files), reads each file as UTF-8,
parses it with :func:`core.chunking.parse_markdown` and collects every file that
cannot be read or parsed as an :class:`IngestFailure` instead of stopping, so one
bad file never blocks the rest.

``source_id`` is the POSIX path of a file relative to the folder it was found
under (``"concepts/workloads/pods/_index.md"`` for a root of ``…/docs``), or the
file name for a single file given directly.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from core.chunking import parse_front_matter, parse_markdown
from core.errors import IngestError
from core.models import Chunk, SourceDocument

__all__ = [
    "K8S_ZH_BASE",
    "SOURCE_SUFFIXES",
    "IngestFailure",
    "ParsedSource",
    "iter_source_files",
    "load_glossary",
    "load_sources",
    "public_url",
]

#: Public base URL of the Kubernetes zh-cn docs (``docs/`` folder of the corpus).
K8S_ZH_BASE = "https://kubernetes.io/zh-cn/docs/"

#: File name endings read as Markdown (lower-cased comparison).
SOURCE_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf")
PAGE_HEADING = "第 {n} 页"
logging.getLogger("pypdf").setLevel(logging.ERROR)

_INDEX_STEMS = ("_index", "index")


@dataclass(frozen=True)
class IngestFailure:
    """A file that could not be read or parsed; ``reason`` is readable text."""

    source_id: str
    path: str
    reason: str


@dataclass(frozen=True)
class ParsedSource:
    """One parsed file: its document, its chunks (document order) and its path."""

    document: SourceDocument
    chunks: list[Chunk]
    path: Path


def public_url(source_id: str, base_url: str | None = K8S_ZH_BASE) -> str | None:
    """The public URL of a source, Hugo style, or ``None`` without a base URL.

    ``a/b.md`` → ``{base}a/b/``; ``a/_index.md`` (or ``index.md``) → ``{base}a/``;
    the root ``_index.md`` → ``{base}``. Path segments are percent-encoded.
    """
    if not base_url:
        return None
    base = base_url if base_url.endswith("/") else base_url + "/"
    p = PurePosixPath(source_id.replace("\\", "/"))
    parts = list(p.parts)
    if not parts:
        return base
    stem = p.name
    for suffix in SOURCE_SUFFIXES:
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    parts = parts[:-1] if stem in _INDEX_STEMS else parts[:-1] + [stem]
    rel = "/".join(quote(s) for s in parts if s not in ("", "."))
    return base + (rel + "/" if rel else "")


def load_glossary(root: Path) -> dict[str, str]:
    """``term_id → title`` from ``root/reference/glossary/*.md`` front matter.

    The term id is the front matter ``id`` (and also the file stem). Files that
    cannot be read, and a missing glossary folder, are skipped silently (the
    result may be empty). Never raises for file problems.
    """
    folder = Path(root) / "reference" / "glossary"
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for f in sorted(folder.glob("*.md")):
        if f.name.startswith("_") or not f.is_file():
            continue
        try:
            fm, _err = parse_front_matter(f.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        title = fm.get("title")
        if title is None or isinstance(title, dict | list):
            continue
        title = str(title).strip()
        if not title:
            continue
        out.setdefault(f.stem, title)
        term = fm.get("id")
        if term is not None and str(term).strip():
            out[str(term).strip()] = title
    return out


def _is_hidden(rel: PurePosixPath) -> bool:
    return any(part.startswith(".") for part in rel.parts)


def iter_source_files(paths: Sequence[Path]) -> list[tuple[Path, str]]:
    """``(path, source_id)`` for every source under ``paths``.

    A folder contributes each entry below it whose name ends in one of
    :data:`SOURCE_SUFFIXES` (hidden entries skipped), sorted by source id; the
    source id is the POSIX path relative to that folder. Entries are listed even
    when they are not regular files (a directory named ``x.md``), so that
    :func:`load_sources` can report them. A path that is not a folder is listed
    as itself with its file name as source id (a missing one too).
    """
    out: list[tuple[Path, str]] = []
    for root in paths:
        root = Path(root)
        if root.is_dir():
            found: list[tuple[Path, str]] = []
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for name in list(filenames) + list(dirnames):
                    if not name.lower().endswith(SOURCE_SUFFIXES) or name.startswith("."):
                        continue
                    full = Path(dirpath) / name
                    rel = PurePosixPath(full.relative_to(root).as_posix())
                    if not _is_hidden(rel):
                        found.append((full, rel.as_posix()))
            out.extend(sorted(found, key=lambda t: t[1]))
        else:
            out.append((root, root.name))
    return out


class _ReadError(Exception):
    pass


def _read(path: Path) -> str:
    try:
        if path.is_dir():
            raise _ReadError("is a directory, not a file")
        data = path.read_bytes()
    except OSError as exc:
        raise _ReadError(f"cannot read ({exc.strerror or exc})") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _ReadError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from exc


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


def pdf_to_markdown(path: Path) -> tuple[str, str | None, int]:
    """Markdown for a PDF: one ``## 第 N 页`` section per page (1-based), the
    text of each page as ``pypdf`` extracts it, plus the document title from
    its metadata. Returns ``(markdown, title, page_count)``.

    Raises ``_ReadError`` for an encrypted or unreadable PDF.
    """
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            raise _ReadError("the PDF is encrypted")
        title = (reader.metadata.title if reader.metadata else None) or None
        sections = []
        for n, page in enumerate(reader.pages, start=1):
            text = (page.extract_text() or "").strip()
            if text:
                sections.append(f"## {PAGE_HEADING.format(n=n)}\n\n{_escape_md_line_starts(text)}")
        return "\n\n".join(sections), title, len(reader.pages)
    except _ReadError:
        raise
    except (PdfReadError, OSError, ValueError, KeyError, TypeError) as exc:
        raise _ReadError(f"not a readable PDF ({exc})") from exc


def parse_file(
    path: Path, source_id: str, *, glossary: dict[str, str] | None = None, uri: str | None = None
) -> tuple[SourceDocument, list[Chunk]]:
    """Parse one file by its suffix: Markdown/text, HTML (→ Markdown) or PDF
    (→ one section per page; each chunk gets ``metadata["page"]``, 1-based).

    Raises ``_ReadError`` (unreadable, not UTF-8, not a PDF) or ``IngestError``.
    """
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        if path.is_dir():
            raise _ReadError("is a directory, not a file")
        text, title, _pages = pdf_to_markdown(path)
        if title:
            text = f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n" + text
        doc, chunks = parse_markdown(text, source_id, glossary=glossary, uri=uri)
        out = []
        for c in chunks:
            page = next(
                (int(h.split()[1]) for h in c.heading_path[1:2] if h.startswith("第 ") and h.endswith(" 页")), None
            )
            out.append(c.model_copy(update={"metadata": {**c.metadata, "page": page}}) if page else c)
        return doc, out
    text = _read(path)
    if suffix in (".html", ".htm"):
        md, title = html_to_markdown(text)
        if title:
            md = f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n" + md
        text = md
    return parse_markdown(text, source_id, glossary=glossary, uri=uri)


def load_sources(
    paths: Sequence[Path],
    *,
    base_url: str | None = K8S_ZH_BASE,
    progress: Callable[[int, int, str], None] | None = None,
) -> tuple[list[ParsedSource], list[IngestFailure]]:
    """Read and parse every source under ``paths``.

    Glossary titles for ``{{< glossary_tooltip >}}`` come from each folder's
    ``reference/glossary`` (see :func:`load_glossary`). Each document's ``uri``
    is :func:`public_url` of its source id (``None`` when ``base_url`` is None);
    ``updated_at`` comes from front matter ``lastmod``/``date`` (file mtimes are
    not stable across clones), else ``None``.

    ``progress(done, total, source_id)`` is called after each file (``done`` is
    1-based). Returns ``(parsed, failures)``: parsed sources in listing order,
    and one :class:`IngestFailure` per file that could not be read (missing,
    permission denied, a directory, invalid UTF-8), had a duplicate source id,
    or could not be parsed. Never raises for a bad file.
    """
    glossary: dict[str, str] = {}
    for root in paths:
        if Path(root).is_dir():
            for k, v in load_glossary(Path(root)).items():
                glossary.setdefault(k, v)
    files = iter_source_files(paths)
    parsed: list[ParsedSource] = []
    failures: list[IngestFailure] = []
    seen: set[str] = set()
    total = len(files)
    for n, (path, source_id) in enumerate(files, start=1):
        try:
            if source_id in seen:
                raise _ReadError("duplicate source id (already read from another folder)")
            seen.add(source_id)
            doc, chunks = parse_file(path, source_id, glossary=glossary, uri=public_url(source_id, base_url))
            parsed.append(ParsedSource(document=doc, chunks=chunks, path=path))
        except _ReadError as exc:
            failures.append(IngestFailure(source_id, str(path), f"{source_id}: {exc}"))
        except IngestError as exc:  # its message already names the source id
            failures.append(IngestFailure(source_id, str(path), str(exc)))
        if progress is not None:
            progress(n, total, source_id)
    return parsed, failures
