"""A markdown-it plugin: emphasis next to CJK punctuation, as CJK writers expect.

CommonMark's flanking rules assume words separated by spaces: in
``这是**“重要”**内容。`` the opening ``**`` is followed by punctuation (“) but
preceded by a letter (是), so it is not left-flanking, and the text keeps
literal ``**``. The CommonMark CJK-friendly amendment draft
(https://github.com/tats-u/markdown-cjk-friendly, "specification.md") adds
one case to each rule; this plugin applies it:

* a delimiter run followed by punctuation is still **left-flanking** when it is
  preceded by a CJK character;
* a delimiter run preceded by punctuation is still **right-flanking** when it is
  followed by a CJK character.

"CJK character" here is :func:`core.cjk.is_cjk` (the code base's one
definition: Han, kana, Bopomofo, Hangul, CJK and full-/half-width punctuation
and forms; not emoji). The draft's own definition (East Asian Width W/F/H, not
an RGI emoji, or Hangul script) differs only for scripts outside Chinese,
Japanese and Korean prose (Yi, Tangut, vertical and small form variants,
conjoining Hangul Jamo). Everything else in markdown-it is unchanged,
including the ``*`` / ``_`` intraword rules. The parser is changed per
``MarkdownIt`` instance (its inline parser builds a :class:`CjkStateInline`),
never globally, and no source text is rewritten, so token offsets stay the
offsets of the source (code points).
"""

from __future__ import annotations

import types

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.rules_inline.state_inline import Scanned, StateInline
from markdown_it.token import Token

from core.cjk import is_cjk


def _punct(ch: str) -> bool:
    return isMdAsciiPunct(ord(ch)) or isPunctChar(ch)


class CjkStateInline(StateInline):
    """``StateInline`` whose ``scanDelims`` applies the CJK-friendly flanking cases."""

    def scanDelims(self, start: int, canSplitWord: bool) -> Scanned:  # noqa: N802,N803 - markdown-it's names
        pos, maximum, marker = start, self.posMax, self.src[start]
        last = self.src[start - 1] if start > 0 else " "  # line start counts as whitespace
        while pos < maximum and self.src[pos] == marker:
            pos += 1
        nxt = self.src[pos] if pos < maximum else " "  # line end counts as whitespace
        last_punct, next_punct = _punct(last), _punct(nxt)
        last_ws, next_ws = isWhiteSpace(ord(last)), isWhiteSpace(ord(nxt))
        left = not next_ws and (not next_punct or last_ws or last_punct or is_cjk(last))
        right = not last_ws and (not last_punct or next_ws or next_punct or is_cjk(nxt))
        can_open = left and (canSplitWord or not right or last_punct)
        can_close = right and (canSplitWord or not left or next_punct)
        return Scanned(can_open, can_close, pos - start)


def cjk_emphasis_plugin(md: MarkdownIt) -> None:
    """Make ``md``'s inline parser use :class:`CjkStateInline` (this instance only)."""
    inline = md.inline

    def parse(self, src: str, md_: MarkdownIt, env, tokens: list[Token]) -> list[Token]:  # noqa: ANN001
        state = CjkStateInline(src, md_, env, tokens)
        self.tokenize(state)
        for rule in self.ruler2.getRules(""):
            rule(state)
        return state.tokens

    inline.parse = types.MethodType(parse, inline)  # type: ignore[method-assign]
