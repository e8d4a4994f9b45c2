"""Sizing: a section's blocks → chunk texts of at most ``max_chars`` code points.

A block over the limit is split at its natural boundaries: code at lines
(each piece re-fenced), tables at rows (each piece repeats the header),
text at sentence ends (``。！？；!?;``, ``". "``, newlines), then clause
boundaries (``，、：,:）``, spaces; never inside a ``[text](url)`` link), then
anywhere that does not split a
combining sequence (combining marks, ZWJ sequences, variation selectors,
skin-tone modifiers). Small consecutive blocks of one section are then merged
up to :data:`SOFT_TARGET_CHARS` (a block under ``_MIN_STANDALONE_CHARS`` or a
sticky label up to ``max_chars``); sections are never merged. A label that
stands alone (e.g. ``说明：`` with nothing after it in its section) is dropped.

All sizes are Unicode **code points** (``len`` of a ``str``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from core.markdown import unbreakable_spans

#: Hard upper bound on ``len(chunk.text)``, in Unicode **code points**.
#: The default embedder, ``intfloat/multilingual-e5-small``, has a maximum
#: sequence length of 512 tokens (XLM-R SentencePiece vocabulary). Every token
#: covers at least one character, so a text of at most 510 code points can never
#: exceed 512 tokens including the two special tokens (``<s>``, ``</s>``).
#: 500 leaves room for SentencePiece's leading "▁" piece and e5's 9-code-point
#: ``"passage: "`` prefix (500 + 9 + 1 + 2 = 512), so nothing is ever truncated.
#: Real Chinese text tokenizes to far fewer tokens than characters.
MAX_CHUNK_CHARS = 500

#: Soft target (code points): tiny consecutive blocks of the *same* section are
#: merged while the result stays at or below this size; oversized blocks are cut
#: into pieces of about this size.
SOFT_TARGET_CHARS = 350

#: Smallest accepted ``max_chars`` (code points); a fenced code piece needs room
#: for its fence lines.
MIN_MAX_CHARS = 40

#: A block shorter than this (code points) is merged with the next block of its
#: section even when the merged text exceeds the soft target (up to ``max_chars``).
_MIN_STANDALONE_CHARS = 100


@dataclass
class Block:
    """One paragraph, list item, quote, code fence or table of a section, as text."""

    text: str
    joiner: str = "\n\n"
    kind: str = "text"  # text | code | table
    sticky: bool = False  # belongs with the next block (a label, caption, tab name)
    fence: tuple[str, str] = ("", "")  # (opening line, closing line) for code


_LIST_OR_QUOTE = re.compile(r"\s*(?:[-*+]|\d+[.)]|>)(?:\s|$)")
_SENTENCE_END = re.compile(r"(?<=[。！？；!?;])[”’」』）)\]]*|(?<=\.)[ \t]+|\n")
# ASCII "," and ":" end a clause unless a digit follows (1,000 and 10:30 stay whole)
_CLAUSE_END = re.compile(r"(?<=[，、：）)])|(?<=[,:])(?!\d)|(?<=[ \t])")


def _safe_cut(s: str, limit: int) -> int:
    """A cut position <= limit that does not split a combining sequence."""
    cut = limit
    while cut > 1 and cut < len(s):
        ch = s[cut]
        prev = s[cut - 1]
        if (
            unicodedata.combining(ch)
            or ch in "\u200d\ufe0f\ufe0e"
            or prev == "\u200d"
            or 0x1F3FB <= ord(ch) <= 0x1F3FF
            or unicodedata.category(ch) == "Mn"
        ):
            cut -= 1
            continue
        break
    return cut if cut > 0 else limit


def _pieces(text: str, pattern: re.Pattern[str]) -> list[str]:
    """``text`` cut after each match of ``pattern``, never inside a Markdown web link or a bare URL."""
    out: list[str] = []
    pos = 0
    links = unbreakable_spans(text)
    for m in pattern.finditer(text):
        end = m.end()
        if any(start < end < stop for start, stop in links):
            continue
        if end > pos:
            out.append(text[pos:end])
            pos = end
    if pos < len(text):
        out.append(text[pos:])
    return out


def _hard_split(text: str, limit: int) -> list[str]:
    out = []
    while len(text) > limit:
        cut = _safe_cut(text, limit)
        out.append(text[:cut])
        text = text[cut:]
    if text:
        out.append(text)
    return out


def _pack(units: Iterable[str], target: int, limit: int, finer: Callable[[str], list[str]]) -> list[str]:
    """Greedy packing of ``units`` into strings of at most ``target`` code points
    (a single unit up to ``limit``); a unit over ``limit`` goes through ``finer``."""
    out: list[str] = []
    cur = ""
    for unit in units:
        if len(unit) > limit:
            if cur:
                out.append(cur)
                cur = ""
            out.extend(finer(unit))
            continue
        if len(cur) + len(unit) <= target or (not cur):
            cur += unit
        else:
            out.append(cur)
            cur = unit
    if cur:
        out.append(cur)
    return out


def _split_text(text: str, target: int, limit: int) -> list[str]:
    def by_clause(s: str) -> list[str]:
        return _pack(_pieces(s, _CLAUSE_END), target, limit, lambda u: _hard_split(u, limit))

    parts = _pack(_pieces(text, _SENTENCE_END), target, limit, by_clause)
    return [p.strip() for p in parts if p.strip()]


def _split_code(block: Block, target: int, limit: int) -> list[str]:
    opening, closing = block.fence
    body = block.text[len(opening) + 1 : len(block.text) - len(closing)]
    overhead = len(opening) + len(closing) + 2
    if overhead > limit // 2:
        opening = closing  # drop the info string to make room
        overhead = len(opening) + len(closing) + 2
    budget_t, budget_l = max(1, target - overhead), max(1, limit - overhead)
    lines = body.splitlines(keepends=True)
    pieces = _pack(lines, budget_t, budget_l, lambda u: _hard_split(u, budget_l))
    out = []
    for p in pieces:
        if not p.endswith("\n"):
            p += "\n"
        out.append(f"{opening}\n{p}{closing}")
    return out


def _split_table(block: Block, target: int, limit: int) -> list[str]:
    lines = block.text.split("\n")
    head: list[str] = []
    if block.fence != ("", "") and len(block.fence[0]) + len(block.fence[1]) + 2 <= limit // 2:
        head = lines[:2]
        lines = lines[2:]
    head_len = sum(len(h) + 1 for h in head)
    units = [ln + "\n" for ln in lines]
    bodies = _pack(
        units, max(1, target - head_len), max(1, limit - head_len), lambda u: _hard_split(u, max(1, limit - head_len))
    )
    return ["\n".join(head + [b.rstrip("\n")]) if head else b.rstrip("\n") for b in bodies]


def _split_block(block: Block, target: int, limit: int) -> list[Block]:
    if len(block.text) <= limit:
        return [block]
    if block.kind == "code":
        texts = _split_code(block, target, limit)
    elif block.kind == "table":
        texts = _split_table(block, target, limit)
    else:
        texts = _split_text(block.text, target, limit)
    return [
        Block(t, block.joiner if k == 0 else "\n", block.kind, False, block.fence)
        for k, t in enumerate(texts)
        if t.strip()
    ]


def section_texts(blocks: list[Block], max_chars: int, *, labels: Collection[str]) -> list[str]:
    """The chunk texts (each 1..``max_chars`` code points, stripped) of one
    section's ``blocks``, in order. ``labels`` are the texts of admonition
    labels: a label runs into the text block after it without a separator,
    and a chunk that is only a label is dropped."""
    target = min(SOFT_TARGET_CHARS, max_chars)
    min_standalone = min(_MIN_STANDALONE_CHARS, max_chars // 4)
    pieces: list[Block] = []
    for b in blocks:
        pieces.extend(_split_block(b, target, max_chars))
    out: list[str] = []
    cur: str | None = None
    prev: Block | None = None  # the last block added to ``cur``
    for b in pieces:
        if cur is None or prev is None:
            cur, prev = b.text, b
            continue
        joiner = b.joiner
        if prev.sticky:
            # a bare label ("说明：") runs into the text it introduces
            runs_on = b.kind == "text" and not _LIST_OR_QUOTE.match(b.text)
            joiner = "" if prev.text.strip() in labels and runs_on else "\n"
        combined = len(cur) + len(joiner) + len(b.text)
        if combined <= target or ((prev.sticky or len(cur.strip()) < min_standalone) and combined <= max_chars):
            cur = cur + joiner + b.text
        else:
            out.append(cur)
            cur = b.text
        prev = b
    if cur is not None:
        out.append(cur)
    result: list[str] = []
    for t in out:
        t = t.strip()
        if not t or t in labels:
            continue
        # safety net: an oversized fence marker or header can defeat the budgets
        if len(t) > max_chars:
            result.extend(p for p in _hard_split(t, max_chars) if p.strip())
        else:
            result.append(t)
    return result
