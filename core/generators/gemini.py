"""Gemini generators through the official ``google-genai`` SDK (the only module
that imports ``google.genai``).

Three generators, made by ``make_gemini_generator(name, settings)``:

``gemini`` — ``GeminiGenerator``
    Answers over *our* retrieved chunks. The evidence goes into the prompt as
    blocks headed ``### chunk_id: <id>`` plus ``heading_path: A > B``; the
    system instruction allows only those ids as citations and asks the model
    to say where the evidence is missing. Structured output
    (``response_mime_type="application/json"``, ``response_schema`` =
    ``StructuredAnswer``: a list of ``{text, chunk_ids}`` sentences). The
    application joins the sentences into the answer and builds one
    ``DraftSupport`` per cited sentence in **code points**; ids are passed
    through and checked later by ``core.grounding``.
``gemini-search`` — ``GeminiSearchGenerator`` (Google Search tool)
``gemini-file-search`` — ``GeminiFileSearchGenerator`` (File Search tool over
    one File Search store)
    Gemini grounds the answer itself; ``candidate.grounding_metadata``
    (google-genai ``types.GroundingMetadata``) is parsed by
    ``core.generators.gemini_parse`` into supports in **UTF-8 bytes**
    (``unit="utf8"``, per part) and ``extra_chunks``.

Streaming (``stream``) uses ``generate_content_stream``. Mode 1 yields the
sentence texts as they can be read from the growing JSON (complete sentences
and the growing last one; the pieces add up to a prefix of ``Draft.text``).
Mode 2 yields each non-thought text part as it arrives. The final ``Draft``
comes last and is authoritative.

Errors (``raise X from exc``)::

    google.genai.errors.ClientError 401/403, 400 "API key not valid" → AuthenticationError
    ClientError 429 (after the SDK's own retries, HttpRetryOptions)    → QuotaError
    httpx(2).TimeoutException, HTTP 408/504                               → GeneratorTimeoutError
    httpx(2).TransportError (connect refused, connection closed, ...)     → GeneratorNetworkError
    any other APIError (404 model, 5xx, ...)                           → GenerationError
    no API key                                                         → MissingKeyError (at construction)

The SDK's base-URL resolution (``GOOGLE_GEMINI_BASE_URL``) is left alone;
``base_url`` / ``http_options`` exist for tests.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import httpx
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from core.errors import (
    AuthenticationError,
    ConfigError,
    GenerationError,
    GeneratorNetworkError,
    GeneratorTimeoutError,
    MissingKeyError,
    QuotaError,
)
from core.generators.base import Generator
from core.generators.gemini_parse import (
    BLOCK_FINISH_REASONS,
    StructuredAnswer,
    StructuredStreamPreview,
    blocked_draft,
    candidate_parts,
    draft_from_grounded_parts,
    draft_from_interaction,
    draft_from_structured,
    enum_name,
    parse_structured_answer,
)
from core.models import Draft, RetrievedChunk

__all__ = [
    "GeminiGenerator",
    "GeminiSearchGenerator",
    "GeminiFileSearchGenerator",
    "make_gemini_generator",
    "default_retry_options",
    "build_evidence_prompt",
    "draft_from_interaction",
    "FILE_SEARCH_STORE_ENV",
    "FileSearchStoreResult",
    "create_file_search_store",
    "store_main",
]

try:  # google-genai 3.x sends through httpx2 (an httpx fork); map both
    import httpx2  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    httpx2 = None

_TIMEOUT_EXC: tuple[type[BaseException], ...] = tuple(
    m.TimeoutException for m in (httpx, httpx2) if m is not None
)
_TRANSPORT_EXC: tuple[type[BaseException], ...] = tuple(
    m.TransportError for m in (httpx, httpx2) if m is not None
)

DEFAULT_MODEL = "gemini-2.5-flash"
FILE_SEARCH_STORE_ENV = "YINZHENG_GEMINI_FILE_SEARCH_STORE"
RETRY_STATUS_CODES = [408, 429, 500, 502, 503, 504]

MISSING_KEY_MESSAGE = (
    "Gemini needs an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment "
    "or in .streamlit/secrets.toml and restart, or choose the extractive generator."
)


def default_retry_options(
    attempts: int = 4, initial_delay: float = 1.0, max_delay: float = 20.0, jitter: float = 1.0
) -> types.HttpRetryOptions:
    """Retry policy handed to the SDK (``types.HttpRetryOptions``): exponential
    backoff on 408/429/5xx and transient transport errors. Delays in seconds."""
    if attempts < 1:
        raise ValueError(f"attempts must be >= 1, got {attempts}")
    return types.HttpRetryOptions(
        attempts=attempts,
        initial_delay=initial_delay,
        max_delay=max_delay,
        exp_base=2.0,
        jitter=jitter,
        http_status_codes=list(RETRY_STATUS_CODES),
    )


def _http_options(
    http_options: types.HttpOptions | None,
    base_url: str | None,
    timeout_s: float | None,
    retry_options: types.HttpRetryOptions | None,
) -> types.HttpOptions:
    opts = http_options.model_copy(deep=True) if http_options is not None else types.HttpOptions()
    if base_url:
        opts.base_url = base_url
    if opts.timeout is None and timeout_s is not None:
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        opts.timeout = int(timeout_s * 1000)  # HttpOptions.timeout is in milliseconds
    if opts.retry_options is None:
        opts.retry_options = retry_options or default_retry_options()
    return opts


def _new_client(api_key: str | None, http_options: types.HttpOptions) -> genai.Client:
    """A Gemini Developer API client; raises ``MissingKeyError`` without a key."""
    if not api_key:
        raise MissingKeyError(MISSING_KEY_MESSAGE)
    return genai.Client(api_key=api_key, vertexai=False, http_options=http_options)


def _api_error_message(exc: genai_errors.APIError) -> str:
    return str(getattr(exc, "message", None) or exc)


def map_error(exc: BaseException, model: str | None) -> GenerationError | None:
    """Our ``GenerationError`` for an SDK / transport exception, or None if foreign."""
    if isinstance(exc, genai_errors.APIError):
        code = getattr(exc, "code", None)
        msg = _api_error_message(exc)
        if code in (401, 403) or (code == 400 and ("API key" in msg or "API_KEY" in str(exc))):
            return AuthenticationError(
                f"Gemini refused the API key (HTTP {code}: {msg}). Check GEMINI_API_KEY "
                "(or GOOGLE_API_KEY) and that the key is enabled for the Gemini API."
            )
        if code == 429:
            return QuotaError(
                f"Gemini rate limit or quota exhausted (HTTP 429) after retrying: {msg}. "
                "Wait a minute and ask again, or check the quota of the API key's project."
            )
        if code in (408, 504):
            return GeneratorTimeoutError(
                f"Gemini did not answer in time (HTTP {code}). Try again, or ask a shorter question."
            )
        if code == 404:
            return GenerationError(
                f"Gemini does not know the model {model!r} (HTTP 404: {msg}). "
                "Set YINZHENG_GEMINI_MODEL to an available model, e.g. gemini-2.5-flash."
            )
        if code is not None and 500 <= code < 600:
            return GenerationError(
                f"The Gemini service failed (HTTP {code}: {msg}) after retrying. Try again later."
            )
        return GenerationError(f"Gemini rejected the request (HTTP {code}: {msg}).")
    if isinstance(exc, _TIMEOUT_EXC):
        return GeneratorTimeoutError(
            "Gemini did not answer in time (the request timed out). Try again, or ask a shorter question."
        )
    if isinstance(exc, _TRANSPORT_EXC):
        return GeneratorNetworkError(
            f"Could not reach Gemini ({type(exc).__name__}: {exc}). Check the network connection "
            "(and GOOGLE_GEMINI_BASE_URL / proxy settings, if any) and try again."
        )
    if isinstance(exc, (ConnectionError, TimeoutError)):
        if isinstance(exc, TimeoutError):
            return GeneratorTimeoutError("Gemini did not answer in time. Try again.")
        return GeneratorNetworkError(f"Could not reach Gemini ({exc}). Check the network connection.")
    return None


@contextlib.contextmanager
def _provider_errors(model: str | None) -> Iterator[None]:
    try:
        yield
    except GenerationError:
        raise
    except Exception as exc:  # noqa: BLE001 - only SDK/transport errors are mapped
        mapped = map_error(exc, model)
        if mapped is None:
            raise
        raise mapped from exc


def _history_contents(history: Sequence[tuple[str, str]]) -> list[types.Content]:
    contents: list[types.Content] = []
    for turn in history:
        q, a = turn[0], turn[1]
        contents.append(types.Content(role="user", parts=[types.Part(text=q)]))
        if a:
            contents.append(types.Content(role="model", parts=[types.Part(text=a)]))
    return contents


def build_evidence_prompt(question: str, chunks: Sequence[RetrievedChunk]) -> str:
    """The user message of mode 1: evidence blocks, then the question.

    Each block is ``### chunk_id: <id>`` / ``heading_path: A > B`` / text.
    """
    blocks = []
    for rc in chunks:
        c = rc.chunk
        path = " > ".join(c.heading_path) if c.heading_path else c.title
        blocks.append(f"### chunk_id: {c.chunk_id}\nheading_path: {path}\n\n{c.text.strip()}\n")
    evidence = "\n".join(blocks) if blocks else "(no evidence was found)\n"
    return f"Evidence blocks:\n\n{evidence}\nQuestion: {question}"


def evidence_system_instruction(chunk_ids: Sequence[str]) -> str:
    """System instruction of mode 1; names the only ids that may be cited."""
    allowed = ", ".join(chunk_ids) if chunk_ids else "(none)"
    return (
        "You answer questions about a knowledge base using ONLY the evidence blocks in the "
        "user's latest message. Each block starts with '### chunk_id: <id>' and its heading path.\n"
        "Reply in the language of the question (usually Chinese).\n"
        "Return JSON that matches the schema: 'answer' is the answer as a list of sentences in "
        "reading order; each item has 'text' (one sentence of the answer, no citation markers "
        "such as [1]) and 'chunk_ids' (the ids of the evidence blocks that support that sentence).\n"
        f"The only ids you may cite are: {allowed}. Never invent ids; never cite titles or URLs.\n"
        "If the evidence does not answer the question, or part of it, say so plainly in a "
        "sentence with an empty chunk_ids list (for example: 资料中没有提到……) instead of guessing. "
        "Do not add facts that are not in the evidence."
    )


SEARCH_SYSTEM_INSTRUCTION = (
    "Answer the question from the sources the tool returns. Reply in the language of the "
    "question (usually Chinese). Where the sources do not settle something, say so plainly "
    "instead of guessing. Do not add citation markers; the application adds them."
)


class _GeminiBase(Generator):
    model: str | None = DEFAULT_MODEL

    def __init__(
        self,
        *,
        api_key: str | None = None,
        model: str | None = None,
        client: Any = None,
        http_options: types.HttpOptions | None = None,
        base_url: str | None = None,
        timeout_s: float | None = 90.0,
        retry_options: types.HttpRetryOptions | None = None,
        temperature: float | None = 0.2,
    ) -> None:
        """``api_key`` is required unless a ready ``client`` (a ``genai.Client``) is
        given. ``timeout_s`` (seconds) and ``retry_options`` apply per request;
        ``base_url`` / ``http_options`` override the SDK's endpoint (tests)."""
        if model is not None:
            if not model.strip():
                raise ValueError("model must not be empty")
            self.model = model
        if client is None:
            client = _new_client(api_key, _http_options(http_options, base_url, timeout_s, retry_options))
        self._client = client
        self.temperature = temperature

    # -- request pieces, overridden per mode
    def _contents(self, question: str, chunks: Sequence[RetrievedChunk], history: Sequence[tuple[str, str]]):
        raise NotImplementedError

    def _config(self, chunks: Sequence[RetrievedChunk]) -> types.GenerateContentConfig:
        raise NotImplementedError


