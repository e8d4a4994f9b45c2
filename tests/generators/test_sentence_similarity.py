"""The extractive answer's sentence similarity (issue 27): when no sentence of the evidence shares a
word with the question (an English question over Chinese chunks), the sentence closest in meaning
leads (``Generator.sentence_similarity``, the second embedder's vectors:
``core.store.sentence_vectors``), not the first sentence of the best chunk.

The real case is the clinic dev set's clinic-018, "When will my liver function test results be
ready?" over the clinic's 检查报告领取 page (``../shared/eval-dev/own/clinic/docs/reports.md``), which
answered with the first list item (血常规、尿常规：采样后约 1 小时。) before this change."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import EmbeddingError
from core.generators.extractive import ExtractiveGenerator
from core.store.embeddings import Embedder, USEEmbedder
from core.store.sentence_vectors import SentenceSimilarity
from tests.fakes import retrieved

#: The 出报告时间 section of the clinic's reports page, as the chunker cuts it (a list of times).
REPORT_TIMES = (
    "- 血常规、尿常规：采样后约 1 小时。\n"
    "- 肝功能、血脂、血糖等生化项目：次日 14:00 以后。\n"
    "- 心电图：检查完当场出报告。\n"
    "- B 超：检查后约 30 分钟。\n"
    "- 胸部 X 光片：下一个工作日。\n"
    "- 甲状腺功能、肿瘤标志物等外送项目：5 个工作日。"
)
KEEPING = "纸质报告在检验科窗口保存 30 天，超过 30 天需要到二楼病案室申请补印，每份收费 2 元。电子报告在公众号里可以查询近 2 年的记录。"
QUESTION = "When will my liver function test results be ready?"


def chunks():
    return [
        retrieved("reports.md@v1#1", REPORT_TIMES, heading_path=("检查报告领取", "出报告时间"), rank=1),
        retrieved("reports.md@v1#3", KEEPING, heading_path=("检查报告领取", "保存期限"), rank=2),
    ]


@pytest.fixture(scope="module")
def use_similarity() -> SentenceSimilarity:
    return SentenceSimilarity(USEEmbedder())


def test_an_english_question_over_chinese_sentences_leads_with_the_closest_in_meaning(use_similarity):
    gen = ExtractiveGenerator()
    gen.sentence_similarity = use_similarity
    draft = gen.generate(QUESTION, chunks())
    lead = draft.supports[0].quote
    assert "肝功能" in lead and "次日 14:00" in lead, draft.text
    # the quote is the sentence word for word, at its offsets (code points) in the answer
    assert draft.text[draft.supports[0].start : draft.supports[0].end] == lead


def test_without_a_similarity_the_first_sentence_of_the_best_chunk_leads():
    draft = ExtractiveGenerator().generate(QUESTION, chunks())
    assert draft.supports[0].quote.startswith("血常规")


def test_a_question_whose_words_the_sentences_share_is_scored_by_its_words():
    """The similarity is the fallback for no shared word, not a second opinion: a lexical match
    leads even when the similarity would rank another sentence first."""
    calls = []

    def backwards(question, sentences):
        calls.append(question)
        return [float(-i) for i in range(len(sentences))]

    gen = ExtractiveGenerator()
    gen.sentence_similarity = backwards
    draft = gen.generate("肝功能的报告什么时候出？", chunks())
    assert "肝功能" in draft.supports[0].quote
    assert calls == []


def test_a_failing_similarity_falls_back_to_the_first_sentence():
    def broken(question, sentences):
        raise EmbeddingError("model unavailable")

    gen = ExtractiveGenerator()
    gen.sentence_similarity = broken
    draft = gen.generate(QUESTION, chunks())
    assert draft.supports[0].quote.startswith("血常规")


class CountingEmbedder(Embedder):
    """Vectors from a fixed table; counts the texts it was asked to embed."""

    name = "counting"
    dim = 2

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts, kind="passage"):
        self.seen.extend(texts)
        table = {"q": [1.0, 0.0], "same": [1.0, 0.0], "other": [0.0, 1.0], "half": [0.6, 0.8]}
        return np.array([table[t] for t in texts], dtype=np.float32)


def test_sentence_similarity_is_the_cosine_and_caches_sentence_vectors():
    embedder = CountingEmbedder()
    sim = SentenceSimilarity(embedder, cache_size=2)
    assert sim("q", ["same", "other", "half"]) == pytest.approx([1.0, 0.0, 0.6])
    assert sim("q", []) == []
    embedder.seen.clear()
    assert sim("q", ["half"]) == pytest.approx([0.6])  # still cached: only the question is embedded
    assert embedder.seen == ["q"]
    embedder.seen.clear()
    sim("q", ["same"])  # evicted (cache of two: "other" and "half" were the last kept)
    assert embedder.seen == ["same", "q"]


def test_the_engine_gives_its_generators_the_second_embedders_similarity(tmp_path):
    """``Engine.equip``: a generator the engine uses reads the second embedder's sentence vectors;
    an engine without a second embedder leaves it None (the first-sentence fallback)."""
    from core.config import Settings
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex
    from tests.fakes import build_engine

    plain = build_engine(tmp_path / "plain")
    assert plain.generator("extractive").sentence_similarity is None
    settings = Settings(data_dir=tmp_path / "two", embedding="hash", second_embedding="hash")
    second = HashingEmbedder()
    engine = build_engine(tmp_path / "two", embedding="hash", second_embedding="hash")
    engine.index = KnowledgeIndex(settings, HashingEmbedder(), second_embedder=second)
    similarity = engine.generator("extractive").sentence_similarity
    assert isinstance(similarity, SentenceSimilarity) and similarity.embedder is second
    mine = ExtractiveGenerator()
    assert engine.equip(mine) is mine and mine.sentence_similarity is not None


def _hours_sections():
    """The sections of the clinic's 门诊时间 page (``tests/data/clinic/hours.md``) as retrieved chunks, in order."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "data" / "clinic" / "hours.md").read_text(encoding="utf-8")
    sections = [s.split("\n", 1) for s in text.split("\n## ")[1:]]
    return [
        retrieved(f"hours.md@v1#{n}", body.strip(), heading_path=("门诊时间", head.strip()), rank=n)
        for n, (head, body) in enumerate(sections, start=1)
    ]


