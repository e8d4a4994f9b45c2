"""The one list of generators: names, labels, when the settings make each usable, and the
factory that builds it. Read by the settings (``core.config`` validates ``YINZHENG_GENERATOR``
against it), the sidebar (which offers the usable ones, with these labels) and the engine
(``Engine.generator`` calls :func:`build`). A new generator is its module (with a
``(name, settings)`` factory) and one ``GeneratorEntry`` line here.

No imports of settings or adapters (``core.config`` imports this module, and the adapters import
``core.config``): ``settings`` is read by attribute (``Settings`` fields ``gemini_api_key``,
``gemini_model``, ``gemini_file_search_store``, ``openai_base_url``, ``openai_api_key``,
``llm_model``), and a factory is named ``"core.generators.<module>:<function>"``, imported by
:func:`build` on first use (so an SDK loads only when its generator is used).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable


@dataclass(frozen=True)
class GeneratorEntry:
    """``name`` as in settings and records; ``label`` (Chinese, ``{model}`` filled from
    the settings field ``model_field``); ``offered(settings)`` whether the settings
    make it usable; ``hint`` (Chinese) how to enable it; ``reads_knowledge_bases``: the
    generator class's flag of that name (``core.generators.base.Generator``: its own index
    holds every knowledge base, so only a question that may search all of them may use it)."""

    name: str
    label: str
    model_field: str | None
    offered: Callable[[Any], bool]
    hint: str = ""
    reads_knowledge_bases: bool = False
    #: ``"core.generators.<module>:<function>"``; the function takes ``(name, settings)``
    factory: str = "core.generators.extractive:make_generator"


def _gemini(s: Any) -> bool:
    return bool(s.gemini_api_key)


def _openai(s: Any) -> bool:
    return bool(s.llm_model and (s.openai_base_url or s.openai_api_key))


_OPENAI = "core.generators.openai_chat:make_generator"
_GEMINI = "core.generators.gemini:make_gemini_generator"


REGISTRY: tuple[GeneratorEntry, ...] = (
    GeneratorEntry("extractive", "离线抽取式（无需密钥）", None, lambda s: True),
    GeneratorEntry(
        "openai",
        "OpenAI 兼容模型（{model}）",
        "llm_model",
        _openai,
        "设置 OPENAI_BASE_URL（本地服务如 Ollama）或 OPENAI_API_KEY，以及 YINZHENG_LLM_MODEL 后可启用 OpenAI 兼容模型。",
        factory=_OPENAI,
    ),
    GeneratorEntry(
        "gemini",
        "Gemini 基于知识库（{model}）",
        "gemini_model",
        _gemini,
        "设置环境变量 GEMINI_API_KEY（或在 .streamlit/secrets.toml 中）后可启用 Gemini 生成。",
        factory=_GEMINI,
    ),
    GeneratorEntry("gemini-search", "Gemini + Google 搜索（{model}）", "gemini_model", _gemini, factory=_GEMINI),
    GeneratorEntry(
        "gemini-file-search",
        "Gemini + File Search（{model}）",
        "gemini_model",
        lambda s: _gemini(s) and bool(s.gemini_file_search_store),
        reads_knowledge_bases=True,
        factory=_GEMINI,
    ),
)

NAMES: tuple[str, ...] = tuple(e.name for e in REGISTRY)


def entry(name: str) -> GeneratorEntry:
    """The entry called ``name``; ``ValueError`` listing the names for an unknown one."""
    for e in REGISTRY:
        if e.name == name:
            return e
    raise ValueError(f"unknown generator {name!r}; use one of {', '.join(NAMES)}")


def label(name: str, settings: Any) -> str:
    """The Chinese label of ``name`` with its model from ``settings``."""
    e = entry(name)
    model = getattr(settings, e.model_field, None) if e.model_field else None
    return e.label.format(model=model or "?")


def offered(settings: Any, *, every_knowledge_base: bool = True) -> list[str]:
    """Names of the generators ``settings`` make usable, in registry order; without
    ``every_knowledge_base`` (the asker may not search every knowledge base) none that
    ``reads_knowledge_bases``: the pipeline would refuse it (``core.engine.own_retrieval_refusal``)."""
    return [e.name for e in REGISTRY if e.offered(settings) and (every_knowledge_base or not e.reads_knowledge_bases)]


def hints(settings: Any) -> list[str]:
    """Chinese hints for the generators that are not usable yet (one per hint)."""
    return list(dict.fromkeys(e.hint for e in REGISTRY if e.hint and not e.offered(settings)))


def build(name: str, settings: Any) -> Any:
    """A new generator ``name`` (a ``core.generators.base.Generator``) made by its entry's factory
    from ``settings``. Raises ``ValueError`` for an unknown name; the factory's own errors
    (``ConfigError`` for a missing model name, ``MissingKeyError``, ...) pass through."""
    module, _, function = entry(name).factory.partition(":")
    return getattr(import_module(module), function)(name, settings)
