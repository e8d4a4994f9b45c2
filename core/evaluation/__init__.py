"""Evaluation library: retrieval, answer, citation, abstention and latency
figures for one configuration, through the same ``core.engine.ask`` the UI
uses. The command ``python -m core eval QUESTIONS DOCS...`` (``core/cli/evaluate.py``)
parses arguments and prints; this package has no ``main``.

Modules, one job each: ``questions`` (the two input formats), ``metrics`` (each
figure of one question), ``runner`` (index the documents, ask every question:
``run_eval``), ``report`` (aggregate rows into the report, format tables).
The names below are re-exported here; the module docs hold the details.

Input
-----
A JSON Lines file, one question per line, in one of two formats.

* ``shared/eval-dev/cmrc/questions.jsonl`` (and ``data/eval/k8s-dev``)::

    {"id": "...", "question": "...", "answers": [{"text": "..."}, ...],
     "context_id": "...", "context_file": "..."}

  An empty ``answers`` list means unanswerable. ``answer_start``,
  ``context_id`` and ``context_file`` are read but not needed. The kind is
  ``answerable`` or ``unanswerable``.
* ``shared/eval-dev/k8s/questions.jsonl`` (see its README)::

    {"id": "...", "question": "...", "kind": "followup", "history": ["..."],
     "gold": [{"file": "...", "heading_path": [...], "answer_text": "..."}]}

  ``kind`` is one of ``paraphrase | english | followup | multi |
  unanswerable``; ``history`` holds earlier user questions, oldest first, and
  is passed to ``core.engine.ask`` as the conversation; an empty ``gold``
  means unanswerable. For ``multi`` every gold entry is required, for the
  other kinds each entry is an acceptable alternative. The documents (folders or files) are ingested into a temporary data
folder (or ``--data-dir``, which keeps the embedding cache between runs; it is
made to hold exactly the given documents).

Metrics (every share is a fraction 0..1; latency in milliseconds)
----------------------------------------------------------------
* **Gold chunk.** A chunk *contains* a gold answer when any gold answer text is
  a substring of the chunk text (exact, case-sensitive). A gold string that also
  occurs in an unrelated chunk therefore counts there too (rare for spans of
  several characters; a known leniency).
* **Retrieval** (answerable questions only): ``recall@k`` is the share of
  questions with a gold chunk among the first ``k`` fused results (before the
  evidence threshold; the ranking is independent of ``top_k``), ``mrr`` the
  mean of ``1/rank`` of the first gold chunk within the first 10 (MRR@10; 0
  when none). ``gold_in_evidence`` is the
  share whose gold chunk passed the evidence threshold, i.e. reached the
  generator.
* **Answer** (answerable questions; an abstention scores 0):
  ``contains_gold`` is the share of answers that contain a gold answer after
  CMRC normalization (lower case, punctuation and whitespace removed), and
  ``f1`` the character-level F1 of the CMRC 2018 evaluation script
  (``cmrc2018_evaluate.py`` in https://github.com/ymcui/cmrc2018: Chinese
  characters are single tokens, other runs split into words; F1 from the
  longest common *contiguous* token run, max over gold answers). One deviation:
  ``nltk.word_tokenize`` for non-Chinese runs is replaced by ``\\w+`` / single
  symbol tokens. Extractive answers are whole sentences, so their F1 is low by
  construction; compare F1 only between configurations of one generator.
* **Citations** (pooled over all answered questions): a support is *valid* when
  one chunk it cites contains the cited answer text (``answer_text[start:end]``,
  stripped) verbatim — the extractive generator quotes verbatim — or contains a
  gold answer that the cited text states. ``precision`` is valid supports / all
  supports; ``recall`` is answer sentences (``core.grounding.layout.sentence_spans``
  units with visible text) overlapped by a valid support / all answer sentences.
* **Abstention**: ``unanswerable_no_evidence`` is the share of unanswerable
  questions answered ``no_evidence`` (higher is better);
  ``answerable_no_evidence`` the share of answerable ones wrongly answered
  ``no_evidence`` (lower is better).
* **Latency**: wall time of one ``ask`` (retrieve + generate + ground), median
  and p95 (nearest rank), in milliseconds; one untimed warm-up question runs
  first, so the figures are warm.
* **By kind** (``by_kind``, one entry per ``kind`` plus ``overall``):
  ``no_evidence`` share; ``gold_in_cited`` — answerable questions whose gold
  passage is in the *cited* evidence (a chunk some support cites after the
  display threshold; for ``multi`` every passage, ``gold_in_cited_any`` at
  least one); ``cited_precision`` — of the answerable questions that got an
  answer (``answered``/``unverifiable``), the share whose cited evidence holds
  the gold passage (same rule); ``recall@5`` and ``contains_gold`` as above.
  A gold passage is in a chunk when its ``answer_text`` (whitespace runs
  collapsed) is a substring of the chunk text (same collapse) and, when the
  gold names a ``file``, the chunk's ``source_id`` is that file.
* **Goals** (``goals``): the figures issue 12 sets targets for, in one place.

The metric docs above are the contract for all four modules.
"""

from core.evaluation.metrics import (
    RECALL_KS,
    answer_contains_gold,
    citation_counts,
    cited_chunks,
    contains_gold,
    f1_score,
    first_gold_rank,
    gold_in_chunks,
    mean_reciprocal_rank,
    mixed_segmentation,
    normalize_answer,
    passage_in_chunk,
    percentile,
    recall_at,
    support_valid,
)
from core.evaluation.questions import EvalQuestion, GoldPassage, load_questions
from core.evaluation.report import by_kind, format_kind_table, format_table, goals, summarize
from core.evaluation.runner import RecordingRetriever, run_eval

__all__ = [
    "RECALL_KS",
    "EvalQuestion",
    "GoldPassage",
    "RecordingRetriever",
    "answer_contains_gold",
    "by_kind",
    "citation_counts",
    "cited_chunks",
    "contains_gold",
    "f1_score",
    "first_gold_rank",
    "format_kind_table",
    "format_table",
    "gold_in_chunks",
    "goals",
    "load_questions",
    "mean_reciprocal_rank",
    "mixed_segmentation",
    "normalize_answer",
    "passage_in_chunk",
    "percentile",
    "recall_at",
    "run_eval",
    "summarize",
    "support_valid",
]
