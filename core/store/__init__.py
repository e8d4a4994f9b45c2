"""Store: where chunks, vectors and knowledge bases live.

The knowledge-base facade (``index.KnowledgeIndex``) over the SQLite/PostgreSQL catalog (``catalog``,
``sql``, ``sqlite``, the Alembic scripts in ``migrations/``) and the Chroma adapter (``vector_store``,
the only ``chromadb`` import; ``store_lock``: one owner per embedded store); embedding backends
(``embeddings``), cached and second-model vectors (``cached_vectors``, ``second_vectors``), the
background embedder and its queue (``embedding_worker``, ``embedding_claims``, ``priority``), the
knowledge bases and what a selection serves (``knowledge_bases``, ``kb_views``).

May import: the ground floor only (``core.lexical`` for the BM25 index a selection serves).
"""
