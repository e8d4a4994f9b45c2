"""Knowledge-base management used by the library page and the command line:
uploads, folder ingests and hiding documents.

Uploaded file names are untrusted: only the base name is kept, hidden names
and unsupported types are refused (reported as failures, never raised), and
files are written under ``<data_dir>/uploads/``.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath
from typing import Callable, Sequence

from core.ingest.corpus import SOURCE_SUFFIXES, IngestFailure
from core.ingest.run import IngestReport, ingest
from core.ingest.sourcetext import escape_surrogates
from core.models import DEFAULT_KB
from core.store.index import KnowledgeIndex

MAX_UPLOAD_BYTES = 50 * 1024 * 1024


def safe_name(name: str) -> str | None:
    """The base name of an uploaded file if it is acceptable, else None.

    Path parts (``/``, ``\\``) are dropped; control characters are refused;
    the name must not start with a dot and must end in a supported suffix.
    """
    base = PurePath(name.replace("\\", "/")).name.strip()
    if not base or base.startswith(".") or re.search(r"[\x00-\x1f\x7f]", base):
        return None
    if not base.lower().endswith(SOURCE_SUFFIXES):
        return None
    return base


def ingest_uploads(
    index: KnowledgeIndex,
    files: Sequence[tuple[str, bytes]],
    uploads_dir: Path,
    *,
    progress: Callable[[int, int, str], None] | None = None,
    knowledge_base: str = DEFAULT_KB,
) -> IngestReport:
    """Save ``(file name, content)`` pairs under ``uploads_dir`` (``uploads_dir/<kb>`` for a
    knowledge base other than ``default``, so two never overwrite each other's file) and
    ingest them into ``knowledge_base`` (``KnowledgeBaseError`` when it does not exist).

    Returns a report whose results and failures cover exactly the uploaded
    files (source id = base name). Vectors are embedded later (``embed=False``).
    A refused or broken file is a failure with its reason; the rest go on and
    what was indexed before stays served.
    """
    index.knowledge_bases.require(knowledge_base)
    if knowledge_base != DEFAULT_KB:
        uploads_dir = uploads_dir / knowledge_base
    uploads_dir.mkdir(parents=True, exist_ok=True)
    failures: list[IngestFailure] = []
    names: list[str] = []
    for raw_name, data in files:
        name = safe_name(raw_name)
        if name is None:
            shown = escape_surrogates(raw_name)
            failures.append(
                IngestFailure(shown, shown, f"{shown}：文件名或类型不受支持（支持：{'、'.join(SOURCE_SUFFIXES)}）")
            )
            continue
        if len(data) > MAX_UPLOAD_BYTES:
            failures.append(IngestFailure(name, name, f"{name}：文件超过 {MAX_UPLOAD_BYTES // 2**20} MiB，未导入"))
            continue
        (uploads_dir / name).write_bytes(data)
        names.append(name)
    if not names:
        return IngestReport(failures=failures)
    report = ingest(
        index, [uploads_dir / n for n in names], progress=progress, embed=False, knowledge_base=knowledge_base
    )
    report.failures = failures + report.failures
    return report


def ingest_folder(
    index: KnowledgeIndex,
    folder: Path,
    *,
    base_url: str | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    knowledge_base: str = DEFAULT_KB,
) -> IngestReport:
    """Ingest every supported file under ``folder`` (a folder on the server) into ``knowledge_base``.

    A folder that does not exist or cannot be reached (a symlink loop, no
    permission) is one failure, not an exception.
    """
    if not folder.is_dir():
        shown = escape_surrogates(str(folder))
        return IngestReport(
            failures=[IngestFailure(shown, shown, f"{shown}：不是文件夹，或无法访问（不存在、没有权限或符号链接循环）")]
        )
    return ingest(index, [folder], base_url=base_url, progress=progress, embed=False, knowledge_base=knowledge_base)
