"""The catalog: one SQLite file (``<data_dir>/catalog.sqlite3``, WAL) or a database
SQLAlchemy reaches (``core.store.sql``; PostgreSQL shared by app replicas, issue 17) holding
the knowledge bases, every document version and chunk ever ingested into each,
which version of each source is active, a generation counter, and two caches.

* ``knowledge_bases``: name, title, hidden, settings (``core.store.knowledge_bases``).
* ``documents`` / ``chunks``: keyed by knowledge base (``kb``); old versions are
  kept, never overwritten, so old answers replay; ``active = 1`` marks the served
  version of a source. Ids are ``kb/source_id@version[#ordinal]``.
* Schema: Alembic (``core/store/migrations/catalog``, version table ``alembic_version_catalog``),
  run on open. Its first revision adopts a file made before Alembic: a data folder made
  before knowledge bases (``PRAGMA user_version`` 0) moves into ``default``
  (:attr:`Catalog.migrated`).
* ``meta``: ``index_id`` (a random id naming this catalog, e.g. its collection
  on a Chroma server) and ``generation`` (bumped by every ingest or hide in any
  process, so others notice and reload).
* ``embeddings``: vectors keyed by model name + SHA-256 of the embedded text
  (``embedding_text``), float32 bytes, so unchanged chunks are never embedded
  twice and a process that does not own the vector store can still score.
* ``lexical_terms``: BM25 terms keyed by tokenizer id (``core.lexical.TOKENIZER_ID``,
  read at call time) + SHA-256 of ``lexical_text``, so jieba never runs twice
  over a text it has seen.
* ``source_files``: the parse key (``core.ingest.corpus.parse_key``: file bytes + parse
  inputs) each source was last stored from, its version and the warnings of that
  parse, so a re-ingest skips a file whose bytes are unchanged before parsing it and
  still reports its warnings (``parse_keys``).

Why over 400 lines: every table above is read and written in the same transactions
(a version switch touches documents, chunks, source_files and meta at once), so the
SQL that keeps them consistent stays in one class; the knowledge-base table lives in
``core.store.knowledge_bases``, the tokenizing in ``core.lexical`` and the shared embedding
queue in ``core.store.embedding_claims``.

Every method raises ``IndexError_`` when the database fails (``core.store.sql``). Writes that
switch versions are one transaction that also bumps the generation; on PostgreSQL they
first lock the knowledge base's row (``FOR UPDATE``), so two replicas ingesting one
knowledge base take turns, and reads run at ``REPEATABLE READ``.
"""

from __future__ import annotations

import json
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Iterable, Iterator, Mapping, Sequence

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from core import lexical
from core.errors import IndexError_
from core.markdown import link_text_only
from core.models import DEFAULT_KB, Chunk, SourceDocument, sha256_hex, source_key, utc_now
from core.store import knowledge_bases
from core.store.sql import SqlDatabase, upsert
from core.store.sqlite import read_value

#: Keys per ``IN (...)`` query (SQLite allows 999 parameters in old builds).
_IN_BATCH = 500

_metadata = sa.MetaData()
#: The tables as the statements see them; their layout is made by ``core/store/migrations/catalog``.
EMBEDDINGS = sa.Table(
    "embeddings",
    _metadata,
    sa.Column("model", sa.Text),
    sa.Column("text_sha256", sa.Text),
    sa.Column("vector", sa.LargeBinary),
)
LEXICAL_TERMS = sa.Table(
    "lexical_terms",
    _metadata,
    sa.Column("tokenizer", sa.Text),
    sa.Column("text_sha256", sa.Text),
    sa.Column("terms", sa.Text),
)
META = sa.Table("meta", _metadata, sa.Column("key", sa.Text), sa.Column("value", sa.Text))
DOCUMENTS = sa.Table(
    "documents",
    _metadata,
    *(sa.Column(n, sa.Text) for n in ("kb", "source_id", "version", "document_json")),
    sa.Column("active", sa.Integer),
    sa.Column("chunk_count", sa.Integer),
    sa.Column("ingested_at", sa.Text),
)
CHUNKS = sa.Table(
    "chunks",
    _metadata,
    *(sa.Column(n, sa.Text) for n in ("chunk_id", "kb", "source_id", "version")),
    sa.Column("ordinal", sa.Integer),
    sa.Column("chunk_json", sa.Text),
)
SOURCE_FILES = sa.Table(
    "source_files",
    _metadata,
    *(sa.Column(n, sa.Text) for n in ("kb", "source_id", "parse_key", "version", "warnings")),
)
_BUMP_GENERATION = sa.text(
    "INSERT INTO meta (key, value) VALUES ('generation', '1') "
    "ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(meta.value AS INTEGER) + 1 AS TEXT)"
)


