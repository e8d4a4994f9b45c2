"""Ingest only what changed (issue 18): a file whose bytes (and parse inputs) are
unchanged is hashed, never parsed, and keeps its active version."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import core.ingest.converters as converters
import core.ingest.corpus as corpus
import core.ingest.parse_jobs as parse_jobs
from core.ingest.parse_jobs import glossary_digest, parse_key
from core.ingest.run import ingest
from core.store.embeddings import HashingEmbedder
from core.store.index import KnowledgeIndex
from tests.conftest import make_settings


def _write(folder: Path) -> None:
    (folder / "a").mkdir(parents=True)
    (folder / "a" / "one.md").write_text("## 一节\n\nPod 是最小的部署单元。\n", encoding="utf-8")
    (folder / "two.md").write_text("## 二节\n\nService 暴露一组 Pod。\n", encoding="utf-8")
    (folder / "page.html").write_text("<h2>三节</h2><p>Ingress 管理外部访问。</p>", encoding="utf-8")


@pytest.fixture()
def setup(tmp_path, monkeypatch):
    """A folder of three sources ingested once, an index over it, and a spy
    counting every call of the Markdown parser and the HTML converter."""
    docs = tmp_path / "docs"
    _write(docs)
    index = KnowledgeIndex(make_settings(tmp_path / "data", embedding="hash"), HashingEmbedder())
    first = ingest(index, [docs], embed=False)
    assert first.counts()["added"] == 3
    calls: list[str] = []
    real_md = corpus.parse_markdown
    html = next(f for f in converters.FORMATS if f.name == "html")
    real_html = html.to_markdown

    def md_spy(text, source_id, **kw):
        calls.append(source_id)
        return real_md(text, source_id, **kw)

    def html_spy(text):
        calls.append("<html>")
        return real_html(text)

    monkeypatch.setattr(corpus, "parse_markdown", md_spy)
    spied = tuple(dataclasses.replace(f, to_markdown=html_spy) if f is html else f for f in converters.FORMATS)
    monkeypatch.setattr(converters, "FORMATS", spied)  # the HTML format's converter, as the walk reads it
    return docs, index, calls


def test_unchanged_reingest_parses_no_file(setup):
    docs, index, calls = setup
    before = dict(index.active_chunks())
    report = ingest(index, [docs], embed=False, remove_missing=True)
    assert calls == []
    assert report.results == {"a/one.md": "unchanged", "two.md": "unchanged", "page.html": "unchanged"}
    assert report.failures == []
    assert index.active_chunks() == before


def test_a_changed_file_is_the_only_one_parsed(setup):
    docs, index, calls = setup
    (docs / "two.md").write_text("## 二节\n\nService 为一组 Pod 提供稳定的地址。\n", encoding="utf-8")
    report = ingest(index, [docs], embed=False, remove_missing=True)
    assert calls == ["two.md"]
    assert report.results == {"a/one.md": "unchanged", "two.md": "updated", "page.html": "unchanged"}
    assert any("稳定的地址" in c.text for c in index.active_chunks().values())
    # and the next run skips it again
    calls.clear()
    assert set(ingest(index, [docs], embed=False).results.values()) == {"unchanged"}
    assert calls == []


def test_a_skipped_file_is_not_removed_and_a_missing_one_is(setup):
    docs, index, calls = setup
    (docs / "page.html").unlink()
    report = ingest(index, [docs], embed=False, remove_missing=True)
    assert report.results == {"a/one.md": "unchanged", "two.md": "unchanged", "page.html": "removed"}
    assert {d.document.source_id for d in index.documents()} == {"a/one.md", "two.md"}
    assert calls == []


def test_a_hidden_source_is_parsed_again_and_served(setup):
    docs, index, calls = setup
    assert index.hide("two.md")
    report = ingest(index, [docs], embed=False)
    assert calls == ["two.md"]
    assert report.results["two.md"] == "added"
    assert "two.md" in {d.document.source_id for d in index.documents()}


def test_parse_key_covers_every_input_of_the_parse():
    g = glossary_digest({"pod": "Pod"})
    base = parse_key(b"## x\n\ny\n", "a.md", "https://e.org/a/", g)
    assert base == parse_key(b"## x\n\ny\n", "a.md", "https://e.org/a/", glossary_digest({"pod": "Pod"}))
    assert (
        len(
            {
                base,
                parse_key(b"## x\n\nz\n", "a.md", "https://e.org/a/", g),  # bytes
                parse_key(b"## x\n\ny\n", "b.md", "https://e.org/a/", g),  # source id
                parse_key(b"## x\n\ny\n", "a.md", None, g),  # public URL
                parse_key(b"## x\n\ny\n", "a.md", "https://e.org/a/", glossary_digest({"pod": "豆荚"})),  # glossary
            }
        )
        == 5
    )


def test_changed_parsing_code_parses_again(setup, monkeypatch):
    docs, index, calls = setup
    parse_jobs._parser_fingerprint.cache_clear()
    monkeypatch.setattr(parse_jobs, "_parser_fingerprint", lambda: "another parser")
    report = ingest(index, [docs], embed=False)
    assert sorted(calls) == ["<html>", "a/one.md", "page.html", "two.md"]
    assert set(report.results.values()) == {"unchanged"}  # same content: same versions


def test_an_unchanged_file_reports_the_warnings_of_its_last_parse(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ctl.md").write_text("## 一节\n\nPod\x07 是最小的部署单元，Service 暴露一组 Pod。\n", encoding="utf-8")
    index = KnowledgeIndex(make_settings(tmp_path / "data", embedding="hash"), HashingEmbedder())
    first = ingest(index, [docs], embed=False)
    assert first.warnings["ctl.md"]
    again = ingest(index, [docs], embed=False)
    assert again.results == {"ctl.md": "unchanged"}
    assert again.warnings == first.warnings


def _worker_pid(chunks):  # noqa: ANN001 - a module-level ``prepare``, picklable
    import os

    return os.getpid()


def test_a_large_parse_runs_in_a_process_pool_with_the_same_result(tmp_path, monkeypatch):
    import os

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(12):
        (docs / f"d{i:02}.md").write_text(f"## 第{i}节\n\nPod {i} 与 Service {i}。\n", encoding="utf-8")
    (docs / "bad.md").write_bytes(b"\xff\xfe bad")
    serial = corpus.load_changed_sources([docs], workers=1, prepare=_worker_pid)
    monkeypatch.setattr(parse_jobs, "POOL_MIN_FILES", 2)
    monkeypatch.setattr(parse_jobs, "_only_thread", lambda: True)
    pooled = corpus.load_changed_sources([docs], workers=2, prepare=_worker_pid)
    assert [(p.document, p.chunks, p.warnings, p.parse_key) for p in pooled[0]] == [
        (p.document, p.chunks, p.warnings, p.parse_key) for p in serial[0]
    ]
    assert pooled[1] == serial[1] and len(pooled[1]) == 1  # the bad file fails the same way
    assert {p.prepared for p in serial[0]} == {os.getpid()}
    assert os.getpid() not in {p.prepared for p in pooled[0]}  # parsed in worker processes


def test_an_unchanged_reingest_writes_nothing(setup):
    docs, index, calls = setup
    generation = index.catalog_generation()
    ingest(index, [docs], embed=False, remove_missing=True)
    assert index.catalog_generation() == generation  # no new generation: no process reloads


def test_a_changed_glossary_title_parses_the_files_again(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    glossary = docs / "reference" / "glossary"
    glossary.mkdir(parents=True)
    (glossary / "pod.md").write_text("---\ntitle: Pod\nid: pod\n---\n", encoding="utf-8")
    (docs / "a.md").write_text('## 一节\n\n{{< glossary_tooltip term_id="pod" >}} 是最小单元。\n', encoding="utf-8")
    # the folder's corpus profile names its glossary folder (a user's folder has none: issue 26)
    (docs / "corpus-profile.json").write_text('{"glossary": "reference/glossary"}', encoding="utf-8")
    index = KnowledgeIndex(make_settings(tmp_path / "data", embedding="hash"), HashingEmbedder())
    ingest(index, [docs], embed=False)
    assert set(ingest(index, [docs], embed=False).results.values()) == {"unchanged"}
    (glossary / "pod.md").write_text("---\ntitle: 容器组\nid: pod\n---\n", encoding="utf-8")
    report = ingest(index, [docs], embed=False)
    assert report.results["a.md"] == "updated"
    assert any("容器组" in c.text for c in index.active_chunks().values())
