"""Records: the answer store and everything read from it.

The store of ``AnswerRecord`` rows and conversations (``store``), sign-out times (``sessions``),
replay state (``replay``), Markdown/JSON export and its one escaping path (``export``,
``export_escape``), what page and export both show (``presentation``), recommended links
(``links``), personal-data redaction (``redaction``), and who may ask or read a knowledge base
(``access``, ``readable``).

May import: the ground floor, ``core.grounding`` and ``core.verification.verdicts`` (what a marker
shows), ``core.store.sql``. Never ``core.engine``, a generator or the UI.
"""