class GeminiGenerator(_GeminiBase):
    """Mode 1: Gemini answers over our chunks with structured output.

    Supports are ``unit="codepoint"`` spans of the assembled answer, one per
    sentence that cites ids; ids are not filtered here.
    """

    name = "gemini"

    def _contents(self, question, chunks, history):
        return _history_contents(history) + [
            types.Content(role="user", parts=[types.Part(text=build_evidence_prompt(question, chunks))])
        ]

    def _config(self, chunks):
        return types.GenerateContentConfig(
            system_instruction=evidence_system_instruction([rc.chunk_id for rc in chunks]),
            response_mime_type="application/json",
            response_schema=StructuredAnswer,
            temperature=self.temperature,
        )

    def _finish(self, raw: str, finish_reason: Any, block_reason: Any) -> Draft:
        if block_reason is not None and enum_name(block_reason) not in (None, "BLOCKED_REASON_UNSPECIFIED"):
            return blocked_draft(self.info, enum_name(block_reason) or "BLOCKED", "The question itself was blocked.")
        reason = enum_name(finish_reason)
        if reason in BLOCK_FINISH_REASONS:
            return blocked_draft(self.info, reason)
        if not raw.strip():
            raise GenerationError(
                f"Gemini returned an empty answer (finish reason {reason or 'unknown'}). Try again."
            )
        try:
            answer = parse_structured_answer(raw)
        except GenerationError:
            if reason == "MAX_TOKENS":
                raise GenerationError(
                    "Gemini's answer was cut off at the output token limit (MAX_TOKENS). "
                    "Ask a narrower question."
                ) from None
            raise
        return draft_from_structured(answer, self.info)

    def generate(self, question, chunks, history=()) -> Draft:
        with _provider_errors(self.model):
            resp = self._client.models.generate_content(
                model=self.model, contents=self._contents(question, chunks, history), config=self._config(chunks)
            )
        raw, finish, block = _response_text(resp)
        return self._finish(raw, finish, block)

    def stream(self, question, chunks, history=()) -> Iterator[str | Draft]:
        """Yield visible answer text parsed from the partial JSON, then the Draft."""
        preview = StructuredStreamPreview()
        finish = block = None
        with _provider_errors(self.model):
            for resp in self._client.models.generate_content_stream(
                model=self.model, contents=self._contents(question, chunks, history), config=self._config(chunks)
            ):
                piece, f, b = _response_text(resp)
                finish = f or finish
                block = b or block
                if piece:
                    delta = preview.feed(piece)
                    if delta:
                        yield delta
        yield self._finish(preview.raw, finish, block)


