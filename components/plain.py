"""User text as plain text in Streamlit's Markdown: :func:`plain`, the one helper for it.

Streamlit renders Markdown (GitHub-flavoured, with ``~single tilde~`` strike-through, ``:red[…]``
colour directives, ``:emoji:`` and ``:material/icon:`` shortcodes, ``$math$``) in ``st.markdown``,
``st.caption``, ``st.info``/``warning``/``error``/``success``, ``st.toast`` and in the *labels* of
widgets (``st.button``, ``st.expander``, ``st.popover``, ``st.page_link``, widget labels, radio and
pills options). Any user-supplied string shown there - conversation titles, knowledge-base and
document titles, file names, error details quoting them - goes through :func:`plain`.

Options of ``st.selectbox`` and ``st.multiselect`` (their ``format_func`` output) are shown as
plain text by Streamlit (no Markdown): they are NOT passed through :func:`plain` (the backslashes
would show). Where the layout allows, ``st.text`` is simpler still. Light to import (the standard library only).
"""

from __future__ import annotations

import re
import string

from core.public import clean_controls

_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
# emoji and icon shortcodes (``:ok:``, ``:material/face:``) are matched on the text after its
# backslash escapes are resolved; a word joiner after the colon keeps them apart
_SHORTCODE = re.compile(r"(\\:)(?=[\w/+-]+\\:)")


def plain(text: str) -> str:
    """``text`` as Streamlit Markdown that shows exactly ``text``: every ASCII punctuation
    character backslash-escaped (CommonMark lets any be), a word joiner (U+2060) after the
    opening colon of a ``:shortcode:``, control characters as U+FFFD, line breaks as spaces
    (a label is one line)."""
    one_line = re.sub(r"[\r\n]+", " ", clean_controls(text))
    return _SHORTCODE.sub("\\1\u2060", _PUNCTUATION.sub(r"\\\1", one_line))
