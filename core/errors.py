"""The product's exception tree. Third-party errors are mapped at their adapter
with ``raise OurError(...) from exc``; business outcomes (``no_evidence``, a
safety block) are record statuses, never exceptions.

    AppError
    ├── ConfigError            a setting is missing or invalid (names the variable)
    ├── IngestError            a source could not be read or parsed
    ├── IndexError_            the vector / lexical index cannot be opened or written
    │   └── EmbeddingMismatchError   the collection was built with another model
    ├── EmbeddingError         the embedding backend failed to load or encode
    ├── RetrievalError         a query could not be run
    ├── GenerationError        the generator failed
    │   ├── MissingKeyError    no API key configured
    │   ├── AuthenticationError  the key was refused
    │   ├── QuotaError         rate limit or quota exhausted (after retries)
    │   ├── GeneratorTimeoutError  the provider did not answer in time
    │   └── GeneratorNetworkError  the provider could not be reached
    ├── GroundingError         offsets or supports are malformed (normally audited, not raised)
    │   └── OffsetError        an offset is not on a character boundary / out of range
    └── RecordError            the answer store cannot be read or written
        └── UnsavedRecordError  a finished answer could not be stored (carries it)
"""

from __future__ import annotations


class AppError(Exception):
    """Base of every error the product raises on purpose.

    ``str(err)`` is a message a user can act on.
    """


class ConfigError(AppError):
    pass


class IngestError(AppError):
    pass


class IndexError_(AppError):  # noqa: N801 - trailing underscore avoids the builtin
    pass


class EmbeddingMismatchError(IndexError_):
    pass


class EmbeddingError(AppError):
    pass


class RetrievalError(AppError):
    pass


class GenerationError(AppError):
    pass


class MissingKeyError(GenerationError):
    pass


class AuthenticationError(GenerationError):
    pass


class QuotaError(GenerationError):
    pass


class GeneratorTimeoutError(GenerationError):
    pass


class GeneratorNetworkError(GenerationError):
    pass


class GroundingError(AppError):
    pass


class OffsetError(GroundingError):
    pass


class RecordError(AppError):
    pass


class UnsavedRecordError(RecordError):
    """A finished answer could not be stored. ``record`` (an ``AnswerRecord``) is the answer
    as it would have been stored, so the page can still show the question and what was answered."""

    def __init__(self, message: str, record: object) -> None:
        super().__init__(message)
        self.record = record
