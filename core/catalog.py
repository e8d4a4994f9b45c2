"""The catalog: one SQLite file (``<data_dir>/catalog.sqlite3``, WAL) holding
the knowledge bases, every document version and chunk ever ingested into each,
which version of each source is active, a generation counter, and two caches.

* ``knowledge_bases``: name, title, hidden, settings (``core.knowledge_bases``).
* ``documents`` / ``chunks``: keyed by knowledge base (``kb``); old versions are
  kept, never overwritten, so old answers replay; ``active = 1`` marks the served
  version of a source. Ids are ``kb/source_id@version[#ordinal]``.
* Schema upgrade: ``PRAGMA user_version`` 0 → 1 moves a data folder made before
  knowledge bases into ``default`` when the catalog is opened (``_MIGRATE_0_TO_1``).
  One step in plain SQL in the same transaction as the check: the catalog is plain
  ``sqlite3`` (``core.sqlite``), so a migration framework (Alembic) would first
  need an ORM engine for this single step.
* ``meta``: ``index_id`` (a random id naming this catalog, e.g. its collection
  on a Chroma server) and ``generation`` (bumped by every ingest or hide in any
  process, so others notice and reload).
* ``embeddings``: vectors keyed by model name + SHA-256 of the embedded text
  (``embedding_text``), float32 bytes, so unchanged chunks are never embedded
  twice and a process that does not own the vector store can still score.
* ``lexical_terms``: BM25 terms keyed by tokenizer id (``core.lexical.TOKENIZER_ID``,
  read at call time) + SHA-256 of ``lexical_text``, so jieba never runs twice
  over a text it has seen.
* ``source_files``: the parse key (``core.corpus.parse_key``: file bytes + parse
  inputs) each source was last stored from, its version and the warnings of that
  parse, so a re-ingest skips a file whose bytes are unchanged before parsing it and
  still reports its warnings (``parse_keys``).

Every method raises ``IndexError_`` when SQLite fails (``core.sqlite``).

Why over 400 lines: every table above is read and written in the same transactions
(a version switch touches documents, chunks, source_files and meta at once), so the
SQL that keeps them consistent stays in one class; the knowledge-base table already
lives in ``core.knowledge_bases`` and the tokenizing in ``core.lexical``.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Iterable, Mapping, Sequence

import numpy as np

from core import knowledge_bases, lexical
from core.errors import IndexError_
from core.models import DEFAULT_KB, Chunk, SourceDocument, sha256_hex, source_key, utc_now
from core.sqlite import Database, read_value

#: Keys per ``IN (...)`` query (SQLite allows 999 parameters in old builds).
_IN_BATCH = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL, text_sha256 TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (model, text_sha256));
CREATE TABLE IF NOT EXISTS lexical_terms (
    tokenizer TEXT NOT NULL, text_sha256 TEXT NOT NULL, terms TEXT NOT NULL,
    PRIMARY KEY (tokenizer, text_sha256));
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
""" + knowledge_bases.SCHEMA

#: Documents and chunks, keyed by knowledge base (``PRAGMA user_version`` 1).
_DOCUMENT_TABLES = """
CREATE TABLE IF NOT EXISTS documents (
    kb TEXT NOT NULL, source_id TEXT NOT NULL, version TEXT NOT NULL, document_json TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 0, chunk_count INTEGER NOT NULL,
    ingested_at TEXT NOT NULL, PRIMARY KEY (kb, source_id, version));
CREATE INDEX IF NOT EXISTS documents_active ON documents(active);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY, kb TEXT NOT NULL, source_id TEXT NOT NULL, version TEXT NOT NULL,
    ordinal INTEGER NOT NULL, chunk_json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(kb, source_id, version);
CREATE TABLE IF NOT EXISTS source_files (
    kb TEXT NOT NULL, source_id TEXT NOT NULL, parse_key TEXT NOT NULL, version TEXT NOT NULL,
    warnings TEXT NOT NULL, PRIMARY KEY (kb, source_id));
"""

