"""Ingest: documents in, versioned chunks with heading paths out.

Walking folders and reading files (``corpus``), what to parse and where (``parse_jobs``: parse keys,
a process pool), HTML/PDF to Markdown (``converters``, ``pdf_text``, ``pdf_positions``; stored PDF
files and page images in ``pdf_pages``), is a text fit to store (``sourcetext``), Markdown to chunks
(``chunking/``), what one collection brings (``corpus_profile``), the ingest itself (``run``:
versions, switch-over, then embedding), library management (``library``) and progress lines
(``progress``).

May import: the ground floor (``core.models``, ``core.errors``, ``core.config``, ``core.cjk``,
``core.markdown``, ``core.lexical``, ...) and ``core.store`` (``run`` writes the catalog and the
vectors). Nothing else of ``core``, never the UI.
"""
