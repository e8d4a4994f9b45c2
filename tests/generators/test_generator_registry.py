"""One registry of generators (issue 31): settings, sidebar and engine read ``REGISTRY``, and the
engine builds a generator by its entry's factory, so adding one is its module and one entry."""

from __future__ import annotations

import dataclasses

import pytest

from core.config import Settings
from core.errors import ConfigError, GenerationError, MissingKeyError
from core.generators import registry
from core.generators.base import Generator

USABLE = Settings(
    gemini_api_key="k",
    gemini_file_search_store="fileSearchStores/abc-123",
    llm_model="qwen2.5:7b",
    openai_base_url="http://127.0.0.1:9/v1",
)


@pytest.mark.parametrize("name", registry.NAMES)
def test_every_entry_builds_its_generator_from_usable_settings(name):
    assert name in registry.offered(USABLE)
    generator = registry.build(name, USABLE)
    assert isinstance(generator, Generator)
    assert generator.name == name
    assert generator.reads_knowledge_bases == registry.entry(name).reads_knowledge_bases


def test_a_factory_says_what_is_missing():
    with pytest.raises(MissingKeyError):
        registry.build("gemini", Settings())
    with pytest.raises(ConfigError):
        registry.build("openai", Settings())


def test_the_engine_builds_a_new_entry_without_any_other_change(sample_engine, monkeypatch):
    entry = dataclasses.replace(registry.entry("extractive"), name="extractive-copy", label="副本")
    monkeypatch.setattr(registry, "REGISTRY", (*registry.REGISTRY, entry))
    monkeypatch.setattr(registry, "NAMES", (*registry.NAMES, "extractive-copy"))
    monkeypatch.delitem(sample_engine.generators, "extractive-copy", raising=False)
    built = sample_engine.generator("extractive-copy")
    assert type(built).__name__ == "ExtractiveGenerator"
    assert "extractive-copy" in registry.offered(Settings())
    assert registry.label("extractive-copy", Settings()) == "副本"
    monkeypatch.delitem(sample_engine.generators, "extractive-copy")


def test_an_unknown_generator_is_refused_by_settings_registry_and_engine(sample_engine):
    with pytest.raises(ValueError, match="unknown generator"):
        registry.build("gpt-j", USABLE)
    with pytest.raises(GenerationError, match="use one of extractive, openai"):
        sample_engine.generator("gpt-j")
    with pytest.raises(ValueError, match="must be one of"):
        Settings(generator="gpt-j")
