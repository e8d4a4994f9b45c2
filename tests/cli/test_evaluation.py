"""core.evaluation: each metric on hand-made inputs, and a fast end-to-end run
(8 questions over a handful of sample docs, hash embedder / BM25 only)."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core import evaluation as ev
from core.cli import main as cli_main
from core.models import AnswerRecord, ChunkSnapshot, GeneratorInfo, Support, sha256_hex

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "k8s-zh-sample" / "docs"
K8S_DEV = ROOT / "data" / "eval" / "k8s-dev" / "questions.jsonl"


# ------------------------------------------------------------ metric units


def test_mixed_segmentation_chinese_chars_and_words():
    assert ev.mixed_segmentation("Kubernetes 的Pod，好") == ["kubernetes", "的", "pod", "，", "好"]
    assert ev.mixed_segmentation("Kubernetes 的Pod，好", remove_punctuation=True) == ["kubernetes", "的", "pod", "好"]


def test_f1_by_hand():
    # pred 北京是首都 (5 tokens), gold 首都北京 (4); longest common run 2 → P=2/5, R=2/4.
    assert ev.f1_score("北京是首都", ["首都北京"]) == pytest.approx(2 * 0.4 * 0.5 / 0.9)
    assert ev.f1_score("首都北京", ["首都北京"]) == 1.0
    assert ev.f1_score("上海", ["北京"]) == 0.0
    assert ev.f1_score("北京", []) == 0.0
    # the best gold counts
    assert ev.f1_score("北京", ["上海", "北京"]) == 1.0


def test_the_first_sentence_of_a_row_quoted_under_its_header_is_the_header_and_the_row():
    """A helper's round: "图书馆周末几点开门？" led with "区域 | 周一至周五 | 周末" (the header) over the row that answers;
    first ⊇ gold read only the header. The header labels the row quoted under it: the two are one unit."""
    from core.evaluation.metrics import first_sentence

    answer = "日期 | 开门 | 关门  \n周末及节假日 | 08:00 | 21:00\n\n- 学生凭学生证可享受八折优惠。"
    assert first_sentence(answer) == "日期 | 开门 | 关门  \n周末及节假日 | 08:00 | 21:00"
    assert first_sentence("年卡 | 每年 2599 元\n\n- 其他。") == "年卡 | 每年 2599 元"  # a row alone
    assert first_sentence("第一句。  \n第二句。") == "第一句。"  # a hard break after prose joins nothing


def test_answer_contains_gold_normalizes_case_space_punctuation():
    assert ev.answer_contains_gold("答案：不可超过 1 MiB。", ["1 MiB"])
    assert ev.answer_contains_gold("- Always、OnFailure 和 Never", ["always，onfailure和never"])
    assert not ev.answer_contains_gold("两兆字节", ["1 MiB"])
    assert not ev.answer_contains_gold("任何文本", [])


def test_gold_rank_recall_mrr_by_hand():
    assert ev.first_gold_rank(["a", "xx gold", "gold"], ["gold"]) == 2
    assert ev.first_gold_rank(["a", "b"], ["gold"]) is None
    ranks = [1, 3, None, 12]
    assert ev.recall_at(ranks, 1) == 0.25
    assert ev.recall_at(ranks, 5) == 0.5
    assert ev.recall_at(ranks, 10) == 0.5
    assert ev.mean_reciprocal_rank(ranks) == pytest.approx((1 + 1 / 3 + 1 / 12) / 4)  # = 17/48
    assert ev.recall_at([], 5) is None and ev.mean_reciprocal_rank([]) is None


def test_percentile_nearest_rank():
    assert ev.percentile([40, 10, 30, 20], 95) == 40
    assert ev.percentile([40, 10, 30, 20], 50) == 20
    assert ev.percentile([], 95) is None


def _snap(chunk_id: str, text: str) -> ChunkSnapshot:
    return ChunkSnapshot(
        chunk_id=chunk_id,
        document_id="d@1",
        source_id="d",
        version="1",
        title="t",
        heading_path=("t",),
        text=text,
        content_sha256=sha256_hex(text),
        rank=1,
        retrieved_at=datetime(2025, 1, 1, tzinfo=timezone.utc),
    )


def _record() -> AnswerRecord:
    text = "- 甲是乙。\n- 丙是丁。\n- 没有出处。"
    s1 = text.index("甲是乙。")
    s2 = text.index("丙是丁。")
    return AnswerRecord(
        query="q",
        answer_text=text,
        status="answered",
        generator=GeneratorInfo(name="extractive"),
        chunks=(_snap("c1", "甲是乙。戊。"), _snap("c2", "丙是戊。")),
        supports=(
            Support(start=s1, end=s1 + 4, chunk_ids=("c1",)),  # verbatim in c1 → valid
            Support(start=s2, end=s2 + 4, chunk_ids=("c2",)),  # not verbatim in c2
        ),
    )


def test_citation_counts_by_hand():
    rec = _record()
    # 3 visible sentences; support 1 valid (verbatim), support 2 not; one sentence uncited.
    assert ev.citation_counts(rec) == {"supports": 2, "valid_supports": 1, "sentences": 3, "covered_sentences": 1}
    # with gold "丙": the cited sentence states it and c2 contains it → valid.
    assert ev.citation_counts(rec, ["丙"]) == {
        "supports": 2,
        "valid_supports": 2,
        "sentences": 3,
        "covered_sentences": 2,
    }
    assert ev.support_valid(rec, 0) and not ev.support_valid(rec, 1)


def test_citation_counts_does_not_mutate_and_handles_empty():
    rec = _record()
    before = rec.model_dump_json()
    ev.citation_counts(rec, ["丙"])
    assert rec.model_dump_json() == before
    empty = AnswerRecord(query="q", status="no_evidence", generator=GeneratorInfo(name="x"))
    assert ev.citation_counts(empty) == {"supports": 0, "valid_supports": 0, "sentences": 0, "covered_sentences": 0}


def test_summarize_by_hand():
    def row(answerable, status, **kw):
        base = {
            "answerable": answerable,
            "status": status,
            "latency_ms": 10.0,
            "supports": 0,
            "valid_supports": 0,
            "sentences": 0,
            "covered_sentences": 0,
        }
        return {**base, **kw}

    rows = [
        row(
            True,
            "answered",
            gold_rank=1,
            gold_in_evidence=True,
            contains_gold=True,
            f1=0.5,
            supports=2,
            valid_supports=2,
            sentences=2,
            covered_sentences=2,
            latency_ms=20.0,
        ),
        row(True, "no_evidence", gold_rank=None, gold_in_evidence=False, contains_gold=False, f1=0.0),
        row(False, "no_evidence"),
        row(False, "answered", supports=1, valid_supports=0, sentences=2, covered_sentences=0, latency_ms=30.0),
    ]
    r = ev.summarize(rows, {"x": 1})
    assert r["retrieval"]["recall@1"] == 0.5 and r["retrieval"]["mrr"] == 0.5
    assert r["answer"] == {"contains_gold": 0.5, "f1": 0.25}
    assert r["citations"] == {"precision": round(2 / 3, 4), "recall": 0.5, "supports": 3, "sentences": 4}
    assert r["abstention"] == {"unanswerable_no_evidence": 0.5, "answerable_no_evidence": 0.5}
    assert r["latency_ms"]["median"] == 15.0 and r["latency_ms"]["p95"] == 30.0
    assert r["counts"]["status"] == {"answered": 2, "no_evidence": 2}


def test_load_questions_formats(tmp_path, shared_dir):
    qs = ev.load_questions(shared_dir / "eval-dev" / "cmrc" / "questions.jsonl")
    assert len(qs) == 52 and all(q.answerable for q in qs)
    assert len(ev.load_questions(shared_dir / "eval-dev" / "cmrc" / "questions.jsonl", limit=3)) == 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        ev.load_questions(bad)


# -------------------------------------------------------------- k8s-dev set


def test_k8s_dev_set_gold_answers_are_in_chunks():
    from core.ingest.corpus import load_sources

    qs = ev.load_questions(K8S_DEV)
    assert sum(q.answerable for q in qs) >= 20 and sum(not q.answerable for q in qs) >= 20
    assert len({q.id for q in qs}) == len(qs)
    parsed, failures = load_sources([SAMPLE])
    assert not failures
    by_source = {p.document.source_id: [c.text for c in p.chunks] for p in parsed}
    for q in qs:
        if q.answerable:
            texts = by_source[q.context_file]
            for gold in q.answers:
                assert any(gold in t for t in texts), (q.id, gold)


# ------------------------------------------------------------- end to end

SLICE_DOCS = [
    "concepts/configuration/configmap.md",
    "concepts/workloads/controllers/statefulset.md",
    "concepts/services-networking/endpoint-slices.md",
    "concepts/workloads/pods/ephemeral-containers.md",
]


@pytest.fixture(scope="module")
def slice_paths(tmp_path_factory):
    root = tmp_path_factory.mktemp("slice")
    docs = root / "docs"
    for rel in SLICE_DOCS:
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SAMPLE / rel, docs / rel)
    qs = [q for q in (json.loads(x) for x in K8S_DEV.read_text(encoding="utf-8").splitlines())]
    chosen = [q for q in qs if q["context_file"] in SLICE_DOCS][:5] + [q for q in qs if not q["answers"]][:3]
    assert len(chosen) == 8
    qfile = root / "questions.jsonl"
    qfile.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in chosen), encoding="utf-8")
    return qfile, docs


def _check_shape(report: dict, n: int) -> None:
    assert set(report) == {
        "config",
        "counts",
        "retrieval",
        "answer",
        "citations",
        "abstention",
        "latency_ms",
        "by_kind",
        "goals",
        "questions",
    }
    assert set(report["by_kind"]) == {"answerable", "unanswerable", "overall"}
    assert report["by_kind"]["overall"]["n"] == n and report["by_kind"]["answerable"]["n"] == 5
    assert report["counts"]["questions"] == n == len(report["questions"])
    assert report["counts"]["answerable"] == 5 and report["counts"]["unanswerable"] == 3
    shares = [
        *report["retrieval"].values(),
        *report["answer"].values(),
        report["citations"]["precision"],
        report["citations"]["recall"],
        *report["abstention"].values(),
    ]
    for v in shares:
        assert v is None or 0.0 <= v <= 1.0, shares
    r = report["retrieval"]
    assert r["recall@1"] <= r["recall@5"] <= r["recall@10"]
    assert r["mrr"] <= r["recall@10"]
    assert report["latency_ms"]["median"] <= report["latency_ms"]["p95"]
    for key in ("embedding_model", "tokenization", "fusion", "top_k", "evidence_threshold", "display_threshold"):
        assert key in report["config"]
    _check_known_values(report)


def _check_known_values(report: dict) -> None:
    """Values known by hand for this slice, whatever the retrieval settings."""
    rows = {q["id"]: q for q in report["questions"]}
    # Kafka, MySQL and Docker Compose appear in none of the four Kubernetes pages: all abstain.
    assert [q["status"] for q in report["questions"] if not q["answerable"]] == ["no_evidence"] * 3
    assert report["abstention"]["unanswerable_no_evidence"] == 1.0
    # "StatefulSet 默认的 Pod 管理策略是什么？": the page's section on Pod management policies names
    # OrderedReady as the default; that chunk reaches the generator and the extractive answer quotes it.
    statefulset = next(q for q in rows.values() if "Pod 管理策略" in q["question"])
    assert (statefulset["status"], statefulset["gold_in_evidence"], statefulset["contains_gold"]) == (
        "answered",
        True,
        True,
    )
    # extractive answers quote the chunks verbatim: every support is valid, every sentence is covered
    assert report["citations"]["supports"] >= 1
    assert report["citations"]["precision"] == 1.0 and report["citations"]["recall"] == 1.0
    assert sum(report["counts"]["status"].values()) == 8


def test_run_eval_hash_dense(slice_paths):
    from core.store.embeddings import HashingEmbedder

    qfile, docs = slice_paths
    report = ev.run_eval(
        qfile, [docs], embedder=HashingEmbedder(), embedding="hash", generator="extractive", progress=False
    )
    _check_shape(report, 8)
    assert report["config"]["embedding_model"] == HashingEmbedder.name
    assert report["config"]["dense_coverage"].split("/")[0] == report["config"]["dense_coverage"].split("/")[1]
    assert report["config"]["dense_coverage"] == f"{report['config']['chunks']}/{report['config']['chunks']}"


def test_cli_bm25_only_writes_report(slice_paths, tmp_path, capsys):
    qfile, docs = slice_paths
    out = tmp_path / "r.json"
    code = cli_main(
        [
            "eval",
            str(qfile),
            str(docs),
            "--no-dense",
            "--embedding",
            "hash",
            "--generator",
            "extractive",
            "--top-k",
            "5",
            "--evidence-threshold",
            "0.3",
            "--report",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    _check_shape(report, 8)
    assert report["config"]["fusion"] == "bm25 only" and report["config"]["top_k"] == 5
    assert report["config"]["evidence_threshold"] == 0.3
    printed = capsys.readouterr().out
    assert "retrieval recall@5" in printed and "citation precision" in printed


def test_cli_eval_writes_its_report_under_artifacts_by_default(tmp_path, monkeypatch, capsys):
    import core.evaluation

    monkeypatch.setattr(core.evaluation, "run_eval", lambda *a, **kw: {"config": {}, "rows": []})
    monkeypatch.setattr(core.evaluation, "format_table", lambda report: "table")
    monkeypatch.chdir(tmp_path)
    assert cli_main(["eval", "q.jsonl", "docs", "--quiet"]) == 0
    assert json.loads((tmp_path / "artifacts" / "eval-report.json").read_text(encoding="utf-8"))["rows"] == []
    assert not (tmp_path / "eval-report.json").exists()  # the checkout stays clean (artifacts/ is git-ignored)
    assert "report: artifacts/eval-report.json" in capsys.readouterr().out


def test_recording_retriever_matches_plain(tmp_path):
    from core.config import Settings
    from core.ingest.run import ingest
    from core.retrieval.hybrid import HybridRetriever
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex

    index = KnowledgeIndex(Settings(data_dir=tmp_path, embedding="hash"), HashingEmbedder())
    ingest(index, [SAMPLE / SLICE_DOCS[0], SAMPLE / SLICE_DOCS[1]], embed=False)
    for q in ("ConfigMap 能存多大的数据？", "StatefulSet 默认的 Pod 管理策略"):
        plain = HybridRetriever(index, top_k=3, evidence_threshold=0.3, use_dense=False).retrieve(q)
        rec = ev.RecordingRetriever(index, top_k=3, evidence_threshold=0.3, use_dense=False, depth=10)
        got = rec.retrieve(q)
        assert [c.chunk_id for c in got.chunks] == [c.chunk_id for c in plain.chunks]
        assert [c.chunk_id for c in got.evidence] == [c.chunk_id for c in plain.evidence]
        assert got.config["top_k"] == 3
        assert rec.last is not None and len(rec.last.ranking) >= len(got.chunks)


# ------------------------------------------------------- k8s format, by kind


def test_load_k8s_format_kinds_history_and_gold(shared_dir):
    qs = ev.load_questions(shared_dir / "eval-dev" / "k8s" / "questions.jsonl")
    kinds = {k: sum(q.kind == k for q in qs) for k in ("paraphrase", "english", "followup", "multi", "unanswerable")}
    assert kinds == {"paraphrase": 15, "english": 10, "followup": 10, "multi": 10, "unanswerable": 15}
    follow = [q for q in qs if q.kind == "followup"]
    assert all(len(q.history) == 1 for q in follow) and all(not q.history for q in qs if q.kind != "followup")
    assert all(q.require_all for q in qs if q.kind == "multi") and not any(
        q.require_all for q in qs if q.kind != "multi"
    )
    assert all(not q.answerable and not q.passages for q in qs if q.kind == "unanswerable")
    dev029 = next(q for q in qs if q.id == "dev-029")
    assert dev029.passages[0].file == "concepts/workloads/controllers/daemonset.md"
    assert dev029.passages[0].answer_text == "如果根本就没有指定，则 DaemonSet Controller 将在所有节点上创建 Pod。"


class _C:
    def __init__(self, text: str, source_id: str) -> None:
        self.text, self.source_id = text, source_id


def test_gold_passages_in_chunks_by_hand():
    a = ev.GoldPassage("值班 轮换周期是七天", "a.md")
    b = ev.GoldPassage("十五分钟内确认", "b.md")
    assert ev.passage_in_chunk(a, "青鸟的值班\n  轮换周期是七天。", "a.md")  # whitespace runs collapse
    assert not ev.passage_in_chunk(a, "值班 轮换周期是七天", "other.md")  # another file does not count
    multi = ev.EvalQuestion("m", "q", (a.answer_text, b.answer_text), kind="multi", passages=(a, b), require_all=True)
    only_a = [_C("值班 轮换周期是七天", "a.md")]
    both = only_a + [_C("应在十五分钟内确认。", "b.md")]
    assert not ev.gold_in_chunks(multi, only_a) and ev.gold_in_chunks(multi, only_a, require_all=False)
    assert ev.gold_in_chunks(multi, both)
    alt = ev.EvalQuestion("p", "q", (a.answer_text, b.answer_text), kind="paraphrase", passages=(a, b))
    assert ev.gold_in_chunks(alt, only_a)
    assert not ev.gold_in_chunks(ev.EvalQuestion("u", "q", (), kind="unanswerable"), both)


def test_by_kind_and_goals_by_hand():
    def row(kind, answerable, status, cited=False, any_=False, rank=None):
        return {
            "kind": kind,
            "answerable": answerable,
            "status": status,
            "answered": status in ("answered", "unverifiable"),
            "gold_in_cited": cited,
            "gold_in_cited_any": any_ or cited,
            "gold_rank": rank,
            "contains_gold": cited,
        }

    rows = [
        row("english", True, "answered", cited=True, rank=1),
        row("english", True, "answered", cited=False, rank=None),
        row("english", True, "no_evidence"),
        row("multi", True, "answered", cited=False, any_=True, rank=2),
        row("unanswerable", False, "no_evidence"),
        row("unanswerable", False, "answered"),
    ]
    kinds = ev.by_kind(rows)
    assert kinds["english"]["gold_in_cited"] == round(1 / 3, 4)
    assert kinds["english"]["cited_precision"] == 0.5  # 1 of the 2 answered
    assert kinds["english"]["no_evidence"] == round(1 / 3, 4)
    assert kinds["multi"]["gold_in_cited"] == 0.0 and kinds["multi"]["gold_in_cited_any"] == 1.0
    assert kinds["unanswerable"]["no_evidence"] == 0.5 and kinds["unanswerable"]["gold_in_cited"] is None
    assert kinds["overall"]["n"] == 6 and kinds["overall"]["cited_precision"] == round(1 / 3, 4)
    g = ev.goals(kinds, 42.0)
    assert g["unanswerable_no_evidence"] == 0.5 and g["gold_in_cited_english"] == round(1 / 3, 4)
    assert g["latency_median_ms"] == 42.0 and "gold_in_cited_followup" not in g


def _spied_retriever(tmp_path):
    """A recording retriever over one sample page (hash vectors, BM25 only), its settings, and the list of the
    ``history`` each ``resolve`` call got."""
    from core.config import Settings
    from core.ingest.run import ingest
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex

    settings = Settings(data_dir=tmp_path, embedding="hash")
    index = KnowledgeIndex(settings, HashingEmbedder())
    ingest(index, [SAMPLE / SLICE_DOCS[0]], embed=False)
    rec = ev.RecordingRetriever(index, top_k=3, evidence_threshold=0.3, use_dense=False, depth=10)
    seen: list[tuple] = []
    original = rec.resolve

    def spy(question, history=()):
        seen.append(tuple(history))
        return original(question, history)

    rec.resolve = spy
    return rec, settings, seen


def test_followup_history_reaches_the_retriever(tmp_path):
    from core.engine import ask
    from core.generators.extractive import ExtractiveGenerator

    rec, settings, seen = _spied_retriever(tmp_path)
    r = ask(
        "那它的大小上限呢？",
        retriever=rec,
        generator=ExtractiveGenerator(),
        records=None,
        settings=settings,
        history=["ConfigMap 是什么？"],
    )
    assert seen == [(("ConfigMap 是什么？", ""),)]  # each turn as (question, answer); a bare question has none
    assert r.retrieval_query == "ConfigMap 那它的大小上限呢？"  # the subject is carried into retrieval


def test_the_eval_asks_a_follow_up_after_its_earlier_questions_with_their_answers(tmp_path):
    """As in the chat, a follow-up's turns carry the answers the earlier questions got (each asked after the
    turns before it), not bare questions."""
    from core.engine import ask
    from core.evaluation.runner import conversation_turns
    from core.generators.extractive import ExtractiveGenerator

    rec, settings, seen = _spied_retriever(tmp_path)
    first, second = "ConfigMap 是什么？", "ConfigMap 的大小上限是多少？"
    turns = conversation_turns([first, second], rec, ExtractiveGenerator(), settings)
    said = ask(first, retriever=rec, generator=ExtractiveGenerator(), records=None, settings=settings).answer_text
    assert said and "ConfigMap" in said
    assert [t[0] for t in turns] == [first, second] and turns[0][1] == said
    assert seen[:2] == [(), ((first, said),)]  # the second question was asked after the first and its answer
    assert conversation_turns([], rec, ExtractiveGenerator(), settings) == ()


def test_an_unavailable_generator_becomes_error_records_but_a_bug_is_raised(slice_paths, monkeypatch, caplog):
    """Only ``AppError`` from opening the generator is turned into per-question error records
    (and logged with its traceback); a programming error in it is not hidden as a string."""
    import logging

    from core.engine import Engine
    from core.errors import GenerationError
    from core.store.embeddings import HashingEmbedder

    def unavailable(self, name=None):
        raise GenerationError(f"generator {name!r} unavailable: no API key")

    qfile, docs = slice_paths
    monkeypatch.setattr(Engine, "generator", unavailable)
    with caplog.at_level(logging.WARNING, logger="core.evaluation.runner"):
        report = ev.run_eval(
            qfile,
            [docs],
            embedder=HashingEmbedder(),
            embedding="hash",
            generator="extractive",
            use_dense=False,
            progress=False,
        )
    statuses = {q["status"] for q in report["questions"]}
    assert "error" in statuses and statuses <= {"error", "no_evidence"}
    warned = [r for r in caplog.records if "'extractive' unavailable" in r.getMessage()]
    assert warned and warned[0].exc_info is not None and "no API key" in str(warned[0].exc_info[1])

    def broken(self, name=None):
        raise TypeError("a bug, not a configuration problem")

    monkeypatch.setattr(Engine, "generator", broken)
    with pytest.raises(TypeError, match="a bug"):
        ev.run_eval(qfile, [docs], embedder=HashingEmbedder(), embedding="hash", use_dense=False, progress=False)
