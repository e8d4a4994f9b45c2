"""Is a decoded or extracted text fit to be stored as searchable text?

Shared by every ingest path (``core.ingest.corpus``): file text, HTML, PDF pages and
file names. Messages are Chinese (shown per file on the 知识库 page).

- :func:`unreadable_share`: share of code points a reader cannot read
  (controls such as NUL, U+FFFD, private-use, unassigned, surrogates).
- :func:`check_text`: rejects empty, whitespace-only and mostly unreadable
  text (:class:`UnreadableText`), removes stray control characters.
- :func:`escape_surrogates`: makes a name decoded with ``surrogateescape``
  safe for ids, JSON and UTF-8 output.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

__all__ = [
    "GARBLED_SHARE",
    "UnreadableText",
    "check_text",
    "escape_surrogates",
    "remove_controls",
    "unreadable_share",
]

#: Text whose share of unreadable code points (among non-whitespace ones) is
#: above this is not stored as searchable text (see :func:`unreadable_share`).
#: A NUL before every character (UTF-16 read as bytes, a PDF font without a
#: usable text mapping) gives 0.5; a stray control character in a long text
#: stays far below.
GARBLED_SHARE = 0.3

# Control characters other than these are removed from text that is kept.
_KEPT_CONTROLS = frozenset("\t\n\r")
_LINE_CONTROLS = {"\f": "\n", "\v": "\n"}


class UnreadableText(ValueError):
    """A text that is not stored: empty, whitespace-only or mostly unreadable (Chinese message)."""


def escape_surrogates(text: str) -> str:
    """``text`` with every lone surrogate written as a backslash escape.

    A byte that was not UTF-8 in a file name (Python decodes those with
    ``surrogateescape`` as U+DC80..U+DCFF) becomes ``\\xNN`` of the original
    byte; any other lone surrogate becomes ``\\uNNNN``. Text without
    surrogates is returned unchanged, so the result always encodes as UTF-8.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    out: list[str] = []
    for ch in text:
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o - 0xDC00:02x}")
        elif 0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _unreadable(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return ch == "\ufffd" or (cat == "Cc" and ch not in _KEPT_CONTROLS) or cat in ("Co", "Cn", "Cs")


def unreadable_share(text: str) -> float:
    """Share (0..1) of the non-whitespace code points of ``text`` that are
    unreadable: control characters other than tab/newline/CR (NUL, …),
    U+FFFD, private-use (``Co``), unassigned (``Cn``) or surrogate code points.
    0.0 for text with no non-whitespace code point."""
    counted = bad = 0
    for ch, n in Counter(text).items():  # each distinct code point once (one counting pass in C)
        if ch.isspace() and ch not in ("\x1c", "\x1d", "\x1e", "\x1f"):
            continue
        counted += n
        bad += n if _unreadable(ch) else 0
    return bad / counted if counted else 0.0


def remove_controls(text: str) -> tuple[str, int]:
    """``text`` without control characters (form feed and vertical tab become
    newlines; tab, newline and CR stay) and how many were removed."""
    table: dict[int, str | None] = {}
    removed = 0
    for ch in set(text):  # each distinct code point once; str.translate does the rest
        if ch in _LINE_CONTROLS:
            table[ord(ch)] = _LINE_CONTROLS[ch]
        elif unicodedata.category(ch) == "Cc" and ch not in _KEPT_CONTROLS:
            table[ord(ch)] = None
            removed += text.count(ch)
    return (text.translate(table) if table else text), removed


def check_text(text: str) -> tuple[str, list[str]]:
    """``(text fit to store, warnings)`` for a decoded file text.

    Control characters are removed (warning with their count). Raises
    :class:`UnreadableText` (Chinese message) for an empty, whitespace-only
    (a BOM alone counts as empty) or mostly unreadable text (share above
    :data:`GARBLED_SHARE`, see :func:`unreadable_share`). Never mutates ``text``.
    """
    body = text[1:] if text.startswith("\ufeff") else text
    if not body:
        raise UnreadableText("文件为空，未导入")
    if not body.strip():
        raise UnreadableText("文件只有空白字符，没有内容，未导入")
    share = unreadable_share(body)
    if share > GARBLED_SHARE:
        hint = "；如果是 UTF-16 编码的文件，请另存为 UTF-8" if "\x00" in body else ""
        raise UnreadableText(
            f"文字大多无法识别（约 {share:.0%} 是控制字符、替换字符 U+FFFD 或私用区字符），"
            f"不作为可检索文本保存，未导入{hint}"
        )
    cleaned, removed = remove_controls(text)
    warnings = [f"已删除 {removed} 个控制字符（如 NUL）"] if removed else []
    return cleaned, warnings
