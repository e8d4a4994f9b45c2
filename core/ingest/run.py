"""Ingest: read sources, chunk them, store new versions, switch over, then embed.

Stage 1 (fast, seconds for hundreds of files): parse + chunk every file whose
bytes changed (``core.ingest.corpus.load_changed_sources``; an unchanged file is hashed,
not parsed), store new document versions and switch them active in one
catalog transaction, rebuild BM25. Questions can be answered from here on.
Stage 2 (slow on a CPU): ``KnowledgeIndex.embed_pending`` fills in vectors.

A file that cannot be read or parsed (or is empty, or mostly unreadable
text) is reported with its reason and skipped; the rest goes on, and what was
there before stays served. A file stored with a caveat (control characters
removed, garbled PDF pages left out, no searchable body, an escaped file name)
keeps its result and gets a warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from core.ingest.corpus import IngestFailure, ParsedSource, load_changed_sources
from core.ingest.corpus_profile import NEUTRAL, CorpusProfile, find_profile, profile_of
from core.ingest.pdf_pages import store_file
from core.ingest.sourcetext import escape_surrogates
from core.models import DEFAULT_KB
from core.store.catalog import chunk_terms
from core.store.index import KnowledgeIndex
from core.store.knowledge_bases import DEFAULT_TITLE

Progress = Callable[[int, int, str], None]


@dataclass
class IngestReport:
    """Per-file results and counts.

    ``results`` maps source_id → added/updated/unchanged/removed; ``warnings``
    maps a stored source_id → its warnings (Chinese text); ``failures`` lists
    what was not stored, with the reason. ``counts()["warned"]`` is the number
    of stored files with a warning.
    """

    results: dict[str, str] = field(default_factory=dict)
    failures: list[IngestFailure] = field(default_factory=list)
    warnings: dict[str, list[str]] = field(default_factory=dict)
    chunks: int = 0
    embedded: int = 0

    def counts(self) -> dict[str, int]:
        out = {"added": 0, "updated": 0, "unchanged": 0, "removed": 0, "failed": len(self.failures)}
        for status in self.results.values():
            out[status] = out.get(status, 0) + 1
        out["warned"] = sum(1 for sid, w in self.warnings.items() if w and sid in self.results)
        return out

    def as_dict(self) -> dict[str, object]:
        """The report as JSON-ready data; every string encodes as UTF-8 (lone
        surrogates escaped), so ``json.dumps(..., ensure_ascii=False)`` is valid UTF-8."""
        files: list[dict[str, object]] = []
        for sid, result in sorted(self.results.items()):
            entry: dict[str, object] = {"source_id": escape_surrogates(sid), "result": result}
            if self.warnings.get(sid):
                entry["warnings"] = [escape_surrogates(w) for w in self.warnings[sid]]
            files.append(entry)
        files += [
            {"source_id": escape_surrogates(f.source_id), "result": "failed", "reason": escape_surrogates(f.reason)}
            for f in self.failures
        ]
        return {"counts": self.counts(), "chunks": self.chunks, "embedded": self.embedded, "files": files}


def _keep_original(data_dir: Path, source: ParsedSource) -> str | None:
    """Store a PDF's bytes by content hash (``core.ingest.pdf_pages.store_file``) so its pages can be
    shown for the version an answer cited. A file that cannot be copied loses only its page
    images: the warning (Chinese) says so; None when stored or not a PDF."""
    sha = next((c.metadata.get("file_sha256") for c in source.chunks if c.metadata.get("file_sha256")), None)
    if isinstance(sha, str):
        try:
            store_file(data_dir, sha, source.path)
        except (OSError, ValueError) as exc:
            return f"原文件未能保存（{exc}）：引用时只显示提取的文字，不显示页面"
    return None


def adopt_profile(index: KnowledgeIndex, kb: str, paths: Sequence[Path]) -> CorpusProfile:
    """The corpus profile of the folders in ``paths`` (``core.ingest.corpus_profile.find_profile``; the
    first folder that brings one), stored as ``kb``'s ``settings["profile"]``, which also takes the
    profile's title while ``kb`` still has the placeholder title. No folder with a profile: the
    profile ``kb`` already has (an upload of single files keeps its base's links), else ``NEUTRAL``.
    Raises ``ConfigError`` for an invalid profile file (before anything is parsed)."""
    found = next((p for p in map(find_profile, paths) if p != NEUTRAL), None)
    current = index.knowledge_bases.require(kb)
    if found is None:
        return profile_of(current.settings)
    if profile_of(current.settings) != found:
        index.knowledge_bases.update_settings(kb, {**current.settings, "profile": found.model_dump(mode="json")})
    if found.title and current.title == DEFAULT_TITLE:
        index.knowledge_bases.rename(kb, found.title)
    return found


def ingest(
    index: KnowledgeIndex,
    paths: Sequence[Path],
    *,
    progress: Progress | None = None,
    embed: bool = True,
    embed_progress: Callable[[int, int], None] | None = None,
    remove_missing: bool = False,
    base_url: str | None = None,
    knowledge_base: str = DEFAULT_KB,
) -> IngestReport:
    """Ingest ``paths`` (files or folders) into the knowledge base ``knowledge_base`` of
    ``index`` (ids ``kb/source_id@version#n``; ``remove_missing`` removes sources of that
    knowledge base only). Raises ``KnowledgeBaseError`` when it does not exist.

    With ``embed=False`` only stage 1 runs (the caller embeds later, e.g. in
    the background). A file whose parse key (``core.ingest.corpus.parse_key``) is the one its
    active version was stored from is not parsed: it is "unchanged" and reports the
    warnings of its last parse. ``base_url`` maps source ids to public URLs (see
    ``core.ingest.corpus.public_url``; None: no public URL). Never raises for a single
    bad file; see ``report.failures``.
    """
    kb = index.knowledge_bases.require(knowledge_base).name  # before parsing: an unknown one fails fast
    profile = adopt_profile(index, kb, paths)
    known = index.parse_keys(kb)
    parsed, failures, unchanged = load_changed_sources(
        list(paths),
        known={sid: key for sid, (key, _) in known.items()},
        progress=progress,
        base_url=base_url if base_url is not None else profile.base_url,
        prepare=chunk_terms,  # BM25 terms computed where each file is parsed (a worker process for large corpora)
        glossary_dir=profile.glossary,
    )
    terms: dict[str, list[str]] = {}
    not_kept: dict[str, str] = {}
    for p in parsed:
        if (note := _keep_original(index.settings.data_dir, p)) is not None:
            not_kept[p.document.source_id] = note
        terms.update(p.prepared)  # type: ignore[arg-type] - chunk_terms' result
    index.catalog.store_terms(terms)  # the reload in apply finds them cached
    served = {row.document.source_id for row in index.documents(kb)}
    if parsed or (remove_missing and served - set(unchanged)):
        results = index.apply(
            [(p.document, p.chunks) for p in parsed],
            remove_missing=remove_missing,
            knowledge_base=kb,
            parse_keys={p.document.source_id: (p.parse_key, p.warnings) for p in parsed if p.parse_key},
            kept=unchanged,
        )
    else:  # nothing changed: no transaction, no new generation, no reload anywhere
        results = {sid: "unchanged" for sid in unchanged}
    warnings = {sid: list(known[sid][1]) for sid in unchanged if known[sid][1]}  # as when it was parsed
    warnings.update({p.document.source_id: list(p.warnings) for p in parsed if p.warnings})
    for sid, note in not_kept.items():
        warnings.setdefault(sid, []).append(note)
    report = IngestReport(
        results=results,
        failures=list(failures),
        warnings=warnings,
        chunks=sum(len(p.chunks) for p in parsed),
    )
    if embed:
        report.embedded = index.embed_pending(progress=embed_progress)
    return report