def _response_text(resp: Any) -> tuple[str, Any, Any]:
    """Non-thought text of candidate 0, its finish reason, the prompt block reason."""
    block = getattr(getattr(resp, "prompt_feedback", None), "block_reason", None)
    cands = getattr(resp, "candidates", None) or []
    if not cands:
        return "", None, block
    parts = candidate_parts(cands[0])
    text = "".join(t for t, thought in parts if t and not thought)
    return text, getattr(cands[0], "finish_reason", None), block


class _GroundedGemini(_GeminiBase):
    """Mode 2 base: Gemini's own grounding tool; our chunks are not sent."""

    own_retrieval = True

    def _tool(self) -> types.Tool:
        raise NotImplementedError

    def _contents(self, question, chunks, history):
        return _history_contents(history) + [types.Content(role="user", parts=[types.Part(text=question)])]

    def _config(self, chunks):
        return types.GenerateContentConfig(
            system_instruction=SEARCH_SYSTEM_INSTRUCTION, tools=[self._tool()], temperature=self.temperature
        )

    def generate(self, question, chunks, history=()) -> Draft:
        with _provider_errors(self.model):
            resp = self._client.models.generate_content(
                model=self.model, contents=self._contents(question, chunks, history), config=self._config(chunks)
            )
        return draft_from_response(resp, self.info)

    def stream(self, question, chunks, history=()) -> Iterator[str | Draft]:
        """Yield each non-thought text piece as it arrives, then the Draft.

        Stream chunks are merged into parts the way a non-streamed
        ``Content.parts`` would look: consecutive text of the same kind
        (thought / answer) forms one part. The last stream chunk that carries
        ``grounding_metadata`` with supports (or any, if none has supports)
        is used; chunks without metadata are fine.
        """
        merged: list[list] = []  # [text, thought]
        metadata = None
        finish = block = None
        with _provider_errors(self.model):
            for resp in self._client.models.generate_content_stream(
                model=self.model, contents=self._contents(question, chunks, history), config=self._config(chunks)
            ):
                b = getattr(getattr(resp, "prompt_feedback", None), "block_reason", None)
                block = b or block
                cands = getattr(resp, "candidates", None) or []
                if not cands:
                    continue
                cand = cands[0]
                finish = getattr(cand, "finish_reason", None) or finish
                md = getattr(cand, "grounding_metadata", None)
                if md is not None and (metadata is None or getattr(md, "grounding_supports", None)):
                    metadata = md
                for text, thought in candidate_parts(cand):
                    if text is None:
                        merged.append([None, False])
                        continue
                    if merged and merged[-1][0] is not None and merged[-1][1] == thought:
                        merged[-1][0] += text
                    else:
                        merged.append([text, thought])
                    if text and not thought:
                        yield text
        yield draft_from_grounded_parts(
            [(t, th) for t, th in merged], metadata, self.info, finish_reason=finish, block_reason=block
        )


