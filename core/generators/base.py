"""The generator interface: one abstract method.

``generate(question, chunks, history, on_text=None)`` returns a ``Draft``
(answer parts and supports in the provider's units) and, while it works, hands
the visible answer text to ``on_text`` piece by piece (the pieces add up to a
prefix of ``Draft.text``; a generator that cannot stream calls it once). The
pipeline and the tests call the same method. Grounding happens afterwards,
outside the generator. Identity (``name``, ``model``) lives in class attributes;
names and labels of the configured generators are ``core.generators.registry``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Callable, Sequence

from core.models import Draft, GeneratorInfo, RetrievedChunk


class Turn(tuple):
    """(question, clean answer text) of an earlier turn; no markers or HTML."""


OnText = Callable[[str], None]


class Generator(ABC):
    """``own_retrieval`` is True for generators that find their own evidence
    (Gemini with Google Search or File Search): the pipeline then skips our
    retrieval and the ``no_evidence`` stop, and cites what the generator returns
    in ``Draft.extra_chunks``."""

    name: str = "generator"
    model: str | None = None
    own_retrieval: bool = False
    #: Whether that own retrieval reads *our* documents through an index we cannot limit to
    #: a selection (a File Search store built from the knowledge bases). The pipeline then
    #: refuses it unless the question may search every knowledge base
    #: (``core.engine.own_retrieval_refusal``); Google Search reads only the public web.
    reads_knowledge_bases: bool = False

    #: Whether the generator reads the earlier turns itself (an LLM). One that does not
    #: (the extractive one) is given the question resolved against them instead
    #: (``core.engine.ask``).
    uses_history: bool = True
    #: ``(question, sentences) -> cosines`` (-1..1, one per sentence) from a multilingual sentence
    #: embedder, set by the engine when it has one (``core.store.sentence_vectors``); None without.
    #: A generator may read it (the extractive one does, when no sentence of the evidence shares a term
    #: with the question); others ignore it.
    sentence_similarity: Callable[[str, Sequence[str]], list[float]] | None = None

    @property
    def info(self) -> GeneratorInfo:
        return GeneratorInfo(name=self.name, model=self.model)

    @abstractmethod
    def generate(
        self,
        question: str,
        chunks: Sequence[RetrievedChunk],
        history: Sequence[tuple[str, str]] = (),
        on_text: OnText | None = None,
    ) -> Draft:
        """Answer ``question`` from ``chunks`` only.

        ``history`` holds earlier (question, answer) turns as clean text (no
        markers, no 本段无出处). ``on_text`` (optional) receives the visible
        answer text as it arrives; the returned ``Draft`` is authoritative.
        Raises a ``core.errors.GenerationError`` subclass when the provider fails.
        """

    def rewrite_query(self, question: str, history: Sequence[tuple[str, str]]) -> str | None:
        """A self-contained search query for ``question`` in the knowledge base's language,
        resolved against ``history`` (earlier (question, answer) turns, clean text), for
        retrieval (``Settings.llm_query_help``); None when this generator does not help
        retrieval (the default). Raises a ``GenerationError`` subclass when the provider fails."""
        return None
