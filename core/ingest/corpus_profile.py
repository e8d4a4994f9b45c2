"""Corpus profiles: what is true of one document collection, kept out of generic code.

A knowledge base is whatever a person uploads; the product's rules must hold on any of them.
What belongs to one collection — the public site its pages come from, a glossary folder, the
links worth recommending beside its answers, an attribution line, the 核查 page's example
sentence, its title — lives in a *profile* that belongs to the knowledge base it was
ingested into (``KnowledgeBase.settings["profile"]``). A folder brings its profile as a file
``corpus-profile.json`` in the folder itself or beside it (the bundled sample ships
``data/k8s-zh-sample/corpus-profile.json`` beside its ``docs/``); a folder without one gets
:data:`NEUTRAL`: no base URL (cards link to the stored snapshot), no glossary, no links, no attribution.

File format (every field optional; unknown fields are refused so a typo is not silently ignored)::

    {"title": "…", "base_url": "https://…/", "glossary": "reference/glossary",
     "attribution": "a line shown in the sidebar (plain text)",
     "check_example": "a sentence offered as the 核查 page's example", "navigation": [{"label": "…", "url": "https://…",
     "keywords": ["…"]}], "contact": [{"label": "…", "url": "https://…"}],
     "contact_keywords": ["合作", "联系"]}

``base_url`` and every link must be http(s) (``core.markdown.safe_link``). Errors: a file that
cannot be read or does not validate raises :class:`core.errors.ConfigError` naming the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from core.errors import ConfigError
from core.markdown import safe_link

__all__ = ["NEUTRAL", "PROFILE_FILE", "CorpusProfile", "ProfileLink", "find_profile", "profile_of", "profiles_of"]

#: The file a folder's profile is read from (in the folder, else beside it).
PROFILE_FILE = "corpus-profile.json"


class ProfileLink(BaseModel):
    """A recommended link of a profile: ``label``, an http(s) ``url`` and, for navigation
    links, the question ``keywords`` that ask for it."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    label: str
    url: str
    keywords: tuple[str, ...] = ()

    @field_validator("url")
    @classmethod
    def _http(cls, v: str) -> str:
        if not safe_link(v.strip()):
            raise ValueError(f"must be an http(s) URL, got {v!r}")
        return v.strip()


class CorpusProfile(BaseModel):
    """What one document collection brings (module doc); every field may be empty."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    title: str | None = None
    base_url: str | None = None
    glossary: str | None = None
    attribution: str | None = None
    check_example: str | None = None
    navigation: tuple[ProfileLink, ...] = ()
    contact: tuple[ProfileLink, ...] = ()
    contact_keywords: tuple[str, ...] = ()

    @field_validator("base_url")
    @classmethod
    def _base(cls, v: str | None) -> str | None:
        if v is not None and not safe_link(v.strip()):
            raise ValueError(f"must be an http(s) URL, got {v!r}")
        return None if v is None else v.strip()

    @field_validator("glossary")
    @classmethod
    def _relative(cls, v: str | None) -> str | None:
        if v is not None and (Path(v).is_absolute() or ".." in Path(v).parts):
            raise ValueError(f"must be a folder inside the documents, got {v!r}")
        return v


#: The profile of a folder that brings none.
NEUTRAL = CorpusProfile()


def find_profile(folder: Path) -> CorpusProfile:
    """The profile of the documents under ``folder``: ``folder/corpus-profile.json``, else the one
    beside the folder (``folder/../corpus-profile.json``), else :data:`NEUTRAL`. A file path (a
    single uploaded document) has no profile. Raises ``ConfigError`` for an unreadable or invalid file."""
    folder = Path(folder)
    if not folder.is_dir():
        return NEUTRAL
    for candidate in (folder / PROFILE_FILE, folder.parent / PROFILE_FILE):
        if candidate.is_file():
            try:
                return CorpusProfile.model_validate(json.loads(candidate.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError) as exc:
                raise ConfigError(f"corpus profile {candidate} cannot be used: {exc}") from exc
    return NEUTRAL


def profile_of(settings: Mapping[str, object] | None) -> CorpusProfile:
    """The profile stored in a knowledge base's ``settings`` (``NEUTRAL`` when none or invalid:
    a stored profile was validated when it was written)."""
    data = (settings or {}).get("profile")
    if not isinstance(data, Mapping):
        return NEUTRAL
    try:
        return CorpusProfile.model_validate(data)
    except ValidationError:
        return NEUTRAL


def profiles_of(knowledge_bases: Iterable[object]) -> tuple[CorpusProfile, ...]:
    """The profiles of ``KnowledgeBase`` values (their ``settings``), in order, neutral ones left out."""
    out = []
    for kb in knowledge_bases:
        p = profile_of(getattr(kb, "settings", None))
        if p != NEUTRAL:
            out.append(p)
    return tuple(out)