def draft_from_response(resp: Any, info) -> Draft:
    """A ``Draft`` from a ``types.GenerateContentResponse`` with grounding metadata
    (candidate 0; UTF-8 byte supports, see ``gemini_parse.draft_from_grounded_parts``)."""
    block = getattr(getattr(resp, "prompt_feedback", None), "block_reason", None)
    cands = getattr(resp, "candidates", None) or []
    if not cands:
        if block is not None:
            return draft_from_grounded_parts([], None, info, block_reason=block)
        raise GenerationError("Gemini returned no answer candidates. Try again.")
    cand = cands[0]
    return draft_from_grounded_parts(
        candidate_parts(cand),
        getattr(cand, "grounding_metadata", None),
        info,
        finish_reason=getattr(cand, "finish_reason", None),
        block_reason=block,
    )


class GeminiSearchGenerator(_GroundedGemini):
    """Mode 2 with the Google Search tool (``types.GoogleSearch``)."""

    name = "gemini-search"

    def _tool(self) -> types.Tool:
        return types.Tool(google_search=types.GoogleSearch())


class GeminiFileSearchGenerator(_GroundedGemini):
    """Mode 2 with the File Search tool over one store (``types.FileSearch``)."""

    name = "gemini-file-search"

    def __init__(self, *, file_search_store: str | None = None, **kwargs: Any) -> None:
        if not file_search_store or not file_search_store.strip():
            raise ConfigError(
                f"{FILE_SEARCH_STORE_ENV}: the gemini-file-search generator needs a File Search "
                "store name (fileSearchStores/...); set it or choose another generator."
            )
        self.file_search_store = file_search_store.strip()
        super().__init__(**kwargs)

    def _tool(self) -> types.Tool:
        return types.Tool(file_search=types.FileSearch(file_search_store_names=[self.file_search_store]))


