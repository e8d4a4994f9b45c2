"""Verification: does a cited chunk say what the sentence says?

The verifier (``support``: aligned quote, probability, verdict; its cues in ``cues``; the shipped
model in ``support_model`` + ``support_model.json``) and which verdict a marker shows (``verdicts``).
The 核查 turn that runs it over a knowledge base or pasted sources is ``core.check``; its figures on
CiteCheck and on the claims set are ``core.evaluation.citecheck`` and ``core.evaluation.claims``.

May import: the ground floor and ``core.grounding`` (the sentences it verifies).
"""
