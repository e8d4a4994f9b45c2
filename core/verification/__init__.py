"""Verification: does a cited chunk say what the sentence says?

The verifier (``support``: aligned quote, probability, verdict; its cues in ``cues``; the shipped
model in ``support_model`` + ``support_model.json``), which verdict a marker shows (``verdicts``),
the 核查 mode over a knowledge base or pasted sources (``check``), and the figures on CiteCheck and
on the claims set (``citecheck_eval``, ``claims_eval``).

May import: the ground floor, ``core.grounding``, and for ``check`` the engine's parts it runs
(``core.retrieval``, ``core.records``). Never the UI.
"""