#: Version 0 → 1 (a data folder made before knowledge bases): every document and chunk
#: moves into ``DEFAULT_KB``; ids gain the ``default/`` prefix, in the columns and in
#: the stored JSON (SQLite's ``json_set``). Old answer records keep their own
#: snapshots (old ids), so they replay unchanged.
_MIGRATE_0_TO_1 = (
    "ALTER TABLE documents RENAME TO documents_v0",
    "ALTER TABLE chunks RENAME TO chunks_v0",
    "DROP INDEX IF EXISTS documents_active",
    "DROP INDEX IF EXISTS chunks_doc",
    *[stmt for stmt in _DOCUMENT_TABLES.split(";") if stmt.strip()],
    "INSERT INTO documents SELECT :kb, source_id, version, json_set(document_json, '$.knowledge_base', :kb, "
    "'$.document_id', :kb || '/' || source_id || '@' || version), active, chunk_count, ingested_at FROM documents_v0",
    "INSERT INTO chunks SELECT :kb || '/' || chunk_id, :kb, source_id, version, ordinal, json_set(chunk_json, "
    "'$.knowledge_base', :kb, '$.chunk_id', :kb || '/' || chunk_id, '$.document_id', "
    ":kb || '/' || json_extract(chunk_json, '$.document_id')) FROM chunks_v0",
    "DROP TABLE documents_v0",
    "DROP TABLE chunks_v0",
)


def lexical_text(chunk: Chunk) -> str:
    """The text BM25 indexes for a chunk: its heading path (joined with spaces) and its text."""
    return " ".join(chunk.heading_path) + "\n" + chunk.text


def chunk_terms(chunks: Sequence[Chunk]) -> dict[str, list[str]]:
    """BM25 terms of ``chunks`` keyed as the term cache keys them (SHA-256 of
    ``lexical_text``); run where a file is parsed (``core.corpus``'s ``prepare``), then
    ``Catalog.store_terms``. Uses ``core.lexical.tokenize``."""
    out: dict[str, list[str]] = {}
    for chunk in chunks:
        text = lexical_text(chunk)
        out.setdefault(sha256_hex(text), lexical.tokenize(text))
    return out


def embedding_text(chunk: Chunk) -> str:
    """The text embedded for a chunk: its heading path (joined with › ) and its text."""
    return " › ".join(chunk.heading_path) + "\n" + chunk.text


@dataclass(frozen=True)
class DocumentRow:
    """An active document: its record, chunk count and ingest time (ISO 8601, UTC)."""

    document: SourceDocument
    chunk_count: int
    active: bool
    ingested_at: str


def read_index_id(path: Path) -> str | None:
    """The ``index_id`` of the catalog file at ``path``, or None when it has none (or cannot be read)."""
    value = read_value(path, "SELECT value FROM meta WHERE key = 'index_id'")
    return str(value) if value is not None else None