def make_gemini_generator(name: str, settings: Any, **kwargs: Any) -> Generator:
    """The Gemini generator called ``name`` ("gemini", "gemini-search",
    "gemini-file-search") configured from ``settings`` (``gemini_api_key``,
    ``gemini_model``; the File Search store from ``settings.gemini_file_search_store``
    if present, else the ``YINZHENG_GEMINI_FILE_SEARCH_STORE`` variable).
    ``kwargs`` go to the constructor (e.g. ``base_url`` in tests)."""
    kwargs.setdefault("api_key", getattr(settings, "gemini_api_key", None))
    kwargs.setdefault("model", getattr(settings, "gemini_model", None) or DEFAULT_MODEL)
    if name == "gemini":
        return GeminiGenerator(**kwargs)
    if name == "gemini-search":
        return GeminiSearchGenerator(**kwargs)
    if name == "gemini-file-search":
        store = kwargs.pop("file_search_store", None) or getattr(settings, "gemini_file_search_store", None)
        store = store or os.environ.get(FILE_SEARCH_STORE_ENV)
        return GeminiFileSearchGenerator(file_search_store=store, **kwargs)
    raise GenerationError(
        f"unknown Gemini generator {name!r}; use 'gemini', 'gemini-search' or 'gemini-file-search'"
    )


