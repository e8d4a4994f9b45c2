"""Markdown (Hugo flavoured, Chinese) → one ``SourceDocument`` and its ``Chunk`` list.

The public entry point is :func:`parse_markdown` (and :func:`parse_front_matter`
for callers that only need the YAML header). One job per module:

=====================  ==========================================================
``normalize``          input clean-up (BOM, line ends, sentinel code points),
                       soft-break joining and whitespace rules of chunk text
``frontmatter``        YAML front matter → mapping, dates, scalar metadata
``hugo``               the Kubernetes zh-cn Hugo dialect: shortcodes, i18n
                       headings, ``{#anchor}`` ids, HTML comments
``htmltext``           raw HTML blocks → plain text
``markdown``           the generic walk: markdown-it tokens → sections with
                       heading paths; deep-nesting flattening; footnote notes
``inline``             inline tokens → chunk text (links kept as links,
                       numeric references as ``[1]``, footnote references,
                       literal markup escaped)
``indented``           is an indented code block prose? (CJK sentences)
``splitting``          sections → chunk texts of at most 500 code points,
                       sentence- then clause-aware
``document``           the pipeline, chunk numbering, document version
=====================  ==========================================================

Imports run one way: ``document`` → ``markdown`` → (``inline``, ``indented``,
``hugo``, ``htmltext``, ``splitting``) → ``normalize`` → :mod:`core.cjk`
(``inline`` also reads :func:`core.markdown.safe_link`).

Text fidelity
-------------
What a reader sees of every chunk (its text rendered by the product dialect
``core.markdown``) is what a reader sees of the document (markdown-it with the
ingest's plugins), in order, apart from whitespace:
``tests/ingest/test_chunking_fidelity_property.py`` checks it on generated documents,
and defines the three presentation choices (numeric link text as ``[1]``,
footnote references as ``[n]``, notes as ``[n] text``).

Errors
------
``parse_markdown`` raises :class:`core.errors.IngestError` (message names the
``source_id``) only for input that cannot be processed at all: a non-``str``
text, a string holding unpaired surrogates, an empty ``source_id``, or an
unexpected internal failure. Invalid YAML front matter is *not* an error: the
body is still parsed and the title falls back to the H1 / file stem.
It raises ``ValueError`` for a ``max_chars`` below :data:`MIN_MAX_CHARS`.
"""

from core.ingest.chunking.document import NORMALIZED_JOINER, document_version, normalized_text, parse_markdown
from core.ingest.chunking.frontmatter import parse_front_matter
from core.ingest.chunking.hugo import ADMONITION_LABELS, HEADING_I18N
from core.ingest.chunking.splitting import MAX_CHUNK_CHARS, MIN_MAX_CHARS, SOFT_TARGET_CHARS

__all__ = [
    "ADMONITION_LABELS",
    "HEADING_I18N",
    "MAX_CHUNK_CHARS",
    "MIN_MAX_CHARS",
    "NORMALIZED_JOINER",
    "SOFT_TARGET_CHARS",
    "document_version",
    "normalized_text",
    "parse_front_matter",
    "parse_markdown",
]
