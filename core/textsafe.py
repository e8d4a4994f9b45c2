"""Text that cannot be stored: lone surrogates, replaced at the edge and audited.

A Python ``str`` may hold a lone surrogate code point (U+D800..U+DFFF): the
command line decodes an undecodable argv/stdin byte with ``surrogateescape``
(``b"\\xff"`` -> ``"\\udcff"``), and ``json.loads`` accepts ``"\\ud83d"``
(a half emoji in a model's JSON answer). Such text cannot be encoded as UTF-8,
so neither SQLite/JSON storage nor the browser nor a provider request takes it.

What a user expects: the question is still answered and stored. So every lone
surrogate is replaced by U+FFFD (the replacement character, shown as "�"), one
code point for one code point, and an ``AuditEntry`` (action ``repaired``)
names the field and the count. Because U+FFFD is one code point, three UTF-8
bytes and one UTF-16 unit - exactly how ``core.grounding.offsets`` counts a lone
surrogate - no offset in any unit moves. A surrogate *pair* stored as two code
points is replaced too (two U+FFFD): joining it would shift offsets.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel

from core.models import AnswerRecord, AuditEntry

M = TypeVar("M", bound=BaseModel)

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def scrub(text: str) -> tuple[str, int]:
    """``text`` with each surrogate code point replaced by U+FFFD, and how many were replaced.

    Length in code points is unchanged. Does not mutate anything (``str`` is immutable).
    """
    return _LONE_SURROGATE.subn(REPLACEMENT, text)


def repair_audit(field: str, count: int) -> AuditEntry:
    """The audit entry for ``count`` replaced surrogates in ``field`` (a dotted path, e.g. ``query``)."""
    return AuditEntry(
        action="repaired",
        reason=f"{field} 中有 {count} 个无效的 Unicode 字符（孤立代理项，如无法解码的字节），已替换为 U+FFFD（�）",
        detail={"field": field, "count": count, "kind": "lone_surrogate"},
    )


def _walk(value: Any, path: str, found: dict[str, int]) -> Any:
    if isinstance(value, str):
        clean, n = scrub(value)
        if n:
            found[path] = found.get(path, 0) + n
        return clean
    if isinstance(value, dict):
        return {
            _walk(k, f"{path}.<key>", found): _walk(v, f"{path}.{k}" if path else str(k), found)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_walk(v, f"{path}.{i}", found) for i, v in enumerate(value)]
    return value


def scrub_model(value: M, prefix: str = "") -> tuple[M, tuple[AuditEntry, ...]]:
    """``value`` itself and no entries when every string in it (nested models, lists,
    dict keys and values) can be encoded as UTF-8; otherwise a re-validated copy with
    lone surrogates replaced (U+FFFD) and one ``repaired`` entry per field (dotted
    path such as ``answer_text`` or ``chunks.0.text``, after ``prefix``)."""
    found: dict[str, int] = {}
    data = _walk(value.model_dump(), prefix, found)
    if not found:
        return value, ()
    return type(value).model_validate(data), tuple(repair_audit(f, n) for f, n in found.items())


def scrub_record(record: AnswerRecord) -> AnswerRecord:
    """``record`` with lone surrogates replaced and audited (see :func:`scrub_model`).
    Offsets stay valid."""
    clean, entries = scrub_model(record)
    if not entries:
        return record
    return clean.model_copy(update={"audit": (*clean.audit, *entries)})
