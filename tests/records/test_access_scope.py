"""Access as a knowledge-base set (not a predicate after ranking), for every generator:
a person allowed only ``open`` gets a full top-k from it although ``secret`` holds the
best matches, and a generator whose own retrieval reads our documents (Gemini File
Search) is refused unless the question may search every knowledge base."""

from __future__ import annotations

import dataclasses

import pytest

from components.plain import plain
from core.config import Settings
from core.generators.gemini import default_retry_options, make_gemini_generator
from core.ingest.run import ingest
from core.records.access import AccessConfig, User
from tests.fakes import build_engine
from tests.gemini_server import Reply, StubGemini

QUESTION = "CronJob 的时区 timeZone 字段是什么？"
SECTION = {"knowledge_bases": {"secret": {"access": ["boss@example.com"]}}}
ANSWER = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "时区由 timeZone 字段决定。"}]}, "finishReason": "STOP"}
    ]
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    """``secret``: 60 chunks that match QUESTION best; ``open``: 8 weaker ones; vectors (hash) in Chroma."""
    root = tmp_path_factory.mktemp("scope")
    engine = build_engine(root / "data")
    for kb, n, text in [
        ("secret", 60, "CronJob 的时区 timeZone 字段：CronJob 时区 timeZone 时区 字段 {i}。"),
        ("open", 8, "第 {i} 篇笔记顺带提到 CronJob 的时区。"),
    ]:
        folder = root / kb
        folder.mkdir()
        for i in range(n):
            (folder / f"{kb}{i}.md").write_text(f"# {kb} {i}\n\n{text.format(i=i)}\n", encoding="utf-8")
        engine.index.knowledge_bases.create(kb)
        assert not ingest(engine.index, [folder], embed=True, knowledge_base=kb).failures
    return engine


def _as(engine, email: str | None):
    user = (
        None
        if email is None
        else User.from_claims({"iss": "i", "sub": email, "email": email, "email_verified": True}, "k")
    )
    return dataclasses.replace(engine, user=user, access=AccessConfig.from_mapping(SECTION))


def test_a_restricted_person_gets_a_full_top_k_from_the_allowed_base(engine):
    everything = engine.retriever(top_k=5, knowledge_bases=["open", "secret"]).retrieve(QUESTION)
    assert {rc.chunk.knowledge_base for rc in everything.ranking[:50]} == {"secret"}  # secret holds the best 50
    worker = _as(engine, "worker@example.com")
    assert worker.searchable(["open", "secret"]) == ("open",)
    result = worker.retriever(top_k=5, knowledge_bases=["open", "secret"]).retrieve(QUESTION)
    assert len(result.chunks) == 5 and {rc.chunk.knowledge_base for rc in result.chunks} == {"open"}
    assert result.config["knowledge_bases"] == "open"
    record = worker.ask(QUESTION, knowledge_bases=["open", "secret"], save=False)
    assert record.knowledge_bases == ("open",)
    assert all(c.knowledge_base == "open" for c in record.chunks)
    assert all(c.chunk.knowledge_base == "open" for c in record.candidates)
    assert _as(engine, "boss@example.com").searchable(["open", "secret"]) == ("open", "secret")
    nothing = worker.ask(QUESTION, knowledge_bases=["secret"], save=False)  # an empty set: Chroma is not asked
    assert nothing.status == "no_evidence" and not nothing.candidates and not nothing.knowledge_bases


def _gemini(name: str, stub: StubGemini):
    store = {"file_search_store": "fileSearchStores/kb-all"} if name == "gemini-file-search" else {}
    return make_gemini_generator(
        name,
        Settings(gemini_api_key="test-key"),
        base_url=stub.base_url,
        timeout_s=5,
        retry_options=default_retry_options(attempts=1),
        **store,
    )


@pytest.mark.parametrize(
    "email, selection, called",
    [
        ("worker@example.com", ["open", "secret"], False),  # may not ask secret: the store could hold it
        ("boss@example.com", ["open"], False),  # the selection is honoured: the store is not limited to it
        (None, ["open"], False),  # local mode, one base selected
        ("boss@example.com", ["default", "open", "secret"], True),  # every knowledge base: may answer
        (None, ["default", "open", "secret"], True),
    ],
)
def test_file_search_answers_only_when_every_knowledge_base_is_searched(engine, email, selection, called):
    with StubGemini([Reply(json=ANSWER)]) as stub:
        record = _as(engine, email).ask(
            QUESTION, generator=_gemini("gemini-file-search", stub), knowledge_bases=selection, save=False
        )
    assert bool(stub.requests) is called
    assert record.generator.name == "gemini-file-search"
    if called:
        assert record.status != "error" and "时区" in record.answer_text
    else:
        assert record.status == "error" and "没有调用" in record.error and "其他生成器" in record.error
        assert not record.chunks and not record.answer_text


