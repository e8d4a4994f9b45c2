"""The OpenAI-compatible adapter: the only module that imports the official
``openai`` SDK (and the one place its errors are mapped into ours). It speaks
the chat-completions protocol that Ollama, vLLM, llama.cpp's server, LM Studio,
DeepSeek, Qwen (DashScope compatible mode), Moonshot and OpenAI all serve.

``OpenAIChatGenerator`` answers over *our* retrieved chunks with the same
contract as Gemini mode 1: the evidence blocks headed ``### chunk_id: <id>``
(``core.generators.evidence``), and a JSON reply
``{"answer": [{"text": "one sentence", "chunk_ids": ["…"]}]}`` asked for with
``response_format`` (``structured.StructuredAnswer`` as JSON schema) and parsed from
the message content either way, so a server that ignores ``response_format`` works
too (a ```json fence is tolerated). The forms of ``RESPONSE_FORMATS`` are tried in
order: OpenAI's ``{"type": "json_schema", "json_schema": {...}}`` (OpenAI, Ollama,
vLLM, llama.cpp's ``llama-server``), then ``{"type": "json_object", "schema": {...}}``
(llama-cpp-python's server, which knows only that form and turns the schema into its
grammar), then none; a server that rejects a form (HTTP 400, 422 or 500 whose message
names ``response_format``) is asked again with the next, and so are later requests
of this generator. The schema sent asks for at least one sentence and lists the sent ids
as the only ``chunk_ids`` (``enum``), so a grammar-constrained server cannot cite another.
``max_tokens`` (``YINZHENG_LLM_MAX_TOKENS``) bounds an answer. Supports are built
in **code points** (``unit="codepoint"``, part 0); ids that were not sent (a server
that ignores the schema) are dropped and audited later by ``core.grounding.supports``. With ``on_text`` the request is
streamed (SSE) and the visible sentences go to the callback as they arrive.

Errors (``raise X from exc``, by ``map_error``)::

    openai.APITimeoutError                        → GeneratorTimeoutError
    openai.APIConnectionError (refused, DNS, ...) → GeneratorNetworkError naming the URL
    the connection lost in the middle of a stream → GeneratorNetworkError (回答途中断开)
    openai.AuthenticationError / PermissionDenied → AuthenticationError (401/403)
    openai.NotFoundError                          → GenerationError naming the model (404)
    openai.RateLimitError (after the SDK's retries, max_retries) → QuotaError (429)
    any other openai.APIStatusError               → GenerationError naming the status
    reply not the JSON contract / cut off (finish_reason "length") → GenerationError
    finish_reason "content_filter"                → Draft(status="blocked")

Settings come in as ``core.config.Settings``; nothing here reads the
environment (the SDK's own ``OPENAI_*`` lookups are bypassed: base URL and key
are always passed). A server without keys (Ollama) is sent a placeholder key.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Iterator, Sequence

import openai

from core.config import Settings, env_var
from core.errors import (
    AuthenticationError,
    ConfigError,
    GenerationError,
    GeneratorNetworkError,
    GeneratorTimeoutError,
    QuotaError,
)
from core.generators.base import Generator, OnText
from core.generators.evidence import (
    build_evidence_prompt,
    evidence_system_instruction,
    first_query_line,
    history_messages,
    query_rewrite_messages,
)
from core.generators.structured import (
    StructuredAnswer,
    StructuredStreamPreview,
    draft_from_structured,
    parse_structured_answer,
)
from core.models import Draft, RetrievedChunk

__all__ = ["OpenAIChatGenerator", "make_openai_generator", "map_error", "DEFAULT_BASE_URL", "PLACEHOLDER_KEY"]

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"  # Ollama, vLLM and llama.cpp accept any key; the SDK insists on one
PROVIDER = "The OpenAI-compatible model"


def response_format(form: str = "json_schema", chunk_ids: Sequence[str] = ()) -> dict[str, Any]:
    """The ``response_format`` of the request in ``form`` (one of ``RESPONSE_FORMATS``): the
    ``StructuredAnswer`` JSON schema (not strict, so servers that support only a subset of JSON
    Schema accept it), asking for at least one sentence (the instruction wants one even when the
    evidence has no answer) and, with ``chunk_ids``, only those ids (``enum``: a server that
    compiles the schema into a grammar cannot emit another id; grounding still drops and audits
    ids for servers that ignore it). ``json_schema`` is OpenAI's form; ``json_object`` with a
    ``schema`` key is llama-cpp-python's (``llama_cpp.server``: ``type`` may only be ``text`` or
    ``json_object``). ``ValueError`` for another form."""
    schema = StructuredAnswer.model_json_schema()
    schema["properties"]["answer"]["minItems"] = 1
    if chunk_ids:
        ids = list(dict.fromkeys(chunk_ids))
        sentence = schema["$defs"]["AnswerSentence"]["properties"]["chunk_ids"]
        sentence["items"] = {"type": "string", "enum": ids}
        sentence["maxItems"] = len(ids)
    if form == "json_object":
        return {"type": "json_object", "schema": schema}
    if form != "json_schema":
        raise ValueError(f"unknown response_format form {form!r}; use one of {RESPONSE_FORMATS}")
    return {"type": "json_schema", "json_schema": {"name": "structured_answer", "schema": schema}}


#: The ``response_format`` forms tried in order until the server accepts one (then none).
RESPONSE_FORMATS = ("json_schema", "json_object")
_FORMAT_REJECTED = (400, 422, 500)  # llama-cpp-python answers 500 for a request it cannot validate


def _rejects_format(exc: openai.APIStatusError) -> bool:
    """Whether ``exc`` is a server refusing the ``response_format`` it was sent."""
    text = str(exc).lower()
    return exc.status_code in _FORMAT_REJECTED and any(w in text for w in ("response_format", "json_schema"))


def map_error(exc: BaseException, model: str, base_url: str) -> GenerationError | None:
    """Our ``GenerationError`` (Chinese message naming the variable to fix) for an SDK exception;
    None for a foreign one."""
    if isinstance(exc, openai.APITimeoutError):
        return GeneratorTimeoutError(f"模型服务 {base_url} 没有及时回答（请求超时）。请重试，或换一个更快的模型。")
    if isinstance(exc, openai.APIConnectionError):
        return GeneratorNetworkError(
            f"无法连接模型服务 {base_url}（{env_var('openai_base_url')}）：{exc}。"
            "请先启动服务（例如 `ollama serve`，或 `vllm serve <模型>`），或检查地址与网络。"
        )
    if not isinstance(exc, openai.APIStatusError):
        return None
    code, msg = exc.status_code, str(getattr(exc, "message", None) or exc)
    if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
        return AuthenticationError(f"模型服务拒绝了密钥（HTTP {code}：{msg}）。请检查 {env_var('openai_api_key')}。")
    if isinstance(exc, openai.NotFoundError):
        return GenerationError(
            f"模型服务 {base_url} 没有模型 {model!r}（HTTP 404：{msg}）。请把 {env_var('llm_model')} "
            "设为服务上已有的模型（Ollama：`ollama pull <模型>`，`ollama list` 列出已有模型）。"
        )
    if isinstance(exc, openai.RateLimitError):
        return QuotaError(f"模型服务限流或额度用尽（HTTP 429），重试后仍失败：{msg}。请稍后再问。")
    if code in (408, 504):
        return GeneratorTimeoutError(f"模型服务没有及时回答（HTTP {code}）。请重试。")
    return GenerationError(f"模型服务拒绝了请求（HTTP {code}：{msg}）。")


class OpenAIChatGenerator(Generator):
    """Chat completions over our chunks with the chunk-id JSON contract (see the module docstring)."""

    name = "openai"

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 2,
        temperature: float | None = 0.2,
        max_tokens: int | None = None,
        client: Any = None,
    ) -> None:
        """``model`` is required; ``base_url`` defaults to the OpenAI API; without ``api_key``
        a placeholder is sent (local servers). ``timeout_s`` is per request in seconds;
        ``max_retries`` is the SDK's own retry count (429, 5xx, connection errors, with
        backoff). ``max_tokens`` bounds each answer (None: the server's limit). Raises
        ``ConfigError`` naming the variable for an empty model and ``ValueError`` for a
        timeout <= 0, negative retries or ``max_tokens`` < 1."""
        if not model or not model.strip():
            raise ConfigError(f"{env_var('llm_model')}: the openai generator needs a model name, e.g. qwen2.5:7b")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        if max_tokens is not None and max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
        self.model = model.strip()
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.temperature = temperature
        self.max_tokens = max_tokens
        #: the ``RESPONSE_FORMATS`` still to try, the one sent first (empty: send none)
        self.formats: list[str] = list(RESPONSE_FORMATS)
        self._client = client or openai.OpenAI(
            base_url=self.base_url,
            api_key=api_key or PLACEHOLDER_KEY,
            timeout=timeout_s,
            max_retries=max_retries,
        )

    def messages(
        self, question: str, chunks: Sequence[RetrievedChunk], history: Sequence[tuple[str, str]] = ()
    ) -> list[dict[str, str]]:
        """System instruction (the allowed ids), earlier turns as clean text, then the evidence prompt."""
        return [
            {"role": "system", "content": evidence_system_instruction([rc.chunk_id for rc in chunks])},
            *history_messages(history),
            {"role": "user", "content": build_evidence_prompt(question, chunks)},
        ]

    def rewrite_query(self, question: str, history: Sequence[tuple[str, str]]) -> str | None:
        """The model's one-line search query for ``question`` (``evidence.query_rewrite_messages``);
        None for an empty reply. Raises the ``GenerationError`` subclasses of ``map_error``."""
        with self._provider_errors():
            resp = self._client.chat.completions.create(
                model=self.model,
                messages=query_rewrite_messages(question, history),
                temperature=0,
                max_tokens=128,
            )
        return first_query_line(resp.choices[0].message.content if resp.choices else None)

    @contextlib.contextmanager
    def _provider_errors(self) -> Iterator[None]:
        try:
            yield
        except openai.OpenAIError as exc:
            mapped = map_error(exc, self.model, self.base_url)
            if mapped is None:
                raise
            logger.warning(
                "OpenAI-compatible call failed (%s, model %s): %s",
                self.base_url,
                self.model,
                type(exc).__name__,
                exc_info=True,
            )
            raise mapped from exc

    def _create(self, messages: list[dict[str, str]], stream: bool, chunk_ids: Sequence[str] = ()) -> Any:
        """One request with the first of :attr:`formats` as ``response_format``; a server that
        rejects it (``_rejects_format``) is asked again with the next form, finally with none,
        and so are later requests of this generator (the JSON is then read from the message
        content, as the system instruction asks for it)."""
        extra: dict[str, Any] = {"max_tokens": self.max_tokens} if self.max_tokens else {}
        while self.formats:
            try:
                return self._client.chat.completions.create(
                    model=self.model,
                    messages=messages,
                    response_format=response_format(self.formats[0], chunk_ids),
                    temperature=self.temperature,
                    stream=stream,
                    **extra,
                )
            except openai.APIStatusError as exc:
                if not _rejects_format(exc):
                    raise
                logger.info(
                    "%s rejected response_format %s; trying the next form: %s", self.base_url, self.formats[0], exc
                )
                self.formats.pop(0)
        return self._client.chat.completions.create(
            model=self.model,
            messages=messages,
            temperature=self.temperature,
            stream=stream,
            **extra,
        )

    def generate(self, question, chunks, history=(), on_text: OnText | None = None) -> Draft:
        """One chat completion; with ``on_text`` a streamed one whose visible sentences go to
        ``on_text`` as the JSON grows. Raises the ``GenerationError`` subclasses above."""
        messages = self.messages(question, chunks, history)
        ids = [rc.chunk_id for rc in chunks]
        finish: str | None = None
        with self._provider_errors():
            if on_text is None:
                resp = self._create(messages, stream=False, chunk_ids=ids)
                choice = resp.choices[0] if resp.choices else None
                raw = (choice.message.content or "") if choice else ""
                finish = choice.finish_reason if choice else None
            else:
                preview = StructuredStreamPreview()
                try:
                    for event in self._create(messages, stream=True, chunk_ids=ids):
                        for choice in event.choices or ():
                            finish = choice.finish_reason or finish
                            piece = choice.delta.content if choice.delta else None
                            if piece:
                                delta = preview.feed(piece)
                                if delta:
                                    on_text(delta)
                except openai.APIConnectionError as exc:
                    if not preview.raw:
                        raise
                    raise GeneratorNetworkError(
                        f"模型服务 {self.base_url} 在回答途中断开了连接（已收到 {len(preview.raw)} 个字符，"
                        f"回答不完整）：{exc}。请重试；服务若已停止，请重新启动它。"
                    ) from exc
                raw = preview.raw
        return self._draft(raw, finish)

    def _draft(self, raw: str, finish: str | None) -> Draft:
        if finish == "content_filter":
            return Draft(
                parts=(),
                generator=self.info,
                status="blocked",
                message="模型服务的内容过滤拦截了这个回答（finish reason content_filter）。请换个问法。",
            )
        if not raw.strip():
            raise GenerationError(f"模型 {self.model} 返回了空回答（finish reason {finish or 'unknown'}）。请重试。")
        try:
            answer = parse_structured_answer(raw, PROVIDER)
        except GenerationError as exc:
            if finish == "length":
                raise GenerationError(
                    f"模型 {self.model} 的回答在输出长度上限处被截断（finish reason length），不是完整的 JSON。"
                    "请问得更具体一些，或换一个上下文更长的模型。"
                ) from exc
            raise GenerationError(
                f"模型 {self.model} 没有按约定返回 JSON 格式的回答（开头：{raw[:80]!r}）。"
                "请重试，或换一个能遵循 JSON 格式的模型。"
            ) from exc
        return draft_from_structured(answer, self.info)


def make_generator(name: str, settings: Settings) -> OpenAIChatGenerator:
    """The registry's factory (``core.generators.registry``): the ``openai`` generator."""
    return make_openai_generator(settings)


def make_openai_generator(settings: Settings, **kwargs: Any) -> OpenAIChatGenerator:
    """The ``openai`` generator configured from ``settings`` (``openai_base_url``,
    ``openai_api_key``, ``llm_model``, ``llm_max_tokens``); ``kwargs`` go to the constructor and win (tests).
    Raises ``ConfigError`` naming ``YINZHENG_LLM_MODEL`` when no model is set."""
    kwargs.setdefault("base_url", settings.openai_base_url)
    kwargs.setdefault("api_key", settings.openai_api_key)
    kwargs.setdefault("model", settings.llm_model or "")
    kwargs.setdefault("max_tokens", settings.llm_max_tokens)
    return OpenAIChatGenerator(**kwargs)
