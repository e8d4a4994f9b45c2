"""Recommended links (navigation, contact): a separate list, never evidence.

Read from ``data/links.json``::

    {"navigation": [{"label": ..., "url": ...}], "contact": [...],
     "contact_keywords": ["合作", "报价", "预算", "委托", "联系"]}

Contact links appear only when the question shows contact intent (contains a
contact keyword). Only http(s) URLs are accepted.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from core.errors import ConfigError
from core.markdown import safe_link
from core.models import RecommendedLink

DEFAULT_CONTACT_KEYWORDS = ("合作", "报价", "预算", "委托", "联系")


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> tuple[tuple[RecommendedLink, ...], tuple[RecommendedLink, ...], tuple[str, ...]]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"links file {path} cannot be read: {exc}") from exc

    def links(key: str, kind: str) -> tuple[RecommendedLink, ...]:
        out = []
        for item in data.get(key, []):
            url = str(item.get("url", "")).strip()
            if not safe_link(url):
                raise ConfigError(f"links file {path}: {key} link {url!r} is not http(s)")
            out.append(RecommendedLink(label=str(item["label"]), url=url, kind=kind))
        return tuple(out)

    return links("navigation", "navigation"), links("contact", "contact"), tuple(
        data.get("contact_keywords", DEFAULT_CONTACT_KEYWORDS)
    )


def recommended_links(question: str, path: Path) -> tuple[RecommendedLink, ...]:
    """Navigation links, plus contact links when ``question`` shows contact intent."""
    if not path.is_file():
        return ()
    nav, contact, keywords = _load(str(path), path.stat().st_mtime)
    if any(k in question for k in keywords):
        return nav + contact
    return nav