# --------------------------------------------------------------------------- File Search store creation

STORE_MIME_TYPES: dict[str, str] = {
    # Markdown goes up as text/plain: the File Search API documents text/plain,
    # text/html and application/pdf among its accepted types; text/markdown is
    # only mentioned informally, so plain text is the safe choice.
    ".md": "text/plain",
    ".markdown": "text/plain",
    ".txt": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
}


@dataclass(frozen=True)
class FileSearchStoreResult:
    """What ``create_file_search_store`` did.

    ``uploaded`` is ``(source_id, document name or None)`` per imported file (the
    document name is ``fileSearchStores/.../documents/...`` when the finished
    operation reports it); ``failed`` is ``(source_id, reason)``.
    """

    store_name: str
    display_name: str
    uploaded: tuple[tuple[str, str | None], ...] = ()
    failed: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "store_name": self.store_name,
            "display_name": self.display_name,
            "uploaded": [{"source_id": s, "document_name": d} for s, d in self.uploaded],
            "failed": [{"source_id": s, "reason": r} for s, r in self.failed],
        }


def _file_level_api_error(exc: BaseException) -> bool:
    """True for an SDK API error that concerns one file only (a 4xx other than
    auth / quota / timeout): it is recorded and the run goes on."""
    if not isinstance(exc, genai_errors.APIError):
        return False
    mapped = map_error(exc, None)
    code = getattr(exc, "code", None)
    return type(mapped) is GenerationError and code is not None and 400 <= code < 500


def _store_error(exc: BaseException, context: str) -> GenerationError | None:
    """``map_error`` for the File Search store calls (no model involved), with
    ``context`` (what was being done) appended."""
    if isinstance(exc, genai_errors.APIError) and getattr(exc, "code", None) == 404:
        mapped: GenerationError | None = GenerationError(
            f"Gemini answered HTTP 404 ({_api_error_message(exc)})."
        )
    else:
        mapped = map_error(exc, None)
    if mapped is None:
        return None
    return type(mapped)(f"{mapped} [{context}]")


def _operation_error(op: Any) -> str | None:
    err = getattr(op, "error", None)
    if not err:
        return None
    if isinstance(err, dict):
        msg = err.get("message") or err.get("status") or err
        code = err.get("code")
        return f"import failed ({code}): {msg}" if code is not None else f"import failed: {msg}"
    return f"import failed: {err}"


