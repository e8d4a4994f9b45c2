"""The generator interface: one abstract method.

``generate(question, chunks, history)`` returns a ``Draft`` (answer parts and
supports in the provider's units); grounding happens afterwards, outside the
generator. Identity (``name``, ``model``) lives in class attributes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Iterator, Sequence

from core.models import Draft, GeneratorInfo, RetrievedChunk


class Turn(tuple):
    """(question, clean answer text) of an earlier turn; no markers or HTML."""


class Generator(ABC):
    """``own_retrieval`` is True for generators that find their own evidence
    (Gemini with Google Search or File Search): the pipeline then skips our
    retrieval and the ``no_evidence`` stop, and cites what the generator returns
    in ``Draft.extra_chunks``."""

    name: str = "generator"
    model: str | None = None
    own_retrieval: bool = False

    #: Whether the generator reads the earlier turns itself (an LLM). One that does not
    #: (the extractive one) is given the question resolved against them instead
    #: (``core.pipeline.ask``).
    uses_history: bool = True

    @property
    def info(self) -> GeneratorInfo:
        return GeneratorInfo(name=self.name, model=self.model)

    @abstractmethod
    def generate(
        self,
        question: str,
        chunks: Sequence[RetrievedChunk],
        history: Sequence[tuple[str, str]] = (),
    ) -> Draft:
        """Answer ``question`` from ``chunks`` only.

        ``history`` holds earlier (question, answer) turns as clean text.
        Raises a ``core.errors.GenerationError`` subclass when the provider fails.
        """

    def stream(
        self,
        question: str,
        chunks: Sequence[RetrievedChunk],
        history: Sequence[tuple[str, str]] = (),
    ) -> Iterator[str | Draft]:
        """Yield text pieces as they arrive, then the final ``Draft`` last.

        The default yields the whole answer at once.
        """
        draft = self.generate(question, chunks, history)
        yield draft.text
        yield draft
