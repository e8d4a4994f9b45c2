"""A living knowledge base: versions, hiding, failed ingests, questions during
an ingest, uploads — and old answers replaying exactly as they were."""

from __future__ import annotations

import re
import shutil
import threading

import pytest

from components.answer_view import render_answer
from core.engine import Engine
from core.generators.extractive import ExtractiveGenerator
from core.ingest.library import ingest_uploads, safe_name
from core.ingest.run import ingest
from core.models import DEFAULT_KB, Chunk, source_key
from core.records.replay import current_counterpart, snapshot_state
from core.records.store import RecordStore
from core.store.embeddings import HashingEmbedder
from core.store.index import KnowledgeIndex
from tests.conftest import SAMPLE, make_settings

DOCS = [
    "concepts/workloads/controllers/cron-jobs.md",
    "concepts/workloads/controllers/daemonset.md",
    "concepts/services-networking/ingress.md",
]
QUESTION = "CronJob 的时间表语法是什么？"


@pytest.fixture()
def kb(tmp_path):
    root = tmp_path / "docs"
    for rel in DOCS:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SAMPLE / rel, root / rel)
    settings = make_settings(tmp_path / "data")
    index = KnowledgeIndex(settings, HashingEmbedder())
    report = ingest(index, [root], embed=False)
    assert report.counts()["added"] == 3
    engine = Engine(
        settings, index.embedder, index, RecordStore(settings.records_path), {"extractive": ExtractiveGenerator()}
    )
    return engine, root


def _cron_sentence(record) -> str:
    s = next(s for s in record.supports if "cron-jobs" in s.chunk_ids[0])
    return record.answer_text[s.start : s.end]


def test_changed_document_gets_new_ids_and_old_answer_replays_its_old_text(kb):
    engine, root = kb
    old = engine.ask(QUESTION)
    assert old.status == "answered"
    sentence = _cron_sentence(old)
    cited = next(c for s in old.supports for c in s.chunk_ids if "cron-jobs" in c)
    old_snap = old.chunk(cited)
    path = root / DOCS[0]
    raw = path.read_text(encoding="utf-8")
    head = sentence[:8]  # the raw file may wrap the sentence later on; its start is verbatim
    # every occurrence: the first one may sit in an English comment or front matter, which is not content
    assert head in raw, head
    path.write_text(raw.replace(head, "这句话在新版本中被改写了。" + head), encoding="utf-8")

    report = ingest(engine.index, [root], embed=False)
    assert report.results[DOCS[0]] == "updated"
    assert report.results[DOCS[1]] == "unchanged"
    versions = engine.index.current_versions()
    assert versions[source_key(DEFAULT_KB, DOCS[0])] != old_snap.version
    assert cited not in engine.index.active_chunks()
    assert engine.index.get_chunk(cited) is not None, "old versions are kept, never overwritten"

    replay = engine.records.get(old.answer_id)
    assert replay == old
    html = render_answer(replay, current_versions=versions)
    # the old sentence as a reader sees it (a quoted chunk keeps its Markdown links, rendered as links)
    visible = re.sub(r"<[^>]+>", "", html).replace("&quot;", '"')
    assert re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", sentence) in visible
    assert "来源已更新" in html
    assert snapshot_state(old_snap, versions) == "updated"
    now = current_counterpart(engine.index, old_snap)
    assert now is not None and now.source_id == DOCS[0] and "这句话在新版本中被改写了。" in now.text


def test_hidden_document_is_not_retrieved_but_old_answers_replay(kb):
    engine, _ = kb
    old = engine.ask(QUESTION)
    assert DOCS[0] in {c.source_id for c in old.chunks}  # retrieved before it is hidden
    assert engine.index.hide(DOCS[0]) is True
    res = engine.retriever().retrieve(QUESTION)
    assert all(rc.chunk.source_id != DOCS[0] for rc in res.chunks)
    versions = engine.index.current_versions()
    assert versions[source_key(DEFAULT_KB, DOCS[0])] is None
    assert DOCS[0] not in {r.document.source_id for r in engine.index.documents()}
    html = render_answer(engine.records.get(old.answer_id), current_versions=versions)
    assert "来源已删除" in html and html.count('<sup class="yz-cite">') == len(old.supports)


def test_ingest_failing_halfway_loses_nothing(kb, monkeypatch):
    engine, root = kb
    before_ids = set(engine.index.active_chunks())
    before_versions = engine.index.current_versions()
    for rel in DOCS:
        p = root / rel
        p.write_text(p.read_text(encoding="utf-8") + "\n\n## 新增一节\n\n新内容。\n", encoding="utf-8")
    calls = {"n": 0}
    real = Chunk.model_dump_json

    def flaky(self, *a, **kw):
        calls["n"] += 1
        if calls["n"] > 30:  # fail in the middle of writing the second document
            raise RuntimeError("disk full")
        return real(self, *a, **kw)

    monkeypatch.setattr(Chunk, "model_dump_json", flaky)
    with pytest.raises(RuntimeError, match="disk full"):
        ingest(engine.index, [root], embed=False)
    monkeypatch.setattr(Chunk, "model_dump_json", real)
    assert calls["n"] > 30
    assert set(engine.index.active_chunks()) == before_ids
    assert engine.index.current_versions() == before_versions
    # reopening from disk shows the same (rolled back) state
    reopened = KnowledgeIndex(engine.settings, engine.embedder)
    assert set(reopened.active_chunks()) == before_ids
    assert engine.ask(QUESTION).status == "answered"
    # and the next ingest goes through
    assert ingest(engine.index, [root], embed=False).counts()["updated"] == 3