def test_a_hidden_knowledge_base_keeps_file_search_refused(engine, tmp_path):
    hidden = build_engine(tmp_path)
    hidden.index.knowledge_bases.create("archive")
    hidden.index.knowledge_bases.set_hidden("archive", True)  # it cannot be selected, the store may hold it
    with StubGemini([Reply(json=ANSWER)]) as stub:
        record = hidden.ask(QUESTION, generator=_gemini("gemini-file-search", stub), save=False)
    assert not stub.requests and record.status == "error"


def test_google_search_reads_no_knowledge_base_and_is_not_refused(engine):
    with StubGemini([Reply(json=ANSWER)]) as stub:
        record = _as(engine, "worker@example.com").ask(
            QUESTION, generator=_gemini("gemini-search", stub), knowledge_bases=["open"], save=False
        )
    assert len(stub.requests) == 1 and record.status != "error"


def _generator_choice(engine) -> tuple[list[str], list[str]]:  # noqa: ANN001
    """The sidebar's 生成方式 options and captions for ``engine`` (``components.sidebar.show_generator_choice``)."""
    from streamlit.testing.v1 import AppTest

    def page(engine):  # noqa: ANN001
        from components.sidebar import show_generator_choice

        show_generator_choice(engine)

    at = AppTest.from_function(page, args=(engine,), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    return at.selectbox[0].options, [c.value for c in at.caption]


@pytest.mark.parametrize("email, offered", [("worker@example.com", False), ("boss@example.com", True), (None, True)])
def test_file_search_is_offered_only_to_who_may_search_every_knowledge_base(engine, email, offered):
    """New-user pass: the choice offered Gemini + File Search to a person the engine refuses it to.
    What the sidebar offers is what the engine answers with, over every base the person may select."""
    settings = Settings(
        data_dir=engine.settings.data_dir,
        embedding=engine.settings.embedding,
        gemini_api_key="test-key",
        gemini_file_search_store="fileSearchStores/kb-all",
    )
    person = dataclasses.replace(_as(engine, email), settings=settings)
    options, captions = _generator_choice(person)
    label = f"Gemini + File Search（{settings.gemini_model}）"  # options are shown by their labels
    assert (label in options) is offered and f"Gemini + Google 搜索（{settings.gemini_model}）" in options
    assert any(c.startswith(f"{plain(label)} 不可用") for c in captions) is not offered  # plain text (issue 24)
    visible = [kb.name for kb in engine.index.knowledge_bases.list()]
    with StubGemini([Reply(json=ANSWER)]) as stub:
        record = person.ask(
            QUESTION, generator=_gemini("gemini-file-search", stub), knowledge_bases=visible, save=False
        )
    assert (record.status != "error") is offered


def test_a_hidden_knowledge_base_withholds_file_search_from_everyone(tmp_path):
    hidden = build_engine(tmp_path)
    hidden.index.knowledge_bases.create("archive")
    hidden.index.knowledge_bases.set_hidden("archive", True)
    settings = Settings(
        data_dir=hidden.settings.data_dir,
        embedding=hidden.settings.embedding,
        gemini_api_key="test-key",
        gemini_file_search_store="fileSearchStores/kb-all",
    )
    options, _ = _generator_choice(dataclasses.replace(hidden, settings=settings))
    assert not [o for o in options if "File Search" in o] and f"Gemini 基于知识库（{settings.gemini_model}）" in options


def test_the_registry_flag_is_the_generator_classes_flag():
    from core.generators import registry
    from core.generators.base import Generator
    from core.generators.gemini import GeminiFileSearchGenerator, GeminiGenerator, GeminiSearchGenerator

    classes = {
        "gemini": GeminiGenerator,
        "gemini-search": GeminiSearchGenerator,
        "gemini-file-search": GeminiFileSearchGenerator,
    }
    for e in registry.REGISTRY:
        assert e.reads_knowledge_bases is classes.get(e.name, Generator).reads_knowledge_bases, e.name
