"""Retrieval: which chunks answer a question, and whether they are enough.

What a question asks, read once into one value every stage reads (``question``: ``analyse``), what is
searched for (``query``: follow-ups, cross-script questions; ``aspects``: questions for drawbacks; ``parts``:
each part of a question that asks several things), hybrid retrieval and reciprocal-rank fusion (``hybrid``), and the sufficiency decision
that says ``no_evidence`` (``sufficiency``, its shipped coefficients in ``sufficiency_model`` +
``sufficiency.json``, term features in ``sufficiency_terms``). BM25 itself is ``core.lexical`` (the
store builds it, the verifier and the extractive generator tokenize with it).

May import: the ground floor and ``core.store`` (the index it searches).
"""