def test_a_broken_file_is_reported_and_the_rest_is_ingested(kb):
    engine, root = kb
    (root / "broken.md").write_bytes(b"\xff\xfe not utf-8 \x80")
    (root / "new.md").write_text("---\ntitle: 新文档\n---\n## 一节\n\n全新的内容。\n", encoding="utf-8")
    report = ingest(engine.index, [root], embed=False)
    assert report.results["new.md"] == "added"
    assert [f.source_id for f in report.failures] == ["broken.md"]
    assert "UTF-8" in report.failures[0].reason
    assert report.counts()["unchanged"] == 3


def test_questions_during_an_ingest_see_old_or_new_state_never_a_mixture(kb):
    engine, root = kb
    old_versions = engine.index.current_versions()
    for rel in DOCS:
        p = root / rel
        p.write_text(
            p.read_text(encoding="utf-8") + "\n\n## CronJob 补充\n\nCronJob 的时间表语法补充说明。\n", encoding="utf-8"
        )
    seen: list[set[tuple[str, str]]] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def ask_repeatedly():
        try:
            while not done.is_set():
                res = engine.retriever(top_k=20).retrieve(QUESTION)
                seen.append({(rc.chunk.source_key, rc.chunk.version) for rc in res.chunks})
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    t = threading.Thread(target=ask_repeatedly)
    t.start()
    try:
        ingest(engine.index, [root], embed=False)
    finally:
        done.set()
        t.join(timeout=60)
    assert not errors, errors
    new_versions = engine.index.current_versions()
    assert all(new_versions[source_key(DEFAULT_KB, d)] != old_versions[source_key(DEFAULT_KB, d)] for d in DOCS)
    assert seen, "the reader thread never ran"
    for pairs in seen:
        states = {"old" if old_versions[s] == v else "new" if new_versions[s] == v else "?" for s, v in pairs}
        assert states in ({"old"}, {"new"}), states


def test_uploads_markdown_html_pdf_and_refused_names(tmp_path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title("Refund Policy")
    for text in ("Refunds are issued within 14 days.", "Shipping costs are not refunded."):
        pdf.add_page()
        pdf.set_font("helvetica", size=12)
        pdf.multi_cell(0, 10, text)
    settings = make_settings(tmp_path / "data")
    index = KnowledgeIndex(settings, HashingEmbedder())
    files = [
        ("notes.md", "---\ntitle: 笔记\n---\n## 一\n\n上传的笔记内容。\n".encode()),
        (
            "page.html",
            "<html><head><title>服务说明</title><script>alert(1)</script></head><body><h2>价格</h2><p>基础版免费。</p></body></html>".encode(),
        ),
        ("policy.pdf", bytes(pdf.output())),
        ("../../escape.md", "## x\n\n路径不能逃出上传目录。\n".encode()),
        ("virus.exe", b"MZ"),
        ("broken.pdf", b"not a pdf"),
    ]
    report = ingest_uploads(index, files, settings.data_dir / "uploads")
    assert report.results == {"notes.md": "added", "page.html": "added", "policy.pdf": "added", "escape.md": "added"}
    assert sorted(f.source_id for f in report.failures) == ["broken.pdf", "virus.exe"]
    assert (settings.data_dir / "uploads" / "escape.md").is_file()
    assert not (tmp_path / "escape.md").exists()
    chunks = list(index.active_chunks().values())
    html_chunks = [c for c in chunks if c.source_id == "page.html"]
    assert [c.heading_path for c in html_chunks] == [("服务说明", "价格")]
    assert "alert" not in " ".join(c.text for c in html_chunks)
    pages = sorted(
        (c.metadata.get("page"), c.metadata.get("page_end"), c.text) for c in chunks if c.source_id == "policy.pdf"
    )
    # one section over both pages (issue 29: a passage may run over a page break); each chunk knows its pages
    assert pages == [(1, 2, "Refunds are issued within 14 days.\n\nShipping costs are not refunded.")]
    assert all(c.uri is None for c in chunks), "uploads have no public URL"


@pytest.mark.parametrize(
    "name,expected",
    [
        ("a.md", "a.md"),
        ("dir/b.PDF", "b.PDF"),
        ("..\\..\\c.txt", "c.txt"),
        (".hidden.md", None),
        ("x.exe", None),
        ("", None),
        ("a\x00.md", None),
    ],
)
def test_safe_name(name, expected):
    assert safe_name(name) == expected


def test_an_ingest_by_another_process_is_seen_by_the_running_app(kb):
    """The app keeps one KnowledgeIndex open; `python -m core ingest` writes through another."""
    engine, root = kb
    other = KnowledgeIndex(engine.settings, engine.embedder)
    (root / "late.md").write_text(
        "---\ntitle: 迟到的文档\n---\n## 唯一一节\n\n斑马线协议规定了跨集群握手的步骤。\n", encoding="utf-8"
    )
    assert ingest(other, [root], embed=False).results["late.md"] == "added"
    res = engine.retriever().retrieve("斑马线协议规定了什么？")
    assert [rc.chunk.source_id for rc in res.evidence][:1] == ["late.md"]
    other.hide("late.md")
    assert all(rc.chunk.source_id != "late.md" for rc in engine.retriever().retrieve("斑马线协议规定了什么？").chunks)