def lexical_text(chunk: Chunk) -> str:
    """The text BM25 indexes for a chunk: its heading path (joined with spaces) and its text
    without link targets (``core.markdown.link_text_only``)."""
    return " ".join(chunk.heading_path) + "\n" + link_text_only(chunk.text)


def chunk_terms(chunks: Sequence[Chunk]) -> dict[str, list[str]]:
    """BM25 terms of ``chunks`` keyed as the term cache keys them (SHA-256 of
    ``lexical_text``); run where a file is parsed (``core.ingest.corpus``'s ``prepare``), then
    ``Catalog.store_terms``. Uses ``core.lexical.tokenize``."""
    out: dict[str, list[str]] = {}
    for chunk in chunks:
        text = lexical_text(chunk)
        out.setdefault(sha256_hex(text), lexical.tokenize(text))
    return out


def embedding_text(chunk: Chunk) -> str:
    """The text embedded for a chunk: its heading path (joined with › ) and its text
    without link targets (``core.markdown.link_text_only``)."""
    return " › ".join(chunk.heading_path) + "\n" + link_text_only(chunk.text)


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
    """The catalog at ``location``: a SQLite file (a ``Path``, created when missing) or a
    database URL (``core.store.sql.parse_url``). Thread-safe: pooled connections, one per
    transaction."""

    def __init__(self, location: Path | str) -> None:
        self._db = SqlDatabase(
            location, error=IndexError_, label="the catalog", migrations="catalog", synchronous="NORMAL"
        )
        with self._db.write() as db:
            upsert(db, META, {"key": "index_id", "value": uuid.uuid4().hex[:16]}, ["key"])
            self.index_id: str = db.execute(sa.select(META.c.value).where(META.c.key == "index_id")).scalar_one()
        #: Whether opening this catalog moved a data folder made before knowledge bases into ``DEFAULT_KB``.
        self.migrated = bool(self._db.migration_notes.get("moved_into_default"))
        self.knowledge_bases = knowledge_bases.KnowledgeBaseStore(self._db)

    @property
    def database(self) -> SqlDatabase:
        """The database this catalog lives in (``core.store.embedding_claims`` queues work in it)."""
        return self._db

    def close(self) -> None:
        """Close the pooled connections (reopened on the next use)."""
        self._db.close()

    # ------------------------------------------------------------ reading
    def meta(self, key: str) -> str | None:
        """The ``meta`` value under ``key`` (e.g. ``embedding_model@<chroma folder>``), or None."""
        with self._db.read() as db:
            value = db.execute(sa.select(META.c.value).where(META.c.key == key)).scalar()
        return None if value is None else str(value)

    def set_meta(self, key: str, value: str) -> None:
        """Store ``value`` under ``key`` in ``meta`` (replacing it)."""
        with self._db.write() as db:
            upsert(db, META, {"key": key, "value": value}, ["key"], update=["value"])

    def generation(self) -> str:
        """The generation counter (``"0"`` before the first ingest); one small read."""
        value = self.meta("generation")
        return value if value is not None else "0"

    def active_chunks(self, known: Mapping[str, Chunk]) -> dict[str, Chunk]:
        """The chunks of the active versions (every knowledge base) by chunk id, in
        (knowledge base, source id, ordinal) order; chunks in ``known`` are reused instead of parsed again."""
        c, d = CHUNKS, DOCUMENTS
        stmt = (
            sa.select(c.c.chunk_id, c.c.chunk_json)
            .join(d, sa.and_(c.c.kb == d.c.kb, c.c.source_id == d.c.source_id, c.c.version == d.c.version))
            .where(d.c.active == 1)
            .order_by(c.c.kb, c.c.source_id, c.c.ordinal)
        )
        with self._db.read() as db:
            rows = db.execute(stmt).all()
        out: dict[str, Chunk] = {}
        for cid, js in rows:
            ch = known.get(cid)
            out[cid] = ch if ch is not None else Chunk.model_validate_json(js)
        return out

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        """Any chunk ever ingested (any version), or None."""
        with self._db.read() as db:
            js = db.execute(sa.select(CHUNKS.c.chunk_json).where(CHUNKS.c.chunk_id == chunk_id)).scalar()
        return Chunk.model_validate_json(js) if js is not None else None

    def current_versions(self) -> dict[str, str | None]:
        """``kb/source_id`` (``core.models.source_key``) → active version, or None for a
        source whose documents are all hidden/removed."""
        out: dict[str, str | None] = {}
        d = DOCUMENTS
        with self._db.read() as db:
            for kb, sid, version, active in db.execute(sa.select(d.c.kb, d.c.source_id, d.c.version, d.c.active)):
                if active:
                    out[source_key(kb, sid)] = version
                else:
                    out.setdefault(source_key(kb, sid), None)
        return out

    def _insertion_order(self, table: sa.Table) -> list[sa.ColumnElement]:
        """Ties of ``ingested_at`` broken by insertion (SQLite ``rowid``; PostgreSQL: by version,
        as times there are microseconds apart)."""
        if self._db.dialect == "sqlite":
            return [sa.literal_column(f"{table.name}.rowid")]
        return [table.c.version]

    def _document_rows(self, where: sa.ColumnElement[bool], knowledge_base: str | None) -> list[DocumentRow]:
        """Document rows (``DOCUMENTS``) matching ``where`` in ``knowledge_base`` (None: every
        one), by knowledge base, source id and ingest time; for a source with several rows,
        the last one (the latest version) is kept."""
        d = DOCUMENTS
        stmt = (
            sa.select(d.c.kb, d.c.source_id, d.c.document_json, d.c.chunk_count, d.c.active, d.c.ingested_at)
            .where(where, *([d.c.kb == knowledge_base] if knowledge_base is not None else []))
            .order_by(d.c.kb, d.c.source_id, d.c.ingested_at, *self._insertion_order(d))
        )
        with self._db.read() as db:
            rows = db.execute(stmt).all()
        latest = {(kb, sid): (js, n, a, at) for kb, sid, js, n, a, at in rows}
        return [DocumentRow(SourceDocument.model_validate_json(js), n, bool(a), at) for js, n, a, at in latest.values()]

    def documents(self, knowledge_base: str | None = None) -> list[DocumentRow]:
        """Active documents of ``knowledge_base`` (None: of every one), sorted by
        knowledge base and source id."""
        return self._document_rows(DOCUMENTS.c.active == 1, knowledge_base)

    # ------------------------------------------------------------ writing
    def parse_keys(self, knowledge_base: str = DEFAULT_KB) -> dict[str, tuple[str, list[str]]]:
        """source_id → (parse key, warnings of that parse) of its active version in
        ``knowledge_base`` (sources stored with a key whose version is still the active one;
        a hidden or replaced source has none)."""
        f, d = SOURCE_FILES, DOCUMENTS
        stmt = (
            sa.select(f.c.source_id, f.c.parse_key, f.c.warnings)
            .join(d, sa.and_(f.c.kb == d.c.kb, f.c.source_id == d.c.source_id, f.c.version == d.c.version))
            .where(d.c.active == 1, f.c.kb == knowledge_base)
        )
        with self._db.read() as db:
            rows = db.execute(stmt).all()
        return {sid: (key, json.loads(w)) for sid, key, w in rows}

    @contextmanager
    def _write(self, kb: str) -> Iterator[Connection]:
        """A write transaction that first locks the row of knowledge base ``kb`` (PostgreSQL
        ``FOR UPDATE``; SQLite's ``BEGIN IMMEDIATE`` already serializes writers)."""
        with self._db.write() as db:
            if self._db.dialect == "postgresql":
                kbs = knowledge_bases.KNOWLEDGE_BASES
                db.execute(sa.select(kbs.c.name).where(kbs.c.name == kb).with_for_update())
            yield db

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

        ``parse_keys`` (source_id → (``core.ingest.corpus.parse_key``, warnings)) are stored
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
        d = DOCUMENTS
        with self._write(kb) as db:
            current = dict(db.execute(sa.select(d.c.source_id, d.c.version).where(d.c.active == 1, d.c.kb == kb)).all())
            for doc, chunks in parsed:
                old = current.get(doc.source_id)
                if old == doc.version:
                    results[doc.source_id] = "unchanged"
                    continue
                results[doc.source_id] = "updated" if old else "added"
                if old:
                    retired.append((doc.source_id, old))
                upsert(
                    db,
                    d,
                    {
                        "kb": kb,
                        "source_id": doc.source_id,
                        "version": doc.version,
                        "document_json": doc.model_dump_json(),
                        "active": 0,
                        "chunk_count": len(chunks),
                        "ingested_at": now,
                    },
                    ["kb", "source_id", "version"],
                )
                if chunks:
                    upsert(
                        db,
                        CHUNKS,
                        [
                            {
                                "chunk_id": c.chunk_id,
                                "kb": kb,
                                "source_id": c.source_id,
                                "version": c.version,
                                "ordinal": c.ordinal,
                                "chunk_json": c.model_dump_json(),
                            }
                            for c in chunks
                        ],
                        ["chunk_id"],
                    )
                same_source = sa.and_(d.c.kb == kb, d.c.source_id == doc.source_id)
                db.execute(sa.update(d).where(same_source).values(active=0))
                db.execute(sa.update(d).where(same_source, d.c.version == doc.version).values(active=1))
            files = [
                {
                    "kb": kb,
                    "source_id": doc.source_id,
                    "parse_key": parse_keys[doc.source_id][0],
                    "version": doc.version,
                    "warnings": json.dumps(list(parse_keys[doc.source_id][1]), ensure_ascii=False),
                }
                for doc, _ in parsed
                if parse_keys and doc.source_id in parse_keys
            ]
            if files:
                upsert(db, SOURCE_FILES, files, ["kb", "source_id"], ["parse_key", "version", "warnings"])
            if remove_missing:
                seen = {doc.source_id for doc, _ in parsed} | set(kept)
                for sid in current:
                    if sid not in seen:
                        db.execute(sa.update(d).where(d.c.kb == kb, d.c.source_id == sid).values(active=0))
                        results[sid] = "removed"
                        retired.append((sid, current[sid]))
            stale = self._chunk_ids_of(db, kb, retired)
            db.execute(_BUMP_GENERATION)
        return results, stale

    def hide(self, source_id: str, knowledge_base: str = DEFAULT_KB) -> tuple[bool, list[str]]:
        """Stop serving a source of ``knowledge_base`` (its versions stay for replay).
        Returns (whether it was active, ids of the chunks switched off); bumps the generation."""
        kb, d = knowledge_base, DOCUMENTS
        active = sa.and_(d.c.kb == kb, d.c.source_id == source_id, d.c.active == 1)
        with self._write(kb) as db:
            versions = [(source_id, v) for v in db.execute(sa.select(d.c.version).where(active)).scalars()]
            n = db.execute(sa.update(d).where(active).values(active=0)).rowcount
            stale = self._chunk_ids_of(db, kb, versions)
            db.execute(_BUMP_GENERATION)
        return n > 0, stale

    def hidden_documents(self, knowledge_base: str | None = None) -> list[DocumentRow]:
        """Sources of ``knowledge_base`` (None: of every one) with no active version (hidden,
        or removed from a folder): the most recently ingested version of each, sorted by
        knowledge base and source id."""
        d, a = DOCUMENTS, DOCUMENTS.alias("a")
        served = sa.select(1).where(a.c.kb == d.c.kb, a.c.source_id == d.c.source_id, a.c.active == 1)
        return self._document_rows(~served.exists(), knowledge_base)

    def unhide(self, source_id: str, knowledge_base: str = DEFAULT_KB) -> bool:
        """Serve a hidden source of ``knowledge_base`` again: its most recently ingested
        version becomes active. Returns False (and changes nothing) when the source is
        unknown or already active; bumps the generation otherwise."""
        kb, d = knowledge_base, DOCUMENTS
        source = sa.and_(d.c.kb == kb, d.c.source_id == source_id)
        with self._write(kb) as db:
            if db.execute(sa.select(1).where(source, d.c.active == 1)).first():
                return False
            version = db.execute(
                sa.select(d.c.version)
                .where(source)
                .order_by(d.c.ingested_at.desc(), *(o.desc() for o in self._insertion_order(d)))
                .limit(1)
            ).scalar()
            if version is None:
                return False
            db.execute(sa.update(d).where(source, d.c.version == version).values(active=1))
            db.execute(_BUMP_GENERATION)
        return True

    @staticmethod
    def _chunk_ids_of(db: Connection, kb: str, versions: Sequence[tuple[str, str]]) -> list[str]:
        c, out = CHUNKS, []
        for sid, version in versions:
            out.extend(
                db.execute(
                    sa.select(c.c.chunk_id).where(c.c.kb == kb, c.c.source_id == sid, c.c.version == version)
                ).scalars()
            )
        return out

    # ------------------------------------------------------------- caches
    def _select_in(
        self, table: sa.Table, first: sa.ColumnElement[bool], key: sa.Column, value: sa.Column, keys: Sequence[str]
    ) -> Iterable[tuple]:
        """``(key, value)`` rows of ``table`` matching ``first`` whose ``key`` is in ``keys``, in batches."""
        with self._db.read() as db:
            for i in range(0, len(keys), _IN_BATCH):
                part = keys[i : i + _IN_BATCH]
                yield from db.execute(sa.select(key, value).where(first, key.in_(part))).all()

    def terms_for(self, wanted: Mapping[str, Chunk]) -> dict[str, list[str]]:
        """BM25 terms per chunk id (``core.lexical.tokenize`` of ``lexical_text``): from
        the term cache, else tokenized now and stored."""
        tokenizer = lexical.TOKENIZER_ID
        keys = {cid: sha256_hex(lexical_text(ch)) for cid, ch in wanted.items()}
        t = LEXICAL_TERMS
        cached = {
            key: json.loads(terms)
            for key, terms in self._select_in(
                t, t.c.tokenizer == tokenizer, t.c.text_sha256, t.c.terms, sorted(set(keys.values()))
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
            rows = [
                {"tokenizer": tok, "text_sha256": key, "terms": json.dumps(t, ensure_ascii=False)}
                for key, t in terms.items()
            ]
            with self._db.write() as db:
                upsert(db, LEXICAL_TERMS, rows, ["tokenizer", "text_sha256"], ["terms"])

    def cached_vectors(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached vectors of ``model`` by text SHA-256 (float32); keys without one are left out."""
        e = EMBEDDINGS
        return {
            key: np.frombuffer(blob, dtype=np.float32)
            for key, blob in self._select_in(e, e.c.model == model, e.c.text_sha256, e.c.vector, keys)
        }

    def vector_count(self, model: str) -> int:
        """How many vectors of ``model`` the cache holds (one indexed count)."""
        with self._db.read() as db:
            return db.execute(sa.select(sa.func.count()).where(EMBEDDINGS.c.model == model)).scalar_one()

    def store_vectors(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        """Add vectors of ``model`` to the cache, keyed by text SHA-256 (stored as float32 bytes)."""
        if vectors:
            rows = [
                {"model": model, "text_sha256": k, "vector": np.asarray(v, dtype=np.float32).tobytes()}
                for k, v in vectors.items()
            ]
            with self._db.write() as db:
                upsert(db, EMBEDDINGS, rows, ["model", "text_sha256"], ["vector"])
