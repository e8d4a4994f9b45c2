"""core.segmentation: jieba's words from jieba-rs (issue 18: the first ingest and the first
question no longer load jieba's dictionary in Python)."""

import re
from collections import Counter
from pathlib import Path

import pytest

from core import designations, segmentation
from core.lexical import _term, tokenize

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "k8s-zh-sample" / "docs"

#: jieba 0.42.1 ``lcut_for_search`` of the line below (recorded with jieba itself).
MIXED = "kube-proxy 使用 spec.replicas 和 apps/v1，版本 v1.28.0，10.0.1.175 占 50%"
JIEBA_SEARCH = [
    "kube",
    "-",
    "proxy",
    " ",
    "使用",
    " ",
    "spec",
    ".",
    "replicas",
    " ",
    "和",
    " ",
    "apps",
    "/",
    "v1",
    "，",
    "版本",
    " ",
    "v1.28",
    ".",
    "0",
    "，",
    "10.0",
    ".",
    "1.175",
    " ",
    "占",
    " ",
    "50%",
]


def test_ascii_runs_are_split_as_jieba_splits_them():
    assert segmentation.search_words(MIXED) == JIEBA_SEARCH
    assert segmentation.words("用 kube-proxy 转发") == ["用", " ", "kube", "-", "proxy", " ", "转发"]


def test_search_mode_adds_the_dictionary_sub_words_of_a_long_word():
    out = segmentation.search_words("中华人民共和国成立")
    assert {"中华", "华人", "人民", "共和", "共和国", "中华人民共和国", "成立"} <= set(out)
    assert segmentation.words("中华人民共和国成立") == ["中华人民共和国", "成立"]


def test_bm25_terms_keep_the_parts_of_a_dotted_name():
    terms = tokenize("设置 spec.replicas 字段")
    assert "spec" in terms and "replicas" in terms and "spec.replicas" not in terms


def test_tags_name_people_and_places():
    tags = dict(segmentation.tagged("李小龙出生在北京"))
    assert tags["北京"] == "ns"
    assert segmentation.tagged("") == []


def test_general_frequencies_are_the_counts_of_jiebas_dictionary():
    # dict.txt of jieba 0.42.1 (the figures core.retrieval.query's GENERAL_FREQ_MAX was chosen with)
    assert [segmentation.general_frequency(w) for w in ("带来", "分别", "探针", "挂起")] == [6670, 16537, 64, 3]
    assert segmentation.general_frequency("赤狐平台值班") == 0
    assert segmentation.general_frequency("") == 0
    assert segmentation.general_frequency("带 来") == 0  # never a partial line


@pytest.mark.slow  # loads jieba (1–2 s) to compare; ~5 s in all
def test_every_sample_document_gets_jiebas_terms():
    """The BM25 terms of each bundled document are jieba's own (same multiset), so a data
    folder indexed before the switch ranks the same after it."""
    jieba = pytest.importorskip("jieba")
    jieba.setLogLevel(60)
    files = sorted(SAMPLE.rglob("*.md"))
    assert len(files) >= 30
    differ = []
    for f in files:
        # link targets are not chunk text; URL-encoded ones (%2F…) are where jieba's ASCII rules differ
        text = re.sub(r"\]\([^)]*\)", "]", f.read_text(encoding="utf-8"))
        expected = Counter(t for t in map(_term, jieba.lcut_for_search(text)) if t)
        expected.update(designations.terms(text))  # the floors and buildings the text names (tokenize adds them)
        if Counter(tokenize(text)) != expected:
            differ.append(f.name)
    assert differ == []
