"""Grounding: a generator's draft becomes code-point supports on the answer.

Provider offsets (UTF-8 bytes, UTF-16 units) to code points (``offsets``), supports normalised and
audited (``supports``), the answer's Markdown structure, sentences and marker placement
(``answer_doc``, ``placement``, ``layout``: slots and segments).

May import: the ground floor only.
"""
