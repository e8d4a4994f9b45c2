"""Static files of the components: the stylesheets, read with ``importlib.resources``.

:func:`style` wraps one of them in a ``<style>`` element, so an HTML fragment
(the chat page's ``st.html``, ``python -m components RECORD.json``) stays
self-contained.
"""

from __future__ import annotations

from importlib.resources import files


def style(name: str) -> str:
    """``<style>\\n{contents of components/static/NAME}</style>``; the file is UTF-8 CSS.

    Raises ``FileNotFoundError`` for a name that is not shipped (a packaging fault, not user input).
    """
    return "<style>\n" + files(__name__).joinpath(name).read_text(encoding="utf-8") + "</style>"
