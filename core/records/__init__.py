"""Records: the answer store and everything read from it.

The store of ``AnswerRecord`` rows and conversations (``store``), sign-out times (``sessions``),
replay state (``replay``), Markdown/JSON export and its one escaping path (``export``,
``export_escape``), what page and export both show (``presentation``), recommended links
(``links``), personal-data redaction (``redaction``), and who may ask a knowledge base (``access``;
what a page may read through the engine is ``core.readable``).

May import: the ground floor, ``core.grounding``, ``core.verification`` (what a marker shows),
``core.store`` (the SQL adapter, the index a replay reads) and ``core.ingest`` (a profile's links).
"""
