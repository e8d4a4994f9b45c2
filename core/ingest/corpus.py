"""Reading a folder of Markdown files into documents and chunks.

``load_sources`` walks folders (or single files), reads each file as UTF-8,
parses it with :func:`core.ingest.chunking.parse_markdown` and collects every file that
cannot be read or parsed as an :class:`IngestFailure` instead of stopping, so one
bad file never blocks the rest. Reasons and warnings are Chinese text for the
知识库 page.

``source_id`` is the POSIX path of a file relative to the folder it was found
under (``"concepts/workloads/pods/_index.md"`` for a root of ``…/docs``), or the
file name for a single file given directly.

Nothing is dropped in silence:

- Folders are walked following symbolic links; each directory is read once
  (by ``(st_dev, st_ino)``), so a symlink loop ends instead of recursing. A
  folder that cannot be listed is reported as a failure.
- A file name that is not valid UTF-8 (decoded by Python with
  ``surrogateescape``) is ingested under a safe source id in which each
  undecodable byte is written ``\\xNN`` (``bad\\xffname.md``), with a warning;
  a source id never holds a lone surrogate, so JSON output stays valid UTF-8.
- Empty and whitespace-only files fail ("文件为空"). Text in which more than
  ``core.ingest.sourcetext.GARBLED_SHARE`` of the non-space code points are unreadable (control
  characters such as NUL, U+FFFD, private-use or unassigned code points) is not
  stored as searchable text: a file fails, a PDF page is left out with a
  warning (a PDF with no readable page fails). Below that share, control
  characters are removed, with a warning giving their count.
- A file that parses to no chunk (front matter only, comments only) is stored
  with a warning: it is listed but cannot be found by a question.

Only what changed is parsed (``load_changed_sources``): each file's
:func:`parse_key` (SHA-256 of its bytes and of everything else the parse
depends on) is compared with the key its active version was stored from; a
match is skipped before parsing and reported unchanged.

Why over 400 lines: each rule above (walking with loop detection, names that are not
UTF-8, unreadable and garbled text, the parse key) is a few lines of its own, and all
of them guard the one path from a folder to parsed sources; the process pool lives in
``core.ingest.parse_jobs`` and the format converters in ``core.ingest.converters``.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from core.errors import IngestError
from core.ingest.chunking import parse_front_matter, parse_markdown
from core.ingest.converters import MARKDOWN, SOURCE_SUFFIXES, format_of
from core.ingest.converters import ReadError as _ReadError
from core.ingest.parse_jobs import glossary_digest, parse_key, parser_pool
from core.ingest.sourcetext import UnreadableText, check_text, escape_surrogates
from core.models import Chunk, SourceDocument

__all__ = [
    "SOURCE_SUFFIXES",
    "IngestFailure",
    "ParsedSource",
    "iter_source_files",
    "load_glossary",
    "load_changed_sources",
    "load_sources",
    "parse_key",
    "public_url",
]

#: Public base URL of the Kubernetes zh-cn docs (``docs/`` folder of the corpus).

#: File name endings read as Markdown (lower-cased comparison).

_INDEX_STEMS = ("_index", "index")


@dataclass(frozen=True)
class IngestFailure:
    """A file that could not be read or parsed; ``reason`` is readable (Chinese) text.

    ``source_id`` and ``path`` never hold lone surrogates (see :func:`escape_surrogates`).
    """

    source_id: str
    path: str
    reason: str


@dataclass(frozen=True)
class ParsedSource:
    """One parsed file: its document, its chunks (document order), its path and
    its warnings (Chinese text: what was removed or why it cannot be found)."""

    document: SourceDocument
    chunks: list[Chunk]
    path: Path
    warnings: tuple[str, ...] = ()
    parse_key: str | None = None
    prepared: object = None


def public_url(source_id: str, base_url: str | None = None) -> str | None:
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


def load_glossary(root: Path, glossary_dir: str = "reference/glossary") -> dict[str, str]:
    """``term_id → title`` from ``root/<glossary_dir>/*.md`` front matter (``glossary_dir``: the
    folder a corpus profile names, relative to ``root``).

    The term id is the front matter ``id`` (and also the file stem). Files that
    cannot be read, and a missing glossary folder, are skipped silently (the
    result may be empty). Never raises for file problems.
    """
    folder = Path(root) / glossary_dir
    if not folder.is_dir():
        return {}
    files = sorted(folder.glob("*.md"))
    try:  # the same files (names, sizes, mtimes) give the same titles: parsed once per process
        signature = (str(folder), tuple((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files))
    except OSError:
        signature = None
    if signature is not None and signature in _GLOSSARIES:
        return dict(_GLOSSARIES[signature])
    out = _read_glossary(files)
    if signature is not None:
        _GLOSSARIES.clear()  # one folder's titles kept: enough for repeated ingests of a corpus
        _GLOSSARIES[signature] = dict(out)
    return out


_GLOSSARIES: dict[tuple, dict[str, str]] = {}


def _read_glossary(files: list[Path]) -> dict[str, str]:
    out: dict[str, str] = {}
    for f in files:
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
    source id is the POSIX path relative to that folder, with undecodable
    file-name bytes escaped (:func:`escape_surrogates`). Symbolic links to
    folders are followed, each directory once (a loop ends). Entries are
    listed even when they are not regular files (a directory named ``x.md``),
    so that :func:`load_sources` can report them. A path that is not a folder
    is listed as itself with its file name as source id (a missing one too).
    Folders that cannot be listed are left out here; :func:`load_sources`
    reports them.
    """
    return _list_sources(paths)[0]


def _os_reason(exc: OSError) -> str:
    known = {
        errno.ELOOP: "符号链接循环",
        errno.ENOENT: "不存在（或是失效的符号链接）",
        errno.EACCES: "没有读取权限",
        errno.EPERM: "没有读取权限",
        errno.ENAMETOOLONG: "路径太长",
    }
    return known.get(exc.errno or -1) or (exc.strerror or str(exc))


def _escaped_name(path: Path, source_id: str) -> bool:
    """Whether ``source_id`` escapes undecodable bytes of ``path``'s own name parts."""
    parts = PurePosixPath(source_id).parts
    tail = Path(*path.parts[-len(parts) :]) if parts and len(path.parts) >= len(parts) else path
    return escape_surrogates(str(tail)) != str(tail)


def _list_sources(paths: Sequence[Path]) -> tuple[list[tuple[Path, str]], list[IngestFailure]]:
    out: list[tuple[Path, str]] = []
    problems: list[IngestFailure] = []
    for root in paths:
        root = Path(root)
        if not root.is_dir():
            out.append((root, escape_surrogates(root.name)))
            continue
        found: list[tuple[Path, str]] = []
        visited: set[tuple[int, int]] = set()

        def unlisted(exc: OSError, root: Path = root) -> None:
            where = Path(exc.filename) if exc.filename else root
            rel = where.relative_to(root).as_posix() if where.is_relative_to(root) else str(where)
            sid = escape_surrogates(rel)
            problems.append(
                IngestFailure(
                    sid, escape_surrogates(str(where)), f"{sid}：无法读取文件夹（{_os_reason(exc)}），其中的文件未导入"
                )
            )

        for dirpath, dirnames, filenames in os.walk(root, onerror=unlisted, followlinks=True):
            try:
                st = os.stat(dirpath)
            except OSError as exc:
                unlisted(exc)
                dirnames[:] = []
                continue
            if (st.st_dev, st.st_ino) in visited:  # reached again through a symlink: read once
                dirnames[:] = []
                continue
            visited.add((st.st_dev, st.st_ino))
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in list(filenames) + list(dirnames):
                if not name.lower().endswith(SOURCE_SUFFIXES) or name.startswith("."):
                    continue
                full = Path(dirpath) / name
                rel = PurePosixPath(full.relative_to(root).as_posix())
                if not _is_hidden(rel):
                    found.append((full, escape_surrogates(rel.as_posix())))
        out.extend(sorted(found, key=lambda t: t[1]))
    return out, problems


def _read_bytes(path: Path) -> bytes:
    try:
        if path.is_dir():
            raise _ReadError("是文件夹（directory），不是文件")
        return path.read_bytes()
    except OSError as exc:
        raise _ReadError(f"无法读取（{_os_reason(exc)}）") from exc


def _read(path: Path) -> str:
    data = _read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        utf16 = data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) or data.count(0) > len(data) // 5
        raise _ReadError(
            f"不是有效的 UTF-8 文本（偏移 {exc.start} 处的字节 0x{data[exc.start]:02x}），未导入"
            + ("；看起来是 UTF-16 编码，请另存为 UTF-8" if utf16 else "")
        ) from exc


def parse_file(
    path: Path, source_id: str, *, glossary: dict[str, str] | None = None, uri: str | None = None
) -> tuple[SourceDocument, list[Chunk], list[str]]:
    """Parse one file by its suffix: Markdown/text, HTML (→ Markdown) or PDF
    (→ Markdown with headings; each chunk gets its ``positions``, ``metadata["page"]`` and
    ``["page_end"]`` (1-based) and ``["file_sha256"]``: ``core.ingest.pdf_positions.pdf_chunks``).

    Returns ``(document, chunks, warnings)`` (warnings: Chinese text).
    Raises ``_ReadError`` (unreadable, not UTF-8, not a PDF, empty, mostly
    unreadable text; see :func:`core.ingest.sourcetext.check_text`) or ``IngestError``.
    """
    doc, chunks, warnings = _parse_by_suffix(path, source_id, glossary, uri)
    if not chunks:
        warnings.append("没有可检索的正文（例如只有 front matter 或注释）：文档已登记，但提问时检索不到")
    return doc, chunks, warnings


def _parse_by_suffix(
    path: Path, source_id: str, glossary: dict[str, str] | None, uri: str | None
) -> tuple[SourceDocument, list[Chunk], list[str]]:
    # The walk lists only registered suffixes; a file named on the command line with another
    # suffix (or none) is read as Markdown text, as it always was.
    fmt = format_of(path) or MARKDOWN
    if fmt.read is not None:  # a binary format (PDF): its reader makes the Markdown
        if path.is_dir():
            raise _ReadError("是文件夹（directory），不是文件")
        converted = fmt.read(path)
        head = f"---\ntitle: {json.dumps(converted.title, ensure_ascii=False)}\n---\n"
        doc, chunks = parse_markdown(head + converted.markdown, source_id, glossary=glossary, uri=uri)
        placed = fmt.place(chunks, converted) if fmt.place is not None else chunks
        return doc, placed, list(converted.warnings)
    try:
        text, warnings = check_text(_read(path))
    except UnreadableText as exc:
        raise _ReadError(str(exc)) from exc
    if fmt.to_markdown is not None:
        md, title = fmt.to_markdown(text)
        if title:
            md = f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n" + md
        text = md
    doc, chunks = parse_markdown(text, source_id, glossary=glossary, uri=uri)
    longest = max(map(len, text.splitlines()), default=0)
    if longest >= LONG_LINE_CHARS:  # e.g. a minified page or a data dump: thousands of chunks from one line
        warnings.append(
            f"其中一行有 {longest} 个字符，全文切成了 {len(chunks)} 个片段：它可能是压缩成一行的网页或数据，"
            "请确认这是要检索的文档（向量会在后台补齐，其余文档照常检索）"
        )
    return doc, chunks, warnings


#: A line this long (code points) makes an ingest warning: about 200 chunks of ``MAX_CHUNK_CHARS``
#: from one line, which no written document has (issue 30: a 3 MB one-line file became 3,077 chunks).
LONG_LINE_CHARS = 100_000


def _parse_job(job: tuple) -> tuple:
    """One file's parse, as plain picklable values: ``("ok", doc, chunks, warnings,
    prepared)``, ``("read", reason)`` or ``("ingest", message)``."""
    path, source_id, glossary, uri, prepare = job
    try:
        doc, chunks, warnings = parse_file(path, source_id, glossary=glossary, uri=uri)
    except _ReadError as exc:
        return ("read", str(exc))
    except IngestError as exc:
        return ("ingest", str(exc))
    return ("ok", doc, chunks, warnings, prepare(chunks) if prepare is not None else None)


def load_sources(
    paths: Sequence[Path],
    *,
    base_url: str | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    glossary_dir: str | None = None,
) -> tuple[list[ParsedSource], list[IngestFailure]]:
    """Read and parse every source under ``paths``: ``load_changed_sources`` with
    nothing known, without the (empty) list of unchanged sources."""
    parsed, failures, _ = load_changed_sources(paths, base_url=base_url, progress=progress, glossary_dir=glossary_dir)
    return parsed, failures


def load_changed_sources(
    paths: Sequence[Path],
    *,
    known: Mapping[str, str] | None = None,
    base_url: str | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    prepare: Callable[[list[Chunk]], object] | None = None,
    workers: int | None = None,
    glossary_dir: str | None = None,
) -> tuple[list[ParsedSource], list[IngestFailure], list[str]]:
    """Read and parse every source under ``paths``.

    Glossary titles for ``{{< glossary_tooltip >}}`` come from each folder's ``glossary_dir``
    (a folder relative to it that the corpus profile names, e.g. ``reference/glossary``; None:
    no glossary, the shortcode's own ``text`` is shown; see :func:`load_glossary`). Each document's ``uri``
    is :func:`public_url` of its source id (``None`` when ``base_url`` is None);
    ``updated_at`` comes from front matter ``lastmod``/``date`` (file mtimes are
    not stable across clones), else ``None``.

    ``progress(done, total, source_id)`` is called after each file (``done`` is
    1-based). Returns ``(parsed, failures)``: parsed sources in listing order
    (each with its warnings: removed control characters, dropped garbled PDF
    pages, an escaped file name, no searchable body), and one
    :class:`IngestFailure` per folder that could not be listed and per file
    that could not be read (missing, permission denied, a symlink loop, a
    directory, invalid UTF-8), was empty, whitespace-only or mostly unreadable,
    had a duplicate source id, or could not be parsed. Never raises for a bad file.

    ``known`` maps a source id to the :func:`parse_key` its active version was
    stored from (``Catalog.parse_keys``): a file whose key is the same is read
    and hashed but not parsed, and its source id is listed in the third element
    (unchanged sources, listing order). Every parsed source carries its key.

    ``prepare(chunks)`` (a module-level function, so it can run in a worker
    process) is applied to each parsed file's chunks where it was parsed; its
    result is ``ParsedSource.prepared`` (ingest uses it to tokenize for BM25).
    With ``core.ingest.parse_jobs.POOL_MIN_FILES`` or more files to parse, they are parsed
    in a pool of ``workers`` forked processes (``core.ingest.parse_jobs.parser_pool``: not
    from a threaded process such as the app, which parses in-process).
    """
    known = known or {}
    glossary: dict[str, str] = {}
    for root in paths if glossary_dir else ():
        if Path(root).is_dir():
            for k, v in load_glossary(Path(root), glossary_dir).items():
                glossary.setdefault(k, v)
    files, failures = _list_sources(paths)
    escaped = {sid for path, sid in files if _escaped_name(path, sid)}
    digest = glossary_digest(glossary)
    # 1. read and hash every file (fast); decide what to parse
    outcome: list[str | _ReadError | tuple[str, str | None]] = []  # "unchanged", a failure, or (key, uri)
    seen: set[str] = set()
    for path, source_id in files:
        try:
            if source_id in seen:
                raise _ReadError("来源 ID 重复（已从另一个文件夹读取过同名文件），未导入")
            seen.add(source_id)
            uri = public_url(source_id, base_url)
            key = parse_key(_read_bytes(path), source_id, uri, digest)
            outcome.append("unchanged" if known.get(source_id) == key else (key, uri))
        except _ReadError as exc:
            outcome.append(exc)
    jobs = [(path, sid, glossary, o[1], prepare) for (path, sid), o in zip(files, outcome) if isinstance(o, tuple)]
    total = len(files)
    # 2. parse what changed, in listing order (in a process pool when there is much to parse)
    parsed: list[ParsedSource] = []
    unchanged: list[str] = []
    with parser_pool(len(jobs), workers) as pool:
        results = pool.map(_parse_job, jobs, chunksize=8) if pool is not None else map(_parse_job, jobs)
        for n, ((path, source_id), o) in enumerate(zip(files, outcome), start=1):
            shown_path = escape_surrogates(str(path))
            if o == "unchanged":
                unchanged.append(source_id)
            elif isinstance(o, _ReadError):
                failures.append(IngestFailure(source_id, shown_path, f"{source_id}：{o}"))
            else:
                kind, *got = next(results)
                if kind == "read":
                    failures.append(IngestFailure(source_id, shown_path, f"{source_id}：{got[0]}"))
                elif kind == "ingest":  # its message already names the source id
                    failures.append(IngestFailure(source_id, shown_path, escape_surrogates(got[0])))
                else:
                    doc, chunks, warnings, prepared = got
                    if source_id in escaped:
                        warnings.insert(0, f"文件名含有非 UTF-8 字节，按来源 ID {source_id} 导入")
                    parsed.append(ParsedSource(doc, chunks, path, tuple(warnings), o[0], prepared))
            if progress is not None:
                progress(n, total, source_id)
    return parsed, failures, unchanged
