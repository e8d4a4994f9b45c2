"""YAML front matter: found by markdown-it, read leniently, turned into scalar metadata.

Used by :func:`core.ingest.chunking.document.parse_markdown` (title, dates, metadata)
and by :mod:`core.ingest.corpus` (glossary titles). Invalid YAML is never an error
here: callers get an explanatory message and an empty mapping.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date, datetime, timezone
from typing import Any

import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from core.ingest.chunking.normalize import sanitize
from core.models import Scalar

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_front_matter(text: str) -> tuple[dict[str, Any], str | None]:
    """The YAML front matter of a Markdown text, found by markdown-it.

    Returns ``(mapping, error)``: the parsed mapping (empty when there is no
    front matter or it is not a mapping) and ``None``, or ``({}, message)`` when
    the YAML is invalid. A leading BOM is ignored. Never raises.
    """
    src = sanitize(text)
    if not src.startswith("-"):
        return {}, None
    md = MarkdownIt("zero").use(front_matter_plugin)
    tokens = md.parse(src)
    if not tokens or tokens[0].type != "front_matter":
        return {}, None
    return load_yaml(tokens[0].content)


def load_yaml(content: str) -> tuple[dict[str, Any], str | None]:
    """``(mapping, None)`` for YAML ``content`` (keys as ``str``; ``{}`` when it is
    not a mapping), or ``({}, "invalid YAML front matter: …")``. Never raises."""
    try:
        data = yaml.load(content, Loader=_YAML_LOADER) if content.strip() else {}
    except Exception as exc:  # noqa: BLE001 - any YAML failure is lenient
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return {}, f"invalid YAML front matter: {first}"
    if not isinstance(data, dict):
        return {}, None
    return {str(k): v for k, v in data.items()}, None


def as_datetime(value: Any) -> datetime | None:
    """A timezone-aware ``datetime`` for a YAML date, datetime or ISO 8601 text
    (naive values taken as UTC), else ``None``."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def _jsonable(value: Any) -> Any:
    """``value`` with mapping keys as text and dates as ISO 8601 text (for ``json.dumps``)."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(_jsonable(k)): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value if value is None or isinstance(value, str | int | float | bool) else str(value)


def scalar_metadata(fm: Mapping[str, Any]) -> dict[str, Scalar]:
    """Front matter as scalar metadata (Chroma and ``SourceDocument`` hold scalars only).

    bool/int/float are kept, strings stripped, dates become ISO 8601 text.
    Lists and mappings (``pages: [3, 4]``, ``tags: [网络, 服务]``) become JSON
    text (``"[3, 4]"``, ``'["网络", "服务"]'``; non-ASCII kept, dates as ISO
    text) so a source card can show them. ``null`` values are dropped on
    purpose: YAML ``null`` / an empty value means "not set", and an absent key
    says the same. Anything else becomes ``str(value)``.
    """
    out: dict[str, Scalar] = {}
    for k, v in fm.items():
        if v is None:
            continue
        if isinstance(v, bool | int | float):
            out[k] = v
        elif isinstance(v, str):
            out[k] = v.strip()
        elif isinstance(v, datetime | date):
            out[k] = v.isoformat()
        elif isinstance(v, list | tuple | dict):
            out[k] = json.dumps(_jsonable(v), ensure_ascii=False)
        else:
            out[k] = str(v)
    return out
