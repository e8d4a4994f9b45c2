"""The Gemini adapter: the only module that imports the official ``google-genai``
SDK (and the one place its errors are mapped into ours).

Why over 400 lines: the team's rule puts each vendor SDK behind one adapter module, so
the three Gemini generators and the query rewrite share it; the grounding-metadata
parsing lives in ``gemini_parse`` and the File Search store commands in ``gemini_store``.

Three generators, made by ``make_gemini_generator(name, settings)``:

``gemini`` — ``GeminiGenerator``
    Answers over *our* retrieved chunks. The evidence goes into the prompt as
    blocks headed ``### chunk_id: <id>`` plus ``heading_path: A > B``
    (``evidence``); the system instruction allows only those ids as
    citations and asks the model to say where the evidence is missing.
    Structured output (``response_mime_type="application/json"``,
    ``response_schema`` = ``StructuredAnswer``: a list of ``{text, chunk_ids}``
    sentences), parsed by ``structured`` into one ``DraftSupport`` per
    cited sentence in **code points**; ids are checked later by ``core.grounding.supports``.
``gemini-search`` — ``GeminiSearchGenerator`` (Google Search tool)
``gemini-file-search`` — ``GeminiFileSearchGenerator`` (File Search tool over
    one File Search store)
    Gemini grounds the answer itself; ``candidate.grounding_metadata``
    (google-genai ``types.GroundingMetadata``) is parsed by ``gemini_parse``
    into supports in **UTF-8 bytes** (``unit="utf8"``, per part) and ``extra_chunks``.

Streaming (``generate(..., on_text=f)``) uses ``generate_content_stream``. Mode 1
hands ``f`` the sentence texts as they can be read from the growing JSON
(complete sentences and the growing last one; the pieces add up to a prefix of
``Draft.text``). Mode 2 hands it each non-thought text part as it arrives. The
returned ``Draft`` is authoritative.

Errors (``raise X from exc``, by ``map_error``; also used by ``gemini_store``)::

    google.genai.errors.ClientError 401/403, 400 "API key not valid" → AuthenticationError
    ClientError 429 (after the SDK's own retries, HttpRetryOptions)    → QuotaError
    httpx(2).TimeoutException, HTTP 408/504                               → GeneratorTimeoutError
    httpx(2).TransportError (connect refused, connection closed, ...)     → GeneratorNetworkError
    any other APIError (404 model, 5xx, ...)                           → GenerationError
    no API key                                                         → MissingKeyError (at construction)

Settings come in as ``core.config.Settings``; nothing here reads the
environment. The SDK's own base-URL resolution (``GOOGLE_GEMINI_BASE_URL``)
is left alone; ``base_url`` / ``http_options`` exist for tests.

``GeminiGenerator.rewrite_query`` asks for the search query of a follow-up or
foreign-language question (``Settings.llm_query_help``; ``core.engine`` fuses it
with the local resolution).

Just over 400 lines: what is left is the SDK-bound code only (client, retry,
error mapping, request building for the three modes and the query rewrite); parsing,
prompts and store administration live in the sibling ``gemini_*`` / ``structured`` modules.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Iterator, Sequence

import httpx
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from core.config import Settings, check_file_search_store, env_var
from core.errors import (
    AuthenticationError,
    ConfigError,
    GenerationError,
    GeneratorNetworkError,
    GeneratorTimeoutError,
    MissingKeyError,
    QuotaError,
)
from core.generators.base import Generator, OnText
from core.generators.evidence import (
    QUERY_REWRITE_INSTRUCTION,
    build_evidence_prompt,
    evidence_system_instruction,
    first_query_line,
)
from core.generators.gemini_parse import GroundedStream, draft_from_response, response_text
from core.generators.gemini_prompt import SEARCH_SYSTEM_INSTRUCTION
from core.generators.gemini_structured import draft_from_structured_text
from core.generators.structured import StructuredAnswer, StructuredStreamPreview
from core.models import Draft, RetrievedChunk

__all__ = [
    "GeminiGenerator",
    "GeminiSearchGenerator",
    "GeminiFileSearchGenerator",
    "make_gemini_generator",
    "default_retry_options",
    "new_client",
    "map_error",
    "api_error_details",
    "PROVIDER_ERRORS",
    "RetryOptions",
]

logger = logging.getLogger(__name__)

try:  # google-genai 3.x sends through httpx2 (an httpx fork); map both
    import httpx2  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    httpx2 = None

_TIMEOUT_EXC: tuple[type[BaseException], ...] = tuple(m.TimeoutException for m in (httpx, httpx2) if m is not None)
_TRANSPORT_EXC: tuple[type[BaseException], ...] = tuple(m.TransportError for m in (httpx, httpx2) if m is not None)
# Everything the SDK and its HTTP stack raise for a failed call (``map_error`` maps each).
PROVIDER_ERRORS: tuple[type[BaseException], ...] = (
    genai_errors.APIError,
    *_TIMEOUT_EXC,
    *_TRANSPORT_EXC,
    ConnectionError,
    TimeoutError,
)

RetryOptions = types.HttpRetryOptions
DEFAULT_MODEL = "gemini-2.5-flash"
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


def new_client(
    api_key: str | None,
    *,
    http_options: types.HttpOptions | None = None,
    base_url: str | None = None,
    timeout_s: float | None = None,
    retry_options: types.HttpRetryOptions | None = None,
) -> genai.Client:
    """A Gemini Developer API client (``genai.Client``). ``timeout_s`` is per HTTP
    request in seconds (None: the SDK's default); ``retry_options`` default to
    ``default_retry_options()``. Raises ``MissingKeyError`` without a key and
    ``ValueError`` for a timeout <= 0."""
    opts = _http_options(http_options, base_url, timeout_s, retry_options)
    if not api_key:
        raise MissingKeyError(MISSING_KEY_MESSAGE)
    return genai.Client(api_key=api_key, vertexai=False, http_options=opts)


def api_error_details(exc: BaseException) -> tuple[int | None, str] | None:
    """``(HTTP status, message)`` of an SDK ``APIError``; None for any other exception."""
    if not isinstance(exc, genai_errors.APIError):
        return None
    return getattr(exc, "code", None), str(getattr(exc, "message", None) or exc)


def map_error(exc: BaseException, model: str | None) -> GenerationError | None:
    """Our ``GenerationError`` for an SDK / transport exception, or None if foreign."""
    details = api_error_details(exc)
    if details is not None:
        code, msg = details
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
                f"Set {env_var('gemini_model')} to an available model, e.g. {DEFAULT_MODEL}."
            )
        if code is not None and 500 <= code < 600:
            return GenerationError(f"The Gemini service failed (HTTP {code}: {msg}) after retrying. Try again later.")
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
    if isinstance(exc, TimeoutError):
        return GeneratorTimeoutError("Gemini did not answer in time. Try again.")
    if isinstance(exc, ConnectionError):
        return GeneratorNetworkError(f"Could not reach Gemini ({exc}). Check the network connection.")
    return None


@contextlib.contextmanager
def _provider_errors(model: str | None) -> Iterator[None]:
    """Map ``PROVIDER_ERRORS`` raised inside to our ``GenerationError`` (logged
    with the traceback); anything else passes unchanged."""
    try:
        yield
    except PROVIDER_ERRORS as exc:
        mapped = map_error(exc, model)
        if mapped is None:  # pragma: no cover - map_error covers PROVIDER_ERRORS
            raise
        logger.warning("Gemini call failed (model %s): %s", model, type(exc).__name__, exc_info=True)
        raise mapped from exc


def _history_contents(history: Sequence[tuple[str, str]]) -> list[types.Content]:
    contents: list[types.Content] = []
    for turn in history:
        q, a = turn[0], turn[1]
        contents.append(types.Content(role="user", parts=[types.Part(text=q)]))
        if a:
            contents.append(types.Content(role="model", parts=[types.Part(text=a)]))
    return contents


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
            client = new_client(
                api_key,
                http_options=http_options,
                base_url=base_url,
                timeout_s=timeout_s,
                retry_options=retry_options,
            )
        self._client = client
        self.temperature = temperature

    # -- request pieces, overridden per mode
    def _contents(self, question: str, chunks: Sequence[RetrievedChunk], history: Sequence[tuple[str, str]]):
        raise NotImplementedError

    def _config(self, chunks: Sequence[RetrievedChunk]) -> types.GenerateContentConfig:
        raise NotImplementedError

    def _call(self, method: str, question, chunks, history) -> Any:
        """``client.models.<method>`` (``generate_content`` or ``generate_content_stream``)."""
        return getattr(self._client.models, method)(
            model=self.model, contents=self._contents(question, chunks, history), config=self._config(chunks)
        )


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

    def rewrite_query(self, question: str, history: Sequence[tuple[str, str]]) -> str | None:
        """Gemini's one-line Chinese search query for ``question`` resolved against ``history``
        (``evidence.QUERY_REWRITE_INSTRUCTION``, plain text, temperature 0); None for an empty
        reply. Raises the ``GenerationError`` subclasses of ``map_error``."""
        contents = _history_contents(history) + [
            types.Content(role="user", parts=[types.Part(text=f"Latest question: {question}")])
        ]
        config = types.GenerateContentConfig(
            system_instruction=QUERY_REWRITE_INSTRUCTION, temperature=0, max_output_tokens=128
        )
        with _provider_errors(self.model):
            resp = self._client.models.generate_content(model=self.model, contents=contents, config=config)
        return first_query_line(response_text(resp)[0])

    def generate(self, question, chunks, history=(), on_text: OnText | None = None) -> Draft:
        """One ``generate_content`` call; with ``on_text``, ``generate_content_stream``
        and the visible answer text parsed from the partial JSON handed to it."""
        if on_text is None:
            with _provider_errors(self.model):
                resp = self._call("generate_content", question, chunks, history)
            raw, finish, block = response_text(resp)
            return draft_from_structured_text(raw, self.info, finish_reason=finish, block_reason=block)
        preview = StructuredStreamPreview()
        finish = block = None
        with _provider_errors(self.model):
            for resp in self._call("generate_content_stream", question, chunks, history):
                piece, f, b = response_text(resp)
                finish = f or finish
                block = b or block
                if piece:
                    delta = preview.feed(piece)
                    if delta:
                        on_text(delta)
        return draft_from_structured_text(preview.raw, self.info, finish_reason=finish, block_reason=block)


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

    def generate(self, question, chunks, history=(), on_text: OnText | None = None) -> Draft:
        """One ``generate_content`` call; with ``on_text``, a stream whose non-thought
        text pieces go to it as they arrive (merged as ``gemini_parse.GroundedStream``
        describes)."""
        if on_text is None:
            with _provider_errors(self.model):
                resp = self._call("generate_content", question, chunks, history)
            return draft_from_response(resp, self.info)
        collected = GroundedStream()
        with _provider_errors(self.model):
            for resp in self._call("generate_content_stream", question, chunks, history):
                for piece in collected.feed(resp):
                    on_text(piece)
        return collected.draft(self.info)


class GeminiSearchGenerator(_GroundedGemini):
    """Mode 2 with the Google Search tool (``types.GoogleSearch``)."""

    name = "gemini-search"

    def _tool(self) -> types.Tool:
        return types.Tool(google_search=types.GoogleSearch())


class GeminiFileSearchGenerator(_GroundedGemini):
    """Mode 2 with the File Search tool over one store (``types.FileSearch``).

    ``file_search_store`` is a store name ``fileSearchStores/<id>``; a missing or
    malformed one raises ``ConfigError`` naming the variable that sets it."""

    name = "gemini-file-search"
    reads_knowledge_bases = True  # the store holds our documents, of any knowledge base

    def __init__(self, *, file_search_store: str | None = None, **kwargs: Any) -> None:
        var = env_var("gemini_file_search_store")
        if not file_search_store or not file_search_store.strip():
            raise ConfigError(
                f"{var}: the gemini-file-search generator needs a File Search "
                "store name (fileSearchStores/...); set it or choose another generator."
            )
        try:
            self.file_search_store = check_file_search_store(file_search_store)
        except ValueError as exc:
            raise ConfigError(f"{var} (or --store): {exc}") from exc
        super().__init__(**kwargs)

    def _tool(self) -> types.Tool:
        return types.Tool(file_search=types.FileSearch(file_search_store_names=[self.file_search_store]))


def make_gemini_generator(name: str, settings: Settings, **kwargs: Any) -> Generator:
    """The Gemini generator called ``name`` ("gemini", "gemini-search",
    "gemini-file-search") configured from ``settings`` (``gemini_api_key``,
    ``gemini_model``, ``gemini_file_search_store``). ``kwargs`` go to the
    constructor and win over ``settings`` (e.g. ``base_url`` in tests).
    Raises ``MissingKeyError`` without a key, ``ConfigError`` for
    ``gemini-file-search`` without a valid store name, ``GenerationError`` for
    an unknown ``name``."""
    kwargs.setdefault("api_key", settings.gemini_api_key)
    kwargs.setdefault("model", settings.gemini_model or DEFAULT_MODEL)
    if name == "gemini":
        return GeminiGenerator(**kwargs)
    if name == "gemini-search":
        return GeminiSearchGenerator(**kwargs)
    if name == "gemini-file-search":
        store = kwargs.pop("file_search_store", None) or settings.gemini_file_search_store
        return GeminiFileSearchGenerator(file_search_store=store, **kwargs)
    raise GenerationError(f"unknown Gemini generator {name!r}; use 'gemini', 'gemini-search' or 'gemini-file-search'")
