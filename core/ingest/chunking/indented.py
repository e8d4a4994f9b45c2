"""Is an indented code block really prose? (CommonMark makes any paragraph
indented by four spaces a code block; Chinese writers indent paragraphs, and an
over-indented paragraph after a list item lands there too.)

:func:`is_indented_prose` decides for the *content* of an indented code block
(markdown-it's ``code_block`` token, indentation already removed); fenced code
is always code. The rule, general and conservative (a real code block must
stay code):

1. at least half of the non-whitespace characters are CJK (:func:`core.cjk.is_cjk`,
   Han and CJK punctuation): Chinese sentences, not commands with a Chinese word;
2. the block ends a sentence: its last non-blank line ends with ``。！？…``
   (optionally followed by closing quotes or brackets ``”’」』）》``), which
   command output and identifiers do not;
3. no code tokens: none of ``{ } < > = ; $ | \\`` and no line that starts like
   a comment, prompt or list (``#``, ``//``, ``/*``, ``--``, ``*``, ``-``, ``>``).

English prose indented by four spaces stays code (rule 1): in technical
documents it is far more often a command or an output sample. Counts are code
points.
"""

from __future__ import annotations

import re

from core.cjk import is_cjk

_SENTENCE_END = re.compile(r"[。！？…][”’」』）》]*$")
_CODE_CHARS = re.compile(r"[{}<>=;$|\\]")
_CODE_LINE_START = re.compile(r"(?:#|//|/\*|--|\*|-|>)")


def is_indented_prose(content: str) -> bool:
    """True when the indented code block ``content`` reads as prose (rules in the module docstring)."""
    lines = [ln.strip() for ln in content.split("\n") if ln.strip()]
    if not lines or not _SENTENCE_END.search(lines[-1]):
        return False
    if _CODE_CHARS.search(content) or any(_CODE_LINE_START.match(ln) for ln in lines):
        return False
    visible = [ch for ch in content if not ch.isspace()]
    return 2 * sum(1 for ch in visible if is_cjk(ch)) >= len(visible)