def create_file_search_store(
    settings: Any,
    paths: Sequence[Path],
    *,
    display_name: str,
    client: Any = None,
    base_url: str | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    poll_interval_s: float = 2.0,
    timeout_s: float = 600,
    request_timeout_s: float | None = 300.0,
    retry_options: types.HttpRetryOptions | None = None,
) -> FileSearchStoreResult:
    """Create a Gemini File Search store and upload every source file under ``paths``.

    Steps, with the google-genai 3.x methods and the Gemini API REST calls they make
    (``{v}`` is the SDK's API version: ``v1`` in google-genai 3.3.0, ``v1beta`` before):

    1. ``client.file_search_stores.create(config={"display_name": ...})``
       → ``POST /{v}/fileSearchStores`` (``{"displayName": ...}``); returns
       ``types.FileSearchStore`` whose ``name`` is ``fileSearchStores/<id>``.
    2. per file (``core.corpus.iter_source_files(paths)``; ``.md .markdown .txt``
       as ``text/plain``, ``.html .htm`` as ``text/html``, ``.pdf`` as
       ``application/pdf``),
       ``client.file_search_stores.upload_to_file_search_store(file_search_store_name=...,
       file=<open binary file>, config={"display_name": source_id, "mime_type": ...})``
       (a file object, not the path: the SDK would put a non-ASCII file name into an
       HTTP header and fail): a resumable upload —
       ``POST /upload/{v}/{store}:uploadToFileSearchStore`` (body
       ``{"displayName", "mimeType"}``) with
       ``X-Goog-Upload-Protocol: resumable`` / ``X-Goog-Upload-Command: start``,
       then the bytes to the returned ``x-goog-upload-url`` with
       ``X-Goog-Upload-Command: upload, finalize``; the finalize reply is a
       long-running operation (``types.UploadToFileSearchStoreOperation``).
    3. ``client.operations.get(op)`` → ``GET /{v}/{operation name}`` every
       ``poll_interval_s`` until ``done`` (at most ``timeout_s`` seconds per file);
       ``op.response.document_name`` names the imported document.

    A file that fails on its own (missing / unreadable / unsupported file, an HTTP
    4xx such as 400 or 413 for that upload, an operation that ends with ``error``
    or is not done within ``timeout_s``) is recorded in ``failed`` and the run goes
    on. Auth (401/403, bad key), quota (429), timeouts, network and 5xx errors are
    mapped by ``map_error`` to our ``GenerationError`` subclasses and stop the run;
    the message names the store if it was already created. No source file at all
    → ``IngestError`` (no store is created). No API key and no ``client`` →
    ``MissingKeyError``.

    ``progress(done, total, source_id)`` is called after each file.
    ``client`` (a ready ``genai.Client``), ``base_url``, ``request_timeout_s``
    (per HTTP request, seconds) and ``retry_options`` exist for tests.
    """
    from core.corpus import iter_source_files  # local: keeps this module light to import
    from core.errors import IngestError

    if not display_name or not display_name.strip():
        raise ConfigError("the File Search store needs a display name (--name)")
    if poll_interval_s < 0 or timeout_s <= 0:
        raise ValueError("poll_interval_s must be >= 0 and timeout_s > 0")
    if client is None:
        client = _new_client(
            getattr(settings, "gemini_api_key", None), _http_options(None, base_url, request_timeout_s, retry_options)
        )

    files = iter_source_files([Path(p) for p in paths])
    if not files:
        shown = ", ".join(str(p) for p in paths) or "(no path given)"
        raise IngestError(f"no source files ({', '.join(sorted(STORE_MIME_TYPES))}) under {shown}")

    try:
        store = client.file_search_stores.create(config={"display_name": display_name.strip()})
    except GenerationError:
        raise
    except Exception as exc:  # noqa: BLE001 - only SDK/transport errors are mapped
        mapped = _store_error(exc, "while creating the File Search store")
        if mapped is None:
            raise
        raise mapped from exc
    store_name = getattr(store, "name", None)
    if not store_name:
        raise GenerationError("Gemini created a File Search store but returned no store name.")

    uploaded: list[tuple[str, str | None]] = []
    failed: list[tuple[str, str]] = []
    total = len(files)

    def stop(exc: BaseException, source_id: str) -> GenerationError | None:
        return _store_error(
            exc,
            f"at {source_id}; store {store_name} was created, {len(uploaded)} of {total} files "
            f"uploaded before the error",
        )

    for n, (path, source_id) in enumerate(files, start=1):
        mime = STORE_MIME_TYPES.get(path.suffix.lower())
        try:
            if mime is None:
                failed.append((source_id, f"unsupported file type {path.suffix or '(none)'}"))
            elif not path.is_file():
                failed.append((source_id, "not found" if not path.exists() else "not a regular file"))
            else:
                # An open binary file, not the path: for a path the SDK sends the
                # base name in the X-Goog-Upload-File-Name header, which httpx
                # cannot encode for non-ASCII names (退款.md → UnicodeEncodeError).
                with path.open("rb") as fh:
                    op = client.file_search_stores.upload_to_file_search_store(
                        file_search_store_name=store_name,
                        file=fh,
                        config={"display_name": source_id, "mime_type": mime},
                    )
                deadline = time.monotonic() + timeout_s
                while not getattr(op, "done", False):
                    if time.monotonic() >= deadline:
                        break
                    time.sleep(poll_interval_s)
                    op = client.operations.get(op)
                reason = _operation_error(op)
                if reason:
                    failed.append((source_id, reason))
                elif not getattr(op, "done", False):
                    failed.append(
                        (source_id, f"import not finished after {timeout_s:g} s "
                         f"(operation {getattr(op, 'name', '?')}); it may still complete")
                    )
                else:
                    response = getattr(op, "response", None)
                    uploaded.append((source_id, getattr(response, "document_name", None)))
        except GenerationError:
            raise
        except Exception as exc:  # noqa: BLE001 - sorted below
            if _file_level_api_error(exc):
                failed.append((source_id, f"HTTP {exc.code}: {_api_error_message(exc)}"))  # type: ignore[attr-defined]
            else:
                mapped = stop(exc, source_id)
                if mapped is not None:
                    raise mapped from exc
                if isinstance(exc, (OSError, ValueError, KeyError)):  # unreadable file, upload not finalized
                    failed.append((source_id, f"{type(exc).__name__}: {exc}"))
                else:
                    raise
        if progress is not None:
            progress(n, total, source_id)

    return FileSearchStoreResult(
        store_name=store_name, display_name=display_name.strip(), uploaded=tuple(uploaded), failed=tuple(failed)
    )


