"""Recommended links (navigation, contact): a separate list, never evidence.

They come from the corpus profiles of the knowledge bases a question searched
(``core.ingest.corpus_profile``: ``navigation``, ``contact``, ``contact_keywords``); a knowledge base
whose folder brought no profile recommends nothing. A navigation link describes one
knowledge base: the site at its URL's host. It is recommended only when it relates to the
answer (:func:`relevant_links`):

* the answer cites a chunk whose public URI is on the link's host (the
  knowledge base the link describes), or
* the question contains one of the link's own ``keywords`` (optional).

So an answer from uploaded documents (no public URI), a ``no_evidence`` /
``error`` / ``blocked`` answer and an answer from another site get no
navigation links. Contact links appear only when the question shows contact
intent (contains one of that profile's contact keywords), whatever the answer's status.
Every URL was checked to be http(s) when the profile was read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from core.ingest.corpus_profile import CorpusProfile, ProfileLink
from core.models import AnswerRecord, RecommendedLink
from core.records.presentation import link_domain

#: Statuses whose answer can carry navigation links (it cites evidence).
_CITING = frozenset({"answered", "unverifiable", "interrupted"})


def _link(link: ProfileLink, kind: str) -> RecommendedLink:
    return RecommendedLink(label=link.label, url=link.url, kind=kind)


def relevant_links(
    question: str, profiles: Sequence[CorpusProfile], *, status: str = "answered", cited_uris: Iterable[str | None] = ()
) -> tuple[RecommendedLink, ...]:
    """The links of ``profiles`` that relate to this answer (rules in the module docstring), in
    profile order, each URL once.

    ``status`` is the record's status; ``cited_uris`` the public URIs of the chunks the
    answer cites (None/non-http ones are ignored).
    """
    hosts = {h for h in (link_domain(u) for u in cited_uris) if h}
    out: dict[str, RecommendedLink] = {}
    for p in profiles:
        if status in _CITING:
            for n in p.navigation:
                if link_domain(n.url) in hosts or any(k in question for k in n.keywords):
                    out.setdefault(n.url, _link(n, "navigation"))
        if any(k in question for k in p.contact_keywords):
            for c in p.contact:
                out.setdefault(c.url, _link(c, "contact"))
    return tuple(out.values())


def links_for_record(record: AnswerRecord, profiles: Sequence[CorpusProfile]) -> tuple[RecommendedLink, ...]:
    """:func:`relevant_links` for a finished record: its question, status and cited chunks' URIs."""
    cited = {cid for sp in record.supports for cid in sp.chunk_ids}
    uris = [c.uri for c in record.chunks if c.chunk_id in cited]
    return relevant_links(record.query, profiles, status=record.status, cited_uris=uris)
