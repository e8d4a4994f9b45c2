"""Content is never dropped in silence (issue 10): empty, whitespace-only and
garbled files (NUL-laden PDF text) are reported per file, in Chinese."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from core.ingest.corpus import load_sources
from core.ingest.run import ingest
from core.ingest.sourcetext import GARBLED_SHARE, check_text, unreadable_share
from core.store.embeddings import HashingEmbedder
from core.store.index import KnowledgeIndex
from tests.conftest import make_settings

# --------------------------------------------------------------------------- #
# Empty, whitespace-only and garbled files
# --------------------------------------------------------------------------- #


@pytest.fixture()
def index(tmp_path):
    return KnowledgeIndex(make_settings(tmp_path / "data"), HashingEmbedder())


def _write(root: Path, files: dict[str, bytes]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (root / name).write_bytes(data)
    return root


def test_empty_whitespace_and_garbled_text_files_fail_with_a_chinese_reason(tmp_path, index):
    root = _write(
        tmp_path / "docs",
        {
            "empty.md": b"",
            "bom-only.md": "\ufeff".encode(),
            "blank.txt": " \n\t\n\u3000\n".encode(),
            "utf16.txt": "## 版权\n\nCopyright notice here.\n".encode("utf-16-le"),
            "utf16-cjk.txt": "## 标题\n\n正文内容。\n".encode("utf-16"),
            "nuls.md": ("\x00版\x00权\x00所\x00有\x00").encode(),
            "good.md": "## 一节\n\n正常的内容。\n".encode(),
        },
    )
    report = ingest(index, [root], embed=False)
    reasons = {f.source_id: f.reason for f in report.failures}
    assert set(reasons) == {"empty.md", "bom-only.md", "blank.txt", "utf16.txt", "utf16-cjk.txt", "nuls.md"}
    assert "文件为空" in reasons["empty.md"] and "文件为空" in reasons["bom-only.md"]
    assert "空白" in reasons["blank.txt"]
    assert "无法识别" in reasons["nuls.md"] and "UTF-16" in reasons["utf16.txt"]
    assert "UTF-8" in reasons["utf16-cjk.txt"] and "UTF-16" in reasons["utf16-cjk.txt"]
    assert report.results == {"good.md": "added"}
    assert report.counts()["failed"] == 6
    assert {c.source_id for c in index.active_chunks().values()} == {"good.md"}


def test_a_few_control_characters_are_removed_with_a_warning(tmp_path, index):
    root = _write(tmp_path / "docs", {"a.md": "## 一节\n\n版权\x00所有，保留\x07一切权利。\x0c下一页。\n".encode()})
    report = ingest(index, [root], embed=False)
    assert report.results == {"a.md": "added"}
    assert report.warnings["a.md"] == ["已删除 2 个控制字符（如 NUL）"]
    (chunk,) = index.active_chunks().values()
    assert "版权所有，保留一切权利。" in chunk.text and not re.search(r"[\x00-\x08\x0b-\x1f]", chunk.text)


def test_front_matter_only_file_is_stored_with_a_warning(tmp_path, index):
    root = _write(tmp_path / "docs", {"_index.md": "---\ntitle: 工作负载\n---\n<!-- only a comment -->\n".encode()})
    report = ingest(index, [root], embed=False)
    assert report.results == {"_index.md": "added"}
    assert "没有可检索的正文" in report.warnings["_index.md"][0]
    assert report.counts()["warned"] == 1
    entry = report.as_dict()["files"][0]
    assert entry["warnings"] == report.warnings["_index.md"]


def test_unreadable_share_rule():
    assert unreadable_share("") == 0.0
    assert unreadable_share("正常的中文文本。 ") == 0.0
    assert unreadable_share("\x00版\x00权") == 0.5
    assert unreadable_share("\ufffd\ufffd好") == pytest.approx(2 / 3)
    assert unreadable_share("\ue000\ue001ab") == 0.5  # private use
    assert unreadable_share("a\tb\nc\r") == 0.0
    assert unreadable_share("x" * 99 + "\x00") < GARBLED_SHARE
    text = "原文内容完整\x00"
    assert check_text(text) == ("原文内容完整", ["已删除 1 个控制字符（如 NUL）"]) and text == "原文内容完整\x00"


# --------------------------------------------------------------------------- #
# PDFs: NUL-garbled text extraction
# --------------------------------------------------------------------------- #


def _pdf(pages: list[str], nul_pages: dict[int, str] | None = None, title: str | None = None) -> bytes:
    """A PDF (fpdf2, Helvetica) whose page ``n`` in ``nul_pages`` draws its text
    as UTF-16BE bytes in a simple font, the way some producers do: pypdf then
    extracts a NUL before every character (``\\x00C\\x00o…``)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_compression(False)
    if title:
        pdf.set_title(title)
    patches: list[tuple[bytes, bytes]] = []
    for n, text in enumerate(pages, start=1):
        pdf.add_page()
        pdf.set_font("helvetica", size=12)
        bad = (nul_pages or {}).get(n)
        if bad is None:
            pdf.text(10, 20, text)
        else:
            raw = b"".join(b"\\000" + bytes([ord(ch)]) for ch in bad)
            placeholder = chr(ord("P") + n) * len(raw)  # same length: xref offsets stay right
            pdf.text(10, 20, placeholder)
            patches.append((f"({placeholder})".encode(), b"(" + raw + b")"))
    data = bytes(pdf.output())
    for old, new in patches:
        assert data.count(old) == 1
        data = data.replace(old, new)
    return data