def store_main(argv: list[str] | None = None) -> int:
    """CLI: ``create --name DISPLAY_NAME [PATH ...] [--json]`` (default path:
    ``settings.corpus_dir``). Progress and errors go to stderr; stdout gets the
    store name (first line) and how to use it, or the JSON result. Exit 0 when the store was created (even if
    some files failed; they are listed on stderr), 1 on an ``AppError``."""
    import argparse
    import json
    import sys

    from core.config import load_settings
    from core.errors import AppError

    parser = argparse.ArgumentParser(
        prog="python -m core store", description="Manage the Gemini File Search store of the knowledge base."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("create", help="create a File Search store and upload the knowledge base into it")
    p.add_argument("--name", required=True, help="display name of the new store")
    p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: the corpus folder)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for each file's import")
    args = parser.parse_args(argv)

    def show(done: int, total: int, source_id: str) -> None:
        print(f"[{done}/{total}] {source_id}", file=sys.stderr, flush=True)

    try:
        settings = load_settings()
        paths = list(args.paths) or [settings.corpus_dir]
        result = create_file_search_store(
            settings, paths, display_name=args.name, progress=show, timeout_s=args.timeout
        )
    except AppError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for source_id, reason in result.failed:
        print(f"failed: {source_id}: {reason}", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return 0
    print(
        f"{len(result.uploaded)} uploaded, {len(result.failed)} failed into {result.display_name!r}.",
        file=sys.stderr,
    )
    print(result.store_name)  # first stdout line: the store name alone (for scripts)
    print(f"# use it with:\n{FILE_SEARCH_STORE_ENV}={result.store_name}")
    print(f'python -m core ask "问题" --generator gemini-file-search --store {result.store_name}')
    return 0
