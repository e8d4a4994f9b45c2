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


def test_a_word_of_the_index_that_the_questions_cut_missed_is_searched_too():
    """A helper's round (session 19): jieba cuts "那釉下彩绘呢" 釉 / 下 / 彩绘 while the row "釉下彩绘课" is cut 釉下 /
    彩绘 / 课, and "学生卡坐地铁打几折" 坐地 / 铁; the words the index has across characters that no word of the query
    covers are searched as well. Words the query already matches are not repeated, words the index lacks not added."""
    ix = LexicalIndex(["a", "b", "c"], ["| 釉下彩绘课 | 1.5 小时 | 128 |", "学生卡坐地铁 5 折", "营业时间"])
    assert "釉下" in ix.query_terms("那釉下彩绘呢？")
    assert "地铁" in ix.query_terms("学生卡坐地铁打几折？")
    assert ix.query_terms("营业时间是几点？").count("营业") <= 1
    assert ix.query_terms("今天天气怎么样？") == tuple(tokenize("今天天气怎么样？"))  # nothing the index has
    assert ix.search("那釉下彩绘呢？", 1)[0][0] == "a"
    plain = tokenize("那釉下彩绘呢？")  # 釉, 彩绘: the row has 彩绘 only
    share = sum(ix.idf(t) for t in plain if t == "彩绘") / sum(ix.idf(t) for t in plain)
    assert ix.coverage("那釉下彩绘呢？", [ix.position("a")])[0] > share
