from core.lexical import LexicalIndex, tokenize


def test_tokenize_mixed_chinese_english_drops_stopwords_and_punctuation():
    toks = tokenize("Deployment 和 StatefulSet 有什么区别？")
    assert "deployment" in toks and "statefulset" in toks
    assert "和" not in toks and "？" not in toks and "什么" not in toks


def test_bm25_ranks_the_chunk_with_the_terms_first():
    ix = LexicalIndex(
        ["a", "b", "c"],
        [
            "Deployment 管理无状态应用的副本",
            "StatefulSet 为有状态应用提供稳定的网络标识",
            "Service 把一组 Pod 暴露为网络服务",
        ],
    )
    assert [cid for cid, _ in ix.search("有状态应用的网络标识", 3)][0] == "b"
    assert ix.search("", 3) == []


def test_coverage_is_low_for_terms_the_corpus_never_mentions():
    ix = LexicalIndex(["a", "b"], ["Deployment 管理无状态应用", "StatefulSet 管理有状态应用"])
    assert ix.coverage("消息队列的消费者重平衡", [0, 1]) == [0.0, 0.0]
    full = ix.coverage("StatefulSet 有状态应用", [1])[0]
    assert full == 1.0


def test_empty_index_searches_to_nothing():
    assert LexicalIndex([], []).search("Pod", 5) == []


def test_a_number_no_chunk_has_weighs_nothing_in_coverage():
    """A helper's round (session 19): "我65岁了还能学车吗？" was refused over "报名年龄为 18 至 70 周岁。": 65 is in no
    chunk, so it took half the question's weight. A number the index has still counts (a port, a code)."""
    ix = LexicalIndex(["a", "b"], ["报名年龄为 18 至 70 周岁，学车请先报名。", "端口 8080 用于管理界面。"])
    assert (
        ix.coverage("我65岁了还能学车吗？", [0])[0] == ix.coverage("我岁了还能学车吗？", [0])[0] > 0
    )  # as if unwritten
    assert ix.coverage("8080 端口是做什么的？", [1])[0] > ix.coverage("9090 端口是做什么的？", [1])[0]