def test_the_fixture_pdf_really_extracts_nuls():
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(_pdf(["x"], {1: "Copyright 2024"})))
    assert reader.pages[0].extract_text() == "".join("\x00" + ch for ch in "Copyright 2024")


def test_pdf_whose_text_extracts_as_nuls_fails_with_a_reason(tmp_path, index):
    root = _write(
        tmp_path / "docs", {"garbled.pdf": _pdf(["x", "y"], {1: "Copyright 2024 Example", 2: "All rights reserved"})}
    )
    report = ingest(index, [root], embed=False)
    assert report.results == {}
    (failure,) = report.failures
    assert failure.source_id == "garbled.pdf"
    assert "第 1、2 页" in failure.reason and "ToUnicode" in failure.reason and "未导入" in failure.reason


def test_garbled_pdf_page_is_left_out_and_the_rest_is_stored_with_a_warning(tmp_path, index):
    pdf = _pdf(["Refunds are issued within 14 days.", "x"], {2: "Shipping costs are not refunded"}, title="Po\x00licy")
    root = _write(tmp_path / "docs", {"policy.pdf": pdf})
    report = ingest(index, [root], embed=False)
    assert report.results == {"policy.pdf": "added"}
    assert any("第 2 页" in w for w in report.warnings["policy.pdf"])
    chunks = list(index.active_chunks().values())
    assert [c.text for c in chunks] == ["Refunds are issued within 14 days."]
    assert chunks[0].title == "Policy"


def test_pdf_extraction_with_nuls_between_cjk_characters_is_not_stored(tmp_path, monkeypatch):
    """The break-it case (`�版�权…`), injected through PDFium's character reader."""
    import pypdfium2.raw as raw

    garbled = "\x00版\x00权\x00所\x00有\x00，\x00翻\x00印\x00必\x00究"
    monkeypatch.setattr(raw, "FPDFText_GetUnicode", lambda textpage, i: ord(garbled[i % len(garbled)]))
    root = _write(tmp_path / "docs", {"cn.pdf": _pdf(["placeholder"])})
    parsed, failures = load_sources([root])
    assert parsed == []
    assert [f.source_id for f in failures] == ["cn.pdf"] and "无法识别" in failures[0].reason


def test_pdf_without_any_text_fails(tmp_path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.rect(10, 10, 50, 50)  # a drawing, no text: like a scanned page
    root = _write(tmp_path / "docs", {"scan.pdf": bytes(pdf.output())})
    parsed, failures = load_sources([root])
    assert parsed == [] and "没有可提取的文字" in failures[0].reason


def test_library_page_rows_show_failures_and_warnings_in_chinese(tmp_path, index):
    from components.library_view import report_rows

    root = _write(
        tmp_path / "docs",
        {
            "empty.md": b"",
            "_index.md": "---\ntitle: 只有标题\n---\n".encode(),
            "ok.md": "## 节\n\n内容。\n".encode(),
        },
    )
    rows = report_rows(ingest(index, [root], embed=False))
    by_file = {r["文件"]: r for r in rows}
    assert by_file["empty.md"]["结果"] == "失败" and "文件为空" in by_file["empty.md"]["原因"]
    assert by_file["_index.md"]["结果"] == "新增（有警告）" and "没有可检索的正文" in by_file["_index.md"]["原因"]
    assert by_file["ok.md"] == {"文件": "ok.md", "结果": "新增", "原因": ""}


def test_a_file_of_one_huge_line_is_ingested_with_a_warning(tmp_path):
    """Issue 30: a 3 MB one-line Markdown file was accepted as 3,077 chunks without a warning."""
    from core.ingest.corpus import LONG_LINE_CHARS, load_sources

    root = tmp_path / "docs"
    root.mkdir()
    (root / "dump.md").write_text("# 导出\n\n" + "数据" * (LONG_LINE_CHARS // 2 + 10) + "\n", encoding="utf-8")
    (root / "ok.md").write_text("# 正常\n\n" + "一句正常的话。\n" * 50, encoding="utf-8")
    parsed, failures = load_sources([root])
    assert failures == []
    by_id = {p.document.source_id: p for p in parsed}
    assert len(by_id["dump.md"].chunks) > 100
    assert any("一行有" in w and "个片段" in w for w in by_id["dump.md"].warnings)
    assert not any("一行有" in w for w in by_id["ok.md"].warnings)