def test_only_sentences_close_to_the_lead_in_meaning_come_along(use_similarity, monkeypatch):
    """Session 11: once an English question that shares no word gets every top-k chunk as evidence, a cut at half
    the lead's cosine let nearly every sentence through (clinic-017, "Is the dental clinic open on Wednesday
    afternoons?", answered with five: the weekend, the children's clinic, the vaccination hours); a sentence now
    joins when it scores at least ``SEMANTIC_KEEP`` of the lead's."""
    import core.generators.extractive as extractive

    question = "Is the dental clinic open on Wednesday afternoons?"
    gen = ExtractiveGenerator()
    gen.sentence_similarity = use_similarity
    evidence = _hours_sections()
    quotes = [s.quote for s in gen.generate(question, evidence).supports]
    assert quotes[0] == "口腔科：每周三下午停诊，医生参加集中培训。", quotes
    cos = dict(zip(quotes, use_similarity(question, quotes)))
    slack = extractive.CROSS_RANK + extractive.CROSS_TYPE_BONUS  # the small shares the cosine is scored with
    assert all(cos[q] >= extractive.SEMANTIC_KEEP * cos[quotes[0]] - slack for q in quotes), cos
    monkeypatch.setattr(extractive, "SEMANTIC_KEEP", 0.5)  # the cut before
    before = [s.quote for s in gen.generate(question, evidence).supports]
    assert len(before) > len(quotes) and before[0] == quotes[0], (before, quotes)
