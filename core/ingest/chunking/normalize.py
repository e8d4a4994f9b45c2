"""Text normalisation of the chunker: input clean-up, private-use sentinels,
soft-break joining and whitespace tidying.

Every rule here shapes the normalized document text, whose hash is the
document version inside every chunk id (``source@version#ordinal``): changing
any of them changes every id.

* :func:`sanitize` drops a leading UTF-8 BOM (so ``\\ufeff---`` still opens
  front matter), turns ``\\r\\n`` / ``\\r`` into ``\\n`` and replaces the five
  private-use code points used internally as sentinels (U+E000..U+E004) with
  U+FFFD.
* Sentinels: :data:`SOFTBREAK` marks a Markdown soft line break until
  :func:`resolve_softbreaks` joins it; :data:`CODE_OPEN` / :data:`CODE_CLOSE`
  wrap the index of protected inline code; :data:`SC_OPEN` / :data:`SC_CLOSE`
  wrap the index of a Hugo shortcode placeholder.
* :func:`tidy` joins soft breaks (no space between CJK characters / CJK
  punctuation, one space otherwise), collapses runs of spaces, drops spaces
  before full-width punctuation and between two Han ideographs, trims line
  ends and collapses blank-line runs.

All lengths and positions are Unicode code points.
"""

from __future__ import annotations

import re

from core.cjk import IDEOGRAPH_CLASS, is_cjk, is_cjk_punct

# Private-use sentinels (input occurrences are replaced by U+FFFD first).
SOFTBREAK = "\ue000"
CODE_OPEN, CODE_CLOSE = "\ue001", "\ue002"
SC_OPEN, SC_CLOSE = "\ue003", "\ue004"
_SENTINELS = re.compile("[\ue000-\ue004]")
SC_PLACEHOLDER = re.compile(SC_OPEN + r"(\d+)" + SC_CLOSE)
CODE_PLACEHOLDER = re.compile(CODE_OPEN + r"(\d+)" + CODE_CLOSE)

# One space between two CJK ideographs carries no meaning in Chinese prose.
_CJK_SPACE = re.compile(f"(?<={IDEOGRAPH_CLASS}) (?={IDEOGRAPH_CLASS})")

# Used both in Chinese and Latin text; joined without a space next to CJK.
_NEUTRAL = frozenset("“”‘’—…·")


def sanitize(text: str) -> str:
    """``text`` without a leading BOM, with ``\\n`` line ends and no sentinel code points."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _SENTINELS.sub("\ufffd", text)


def _join_without_space(left: str, right: str) -> bool:
    if not left or not right:
        return True
    if is_cjk_punct(left) or is_cjk_punct(right):
        return True
    lc = is_cjk(left) or left in _NEUTRAL
    rc = is_cjk(right) or right in _NEUTRAL
    return lc and rc and (is_cjk(left) or is_cjk(right))


def resolve_softbreaks(s: str) -> str:
    """Replace each :data:`SOFTBREAK` by nothing (between CJK text) or one space."""
    if SOFTBREAK not in s:
        return s

    def visible(ch: str) -> str:
        # protected code counts as Latin text
        return "a" if ch in (CODE_OPEN, CODE_CLOSE) else ch

    pieces = s.split(SOFTBREAK)
    acc = pieces[0]
    for piece in pieces[1:]:
        acc = acc.rstrip(" \t")
        right = piece.lstrip(" \t")
        lc = visible(acc[-1]) if acc else ""
        rc = visible(right[0]) if right else ""
        if lc == "\n" or rc == "\n" or _join_without_space(lc, rc):
            acc += right
        else:
            acc += " " + right
    return acc


def tidy(s: str, *, single_line: bool = False) -> str:
    """Soft breaks joined and whitespace tidied (see the module docstring);
    with ``single_line`` every line break becomes one space. Stripped."""
    s = s.replace("\u00a0", " ")
    s = resolve_softbreaks(s)
    s = re.sub(r"[ \t]{2,}", " ", s)
    s = re.sub(r"[ \t]+(?=[，。；：！？、）」』】])", "", s)
    s = _CJK_SPACE.sub("", s)
    s = re.sub(r"[ \t]*\n[ \t]*", "\n", s)
    s = re.sub(r"\n{3,}", "\n\n", s)
    if single_line:
        s = re.sub(r"\s*\n\s*", " ", s)
    return s.strip()
