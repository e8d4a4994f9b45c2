"""One registry of file formats (issue 31): every place that takes a source file reads
``core.ingest.converters.FORMATS``, so a type is never accepted in one place and refused in another."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.library_view import UPLOAD_TYPES, upload_hint
from core.generators.gemini_store import STORE_MIME_TYPES
from core.ingest.converters import FORMATS, SOURCE_SUFFIXES, format_of, mime_types, upload_types
from core.ingest.corpus import iter_source_files, parse_file
from tests.pdf_fixtures import policy_pdf

SAMPLE = {
    "markdown": "# 退款规则\n\n订单签收后 7 天内可以申请退款。\n",
    "text": "退款规则\n\n订单签收后 7 天内可以申请退款。\n",
    "html": "<html><head><title>退款规则</title></head><body><p>订单签收后 7 天内可以申请退款。</p></body></html>",
}


def test_every_consumer_takes_exactly_the_registered_suffixes():
    suffixes = [s for f in FORMATS for s in f.suffixes]
    assert list(SOURCE_SUFFIXES) == suffixes and len(set(suffixes)) == len(suffixes)
    assert all(s.startswith(".") and s == s.lower() for s in suffixes)
    assert list(UPLOAD_TYPES) == [s[1:] for s in suffixes] == list(upload_types())
    assert STORE_MIME_TYPES == mime_types() and set(STORE_MIME_TYPES) == set(suffixes)
    assert STORE_MIME_TYPES[".md"] == "text/plain" and STORE_MIME_TYPES[".pdf"] == "application/pdf"


def test_the_upload_hint_names_every_format_and_suffix(monkeypatch):
    import streamlit as st

    monkeypatch.setattr(st, "get_option", lambda name: 200)
    hint = upload_hint()
    for fmt in FORMATS:
        assert fmt.label in hint
        for suffix in fmt.suffixes:
            assert suffix in hint


@pytest.mark.parametrize("suffix", [s for f in FORMATS for s in f.suffixes])
def test_every_registered_suffix_is_walked_and_parsed_by_its_format(tmp_path, suffix):
    fmt = format_of(f"x{suffix.upper()}")  # case-insensitive
    assert fmt is not None and suffix in fmt.suffixes
    path = tmp_path / "docs" / f"退款{suffix}"
    path.parent.mkdir()
    if fmt.read is not None:
        path.write_bytes(policy_pdf())
    else:
        path.write_text(SAMPLE[fmt.name], encoding="utf-8")
    (tmp_path / "docs" / "notes.rst").write_text("不是登记的类型", encoding="utf-8")
    assert [p.name for p, _ in iter_source_files([tmp_path / "docs"])] == [path.name]
    doc, chunks, _ = parse_file(path, path.name)
    assert chunks
    if fmt.read is not None:
        assert all(c.metadata.get("page") for c in chunks)  # placed in the file by the format
    else:
        assert any("7 天内可以申请退款" in c.text for c in chunks)
        assert doc.title == "退款规则" or fmt.name == "text"


def test_a_named_file_of_no_registered_type_is_read_as_markdown_text_as_before(tmp_path):
    """The folder walk skips it (above); named explicitly (``python -m core ingest notes.rst``) it is
    read as Markdown text, as before the registry."""
    path = tmp_path / "a.rst"
    path.write_text("# 说明\n\n订单签收后 7 天内可以申请退款。\n", encoding="utf-8")
    assert format_of(path) is None
    doc, chunks, _ = parse_file(path, "a.rst")
    assert doc.title == "说明"
    assert any("7 天内可以申请退款" in c.text for c in chunks)


def test_format_of_reads_the_last_suffix_only():
    assert format_of(Path("报告.pdf.md")).name == "markdown"
    assert format_of("README") is None