class Catalog:
    """The catalog file at ``path`` (created when missing). Thread-safe: one kept
    connection per thread (closing the only connection of a WAL database would
    checkpoint it on every call)."""

    def __init__(self, path: Path) -> None:
        self._db = Database(
            path, error=IndexError_, label="the catalog", schema=_SCHEMA, synchronous="NORMAL", keep_open=True
        )
        with self._db.transaction() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('index_id', ?)", (uuid.uuid4().hex[:16],))
            self.index_id: str = db.execute("SELECT value FROM meta WHERE key = 'index_id'").fetchone()[0]
        #: Whether opening this catalog moved a data folder made before knowledge bases into ``DEFAULT_KB``.
        self.migrated = self._upgrade()
        self.knowledge_bases = knowledge_bases.KnowledgeBaseStore(self._db)

    def _upgrade(self) -> bool:
        """Bring the document tables to ``PRAGMA user_version`` 1 (see ``_MIGRATE_0_TO_1``), in
        one immediate transaction (another process opening the same folder waits, then
        finds it done). Returns whether documents were migrated."""
        with self._db.transaction() as db:
            db.execute("BEGIN IMMEDIATE")
            if db.execute("PRAGMA user_version").fetchone()[0] >= 1:
                return False
            columns = {row[1] for row in db.execute("PRAGMA table_info(documents)")}
            migrate = bool(columns) and "kb" not in columns
            if migrate:
                for stmt in _MIGRATE_0_TO_1:
                    db.execute(stmt, {"kb": DEFAULT_KB} if ":kb" in stmt else {})
                self._bump_generation(db)
            else:
                for stmt in _DOCUMENT_TABLES.split(";"):
                    if stmt.strip():
                        db.execute(stmt)
            db.execute("PRAGMA user_version = 1")
        return migrate

    def close(self) -> None:
        """Close this thread's connection (reopened on the next use)."""
        self._db.close()

    # ------------------------------------------------------------ reading
    def generation(self) -> str:
        """The generation counter (``"0"`` before the first ingest); one small read."""
        with self._db.transaction() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return row[0] if row else "0"

    def active_chunks(self, known: Mapping[str, Chunk]) -> dict[str, Chunk]:
        """The chunks of the active versions (every knowledge base) by chunk id, in
        (knowledge base, source id, ordinal) order; chunks in ``known`` are reused instead of parsed again."""
        with self._db.transaction() as db:
            rows = db.execute(
                "SELECT c.chunk_id, c.chunk_json FROM chunks c JOIN documents d "
                "ON c.kb = d.kb AND c.source_id = d.source_id AND c.version = d.version "
                "WHERE d.active = 1 ORDER BY c.kb, c.source_id, c.ordinal"
            ).fetchall()
        out: dict[str, Chunk] = {}
        for cid, js in rows:
            ch = known.get(cid)
            out[cid] = ch if ch is not None else Chunk.model_validate_json(js)
        return out

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        """Any chunk ever ingested (any version), or None."""
        with self._db.transaction() as db:
            row = db.execute("SELECT chunk_json FROM chunks WHERE chunk_id = ?", (chunk_id,)).fetchone()
        return Chunk.model_validate_json(row[0]) if row else None

    def current_versions(self) -> dict[str, str | None]:
        """``kb/source_id`` (``core.models.source_key``) → active version, or None for a
        source whose documents are all hidden/removed."""
        out: dict[str, str | None] = {}
        with self._db.transaction() as db:
            for kb, sid, version, active in db.execute("SELECT kb, source_id, version, active FROM documents"):
                if active:
                    out[source_key(kb, sid)] = version
                else:
                    out.setdefault(source_key(kb, sid), None)
        return out

    def _document_rows(self, where: str, knowledge_base: str | None) -> list[DocumentRow]:
        """Document rows (``documents d``) matching ``where`` (a constant SQL condition) in
        ``knowledge_base`` (None: every one), by knowledge base, source id and ingest time;
        for a source with several rows, the last one (the latest version) is kept."""
        with self._db.transaction() as db:
            rows = db.execute(
                "SELECT kb, source_id, document_json, chunk_count, active, ingested_at FROM documents d "
                f"WHERE {where} AND (? IS NULL OR kb = ?) ORDER BY kb, source_id, ingested_at, rowid",
                (knowledge_base, knowledge_base),
            ).fetchall()
        latest = {(kb, sid): (js, n, a, at) for kb, sid, js, n, a, at in rows}
        return [DocumentRow(SourceDocument.model_validate_json(js), n, bool(a), at) for js, n, a, at in latest.values()]

    def documents(self, knowledge_base: str | None = None) -> list[DocumentRow]:
        """Active documents of ``knowledge_base`` (None: of every one), sorted by
        knowledge base and source id."""
        return self._document_rows("active = 1", knowledge_base)

    # ------------------------------------------------------------ writing
    def parse_keys(self, knowledge_base: str = DEFAULT_KB) -> dict[str, tuple[str, list[str]]]:
        """source_id → (parse key, warnings of that parse) of its active version in
        ``knowledge_base`` (sources stored with a key whose version is still the active one;
        a hidden or replaced source has none)."""
        with self._db.transaction() as db:
            rows = db.execute(
                "SELECT f.source_id, f.parse_key, f.warnings FROM source_files f JOIN documents d "
                "ON f.kb = d.kb AND f.source_id = d.source_id AND f.version = d.version "
                "WHERE d.active = 1 AND f.kb = ?",
                (knowledge_base,),
            ).fetchall()
        return {sid: (key, json.loads(w)) for sid, key, w in rows}

    def apply(
        self,
        parsed: Sequence[tuple[SourceDocument, Sequence[Chunk]]],
        *,
        remove_missing: bool,
        knowledge_base: str = DEFAULT_KB,
        parse_keys: Mapping[str, tuple[str, Sequence[str]]] | None = None,
        kept: Collection[str] = (),
    ) -> tuple[dict[str, str], list[str]]:
        """Store new document versions of ``knowledge_base`` and switch them active in one
        transaction (``remove_missing`` deactivates the other sources of that knowledge
        base only).

        ``parse_keys`` (source_id → (``core.corpus.parse_key``, warnings)) are stored
        with the versions; ``kept`` are source ids skipped as unchanged before parsing (reported
        "unchanged", never removed by ``remove_missing``).
        Returns ``({source_id: "added" | "updated" | "unchanged" | "removed"}, ids
        of the chunks of the versions switched off)``; bumps the generation.
        Raises ``ValueError`` when a document is not in ``knowledge_base``
        (``core.models.place_in_knowledge_base``) or it does not exist."""
        kb = self.knowledge_bases.require(knowledge_base).name
        for doc, _ in parsed:
            if doc.knowledge_base != kb:
                raise ValueError(f"document {doc.document_id!r} is not placed in knowledge base {kb!r}")
        results: dict[str, str] = {sid: "unchanged" for sid in kept}
        now = utc_now().isoformat()
        retired: list[tuple[str, str]] = []  # (source_id, version) switched off here
        with self._db.transaction() as db:
            current = {sid: v for sid, v in db.execute(
                "SELECT source_id, version FROM documents WHERE active = 1 AND kb = ?", (kb,)
            )}
            for doc, chunks in parsed:
                old = current.get(doc.source_id)
                if old == doc.version:
                    results[doc.source_id] = "unchanged"
                    continue
                results[doc.source_id] = "updated" if old else "added"
                if old:
                    retired.append((doc.source_id, old))
                db.execute(
                    "INSERT OR IGNORE INTO documents VALUES (?, ?, ?, ?, 0, ?, ?)",
                    (kb, doc.source_id, doc.version, doc.model_dump_json(), len(chunks), now),
                )
                db.executemany(
                    "INSERT OR IGNORE INTO chunks VALUES (?, ?, ?, ?, ?, ?)",
                    [(c.chunk_id, kb, c.source_id, c.version, c.ordinal, c.model_dump_json()) for c in chunks],
                )
                db.execute("UPDATE documents SET active = 0 WHERE kb = ? AND source_id = ?", (kb, doc.source_id))
                db.execute(
                    "UPDATE documents SET active = 1 WHERE kb = ? AND source_id = ? AND version = ?",
                    (kb, doc.source_id, doc.version),
                )
            db.executemany(
                "INSERT OR REPLACE INTO source_files VALUES (?, ?, ?, ?, ?)",
                [(kb, d.source_id, parse_keys[d.source_id][0], d.version,
                  json.dumps(list(parse_keys[d.source_id][1]), ensure_ascii=False))
                 for d, _ in parsed if parse_keys and d.source_id in parse_keys],
            )
            if remove_missing:
                seen = {d.source_id for d, _ in parsed} | set(kept)
                for sid in current:
                    if sid not in seen:
                        db.execute("UPDATE documents SET active = 0 WHERE kb = ? AND source_id = ?", (kb, sid))
                        results[sid] = "removed"
                        retired.append((sid, current[sid]))
            stale = self._chunk_ids_of(db, kb, retired)
            self._bump_generation(db)
        return results, stale

    def hide(self, source_id: str, knowledge_base: str = DEFAULT_KB) -> tuple[bool, list[str]]:
        """Stop serving a source of ``knowledge_base`` (its versions stay for replay).
        Returns (whether it was active, ids of the chunks switched off); bumps the generation."""
        kb = knowledge_base
        with self._db.transaction() as db:
            versions = [(source_id, v) for (v,) in db.execute(
                "SELECT version FROM documents WHERE kb = ? AND source_id = ? AND active = 1", (kb, source_id)
            )]
            n = db.execute(
                "UPDATE documents SET active = 0 WHERE kb = ? AND source_id = ? AND active = 1", (kb, source_id)
            ).rowcount
            stale = self._chunk_ids_of(db, kb, versions)
            self._bump_generation(db)
        return n > 0, stale

    def hidden_documents(self, knowledge_base: str | None = None) -> list[DocumentRow]:
        """Sources of ``knowledge_base`` (None: of every one) with no active version (hidden,
        or removed from a folder): the most recently ingested version of each, sorted by
        knowledge base and source id."""
        return self._document_rows(
            "NOT EXISTS (SELECT 1 FROM documents a WHERE a.kb = d.kb AND a.source_id = d.source_id AND a.active = 1)",
            knowledge_base,
        )

    def unhide(self, source_id: str, knowledge_base: str = DEFAULT_KB) -> bool:
        """Serve a hidden source of ``knowledge_base`` again: its most recently ingested
        version becomes active. Returns False (and changes nothing) when the source is
        unknown or already active; bumps the generation otherwise."""
        kb = knowledge_base
        with self._db.transaction() as db:
            if db.execute(
                "SELECT 1 FROM documents WHERE kb = ? AND source_id = ? AND active = 1", (kb, source_id)
            ).fetchone():
                return False
            row = db.execute(
                "SELECT version FROM documents WHERE kb = ? AND source_id = ? "
                "ORDER BY ingested_at DESC, rowid DESC LIMIT 1",
                (kb, source_id),
            ).fetchone()
            if row is None:
                return False
            db.execute(
                "UPDATE documents SET active = 1 WHERE kb = ? AND source_id = ? AND version = ?", (kb, source_id, row[0])
            )
            self._bump_generation(db)
        return True

    @staticmethod
    def _bump_generation(db) -> None:  # noqa: ANN001 - a sqlite3.Connection in a transaction
        db.execute(
            "INSERT INTO meta VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
        )

    @staticmethod
    def _chunk_ids_of(db, kb: str, versions: Sequence[tuple[str, str]]) -> list[str]:  # noqa: ANN001
        out: list[str] = []
        for sid, version in versions:
            out.extend(cid for (cid,) in db.execute(
                "SELECT chunk_id FROM chunks WHERE kb = ? AND source_id = ? AND version = ?", (kb, sid, version)
            ))
        return out

    # ------------------------------------------------------------- caches
    def _select_in(self, sql: str, first: str, keys: Sequence[str]) -> Iterable[tuple]:
        """Rows of ``sql`` (ending in ``IN (%s)``) for ``first`` and ``keys``, in batches."""
        with self._db.transaction() as db:
            for i in range(0, len(keys), _IN_BATCH):
                part = keys[i : i + _IN_BATCH]
                yield from db.execute(sql % ",".join("?" * len(part)), (first, *part)).fetchall()

    def terms_for(self, wanted: Mapping[str, Chunk]) -> dict[str, list[str]]:
        """BM25 terms per chunk id (``core.lexical.tokenize`` of ``lexical_text``): from
        the term cache, else tokenized now and stored."""
        tokenizer = lexical.TOKENIZER_ID
        keys = {cid: sha256_hex(lexical_text(ch)) for cid, ch in wanted.items()}
        cached = {
            key: json.loads(terms)
            for key, terms in self._select_in(
                "SELECT text_sha256, terms FROM lexical_terms WHERE tokenizer = ? AND text_sha256 IN (%s)",
                tokenizer, sorted(set(keys.values())),
            )
        }
        new: dict[str, list[str]] = {}
        out: dict[str, list[str]] = {}
        for cid, key in keys.items():
            if key not in cached and key not in new:
                new[key] = lexical.tokenize(lexical_text(wanted[cid]))
            out[cid] = cached.get(key) or new.get(key) or []
        self.store_terms(new, tokenizer)
        return out

    def store_terms(self, terms: Mapping[str, list[str]], tokenizer: str | None = None) -> None:
        """Add BM25 terms to the term cache, keyed by SHA-256 of ``lexical_text``
        (``chunk_terms``), for ``tokenizer`` (default: ``core.lexical.TOKENIZER_ID`` now)."""
        if terms:
            tok = tokenizer or lexical.TOKENIZER_ID
            with self._db.transaction() as db:
                db.executemany(
                    "INSERT OR REPLACE INTO lexical_terms VALUES (?, ?, ?)",
                    [(tok, key, json.dumps(t, ensure_ascii=False)) for key, t in terms.items()],
                )

    def cached_vectors(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached vectors of ``model`` by text SHA-256 (float32); keys without one are left out."""
        return {
            key: np.frombuffer(blob, dtype=np.float32)
            for key, blob in self._select_in(
                "SELECT text_sha256, vector FROM embeddings WHERE model = ? AND text_sha256 IN (%s)", model, keys
            )
        }

    def vector_count(self, model: str) -> int:
        """How many vectors of ``model`` the cache holds (one indexed count)."""
        with self._db.transaction() as db:
            return db.execute("SELECT COUNT(*) FROM embeddings WHERE model = ?", (model,)).fetchone()[0]

    def store_vectors(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Add vectors of ``model`` to the cache, keyed by text SHA-256 (stored as float32 bytes)."""
        if vectors:
            with self._db.transaction() as db:
                db.executemany(
                    "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                    [(model, k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in vectors.items()],
                )
