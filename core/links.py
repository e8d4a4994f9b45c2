"""Recommended links (navigation, contact): a separate list, never evidence.

Read from ``data/links.json``::

    {"navigation": [{"label": ..., "url": ..., "keywords": ["术语表", ...]}], "contact": [...],
     "contact_keywords": ["合作", "报价", "预算", "委托", "联系"]}

A navigation link describes one knowledge base: the site at its URL's host. It
is recommended only when it relates to the answer (:func:`relevant_links`):

* the answer cites a chunk whose public URI is on the link's host (the
  knowledge base the link describes), or
* the question contains one of the link's own ``keywords`` (optional).

So an answer from uploaded documents (no public URI), a ``no_evidence`` /
``error`` / ``blocked`` answer and an answer from another site get no
navigation links. Contact links appear only when the question shows contact
intent (contains a contact keyword), whatever the answer's status. Only http(s)
URLs are accepted; a bad file raises :class:`core.errors.ConfigError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from core.errors import ConfigError
from core.markdown import safe_link
from core.models import AnswerRecord, RecommendedLink
from core.presentation import link_domain

DEFAULT_CONTACT_KEYWORDS = ("合作", "报价", "预算", "委托", "联系")

#: Statuses whose answer can carry navigation links (it cites evidence).
_CITING = frozenset({"answered", "unverifiable", "interrupted"})


@dataclass(frozen=True)
class _Nav:
    link: RecommendedLink
    keywords: tuple[str, ...]


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> tuple[tuple[_Nav, ...], tuple[RecommendedLink, ...], tuple[str, ...]]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"links file {path} cannot be read: {exc}") from exc

    def links(key: str, kind: str) -> tuple[tuple[RecommendedLink, tuple[str, ...]], ...]:
        out = []
        for item in data.get(key, []):
            url = str(item.get("url", "")).strip()
            if not safe_link(url):
                raise ConfigError(f"links file {path}: {key} link {url!r} is not http(s)")
            words = tuple(str(w) for w in item.get("keywords", ()) if str(w).strip())
            out.append((RecommendedLink(label=str(item["label"]), url=url, kind=kind), words))
        return tuple(out)

    nav = tuple(_Nav(link, words) for link, words in links("navigation", "navigation"))
    contact = tuple(link for link, _ in links("contact", "contact"))
    return nav, contact, tuple(data.get("contact_keywords", DEFAULT_CONTACT_KEYWORDS))


def relevant_links(
    question: str, path: Path, *, status: str = "answered", cited_uris: Iterable[str | None] = ()
) -> tuple[RecommendedLink, ...]:
    """The links of ``path`` that relate to this answer (rules in the module docstring).

    ``status`` is the record's status; ``cited_uris`` the public URIs of the chunks the
    answer cites (None/non-http ones are ignored). A missing file gives ``()``.
    """
    if not path.is_file():
        return ()
    nav, contact, keywords = _load(str(path), path.stat().st_mtime)
    out: list[RecommendedLink] = []
    if status in _CITING:
        hosts = {h for h in (link_domain(u) for u in cited_uris) if h}
        out += [n.link for n in nav if link_domain(n.link.url) in hosts or any(k in question for k in n.keywords)]
    if any(k in question for k in keywords):
        out += contact
    return tuple(out)


def links_for_record(record: AnswerRecord, path: Path) -> tuple[RecommendedLink, ...]:
    """:func:`relevant_links` for a finished record: its question, status and cited chunks' URIs."""
    cited = {cid for sp in record.supports for cid in sp.chunk_ids}
    uris = [c.uri for c in record.chunks if c.chunk_id in cited]
    return relevant_links(record.query, path, status=record.status, cited_uris=uris)


def recommended_links(question: str, path: Path) -> tuple[RecommendedLink, ...]:
    """Every navigation link, plus contact links when ``question`` shows contact intent
    (the unfiltered list; the pipeline stores :func:`links_for_record`)."""
    if not path.is_file():
        return ()
    nav, contact, keywords = _load(str(path), path.stat().st_mtime)
    return tuple(n.link for n in nav) + (contact if any(k in question for k in keywords) else ())
