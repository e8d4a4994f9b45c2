"""The 知识库 page shows, per file, why a file was not stored or what was
left out (issue 10), through the real page script (AppTest)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_folder_ingest_shows_failures_and_warnings_with_chinese_reasons(page_env):
    folder = page_env / "upload-folder"
    folder.mkdir()
    (folder / "empty.md").write_bytes(b"")
    (folder / "utf16.txt").write_bytes("## 标题\n\n正文内容。\n".encode("utf-16-le"))
    (folder / "_index.md").write_text("---\ntitle: 只有标题\n---\n", encoding="utf-8")
    (folder / "ok.md").write_text("## 节\n\n正常的内容。\n", encoding="utf-8")
    at = AppTest.from_file(str(ROOT / "app_pages" / "library.py"), default_timeout=120).run()
    assert not at.exception, at.exception
    at.text_input[0].set_value(str(folder)).run()
    next(b for b in at.button if b.label == "导入文件夹").click().run()
    assert not at.exception, at.exception
    assert any("失败 2" in w.value and "警告 1" in w.value for w in at.warning)
    rows = {r[0]: (r[1], r[2]) for r in _report_rows(at)}
    assert rows["empty.md"][0] == "失败" and "文件为空" in rows["empty.md"][1]
    assert rows["utf16.txt"][0] == "失败" and "UTF-16" in rows["utf16.txt"][1]
    assert rows["_index.md"] == (
        "新增（有警告）",
        "没有可检索的正文（例如只有 front matter 或注释）：文档已登记，但提问时检索不到",
    )
    assert rows["ok.md"] == ("新增", "")


def _report_rows(at: AppTest) -> list[tuple[str, ...]]:
    """The cells of the import report (an HTML table: ``components.library_view.report_html``), unescaped."""
    body = next(el.proto.body for el in at.get("html") if 'class="yz-report"' in el.proto.body)
    rows = re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1], flags=re.S)
    return [tuple(html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", r, flags=re.S)) for r in rows]


def _library(page_env: Path) -> AppTest:  # noqa: ARG001 - page_env sets the environment
    at = AppTest.from_file(str(ROOT / "app_pages" / "library.py"), default_timeout=120).run()
    assert not at.exception, at.exception
    return at


def _button(at: AppTest, label: str):  # noqa: ANN202
    return next(b for b in at.button if b.label == label)


def _documents_table(at: AppTest):  # noqa: ANN202
    return next(d.value for d in at.dataframe if "可见性" in d.value.columns)


@pytest.mark.slow
def test_hiding_asks_first_keeps_its_message_and_can_be_undone(page_env):
    folder = page_env / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("---\ntitle: 甲文档\n---\n## 节\n\n甲的内容。\n", encoding="utf-8")
    at = _library(page_env)
    at.text_input[0].set_value(str(folder)).run()
    _button(at, "导入文件夹").click().run()
    assert not at.exception, at.exception
    assert _documents_table(at).shape[0] == 2
    assert "知识库：2 篇文档" in " ".join(c.value for c in at.caption)  # header and table agree
    select = next(s for s in at.selectbox if s.label == "选择文档（按标题）")
    assert "甲文档（a.md）" in select.options  # chosen by title, path as the detail
    select.set_value("a.md").run()
    _button(at, "隐藏此文档…").click().run()
    assert _documents_table(at).shape[0] == 2  # nothing hidden before the confirmation
    assert any("确定隐藏" in w.value for w in at.warning)
    _button(at, "确认隐藏").click().run()
    assert not at.exception, at.exception
    assert _documents_table(at).shape[0] == 1
    assert any("已隐藏" in s.value for s in at.success)
    assert "甲文档（a.md）" in [t.value for t in at.text]
    at.run()  # the message stays on the next rerun
    assert any("已隐藏" in s.value for s in at.success)
    assert any(e.label == "已隐藏的文档（1）" for e in at.expander)
    _button(at, "恢复").click().run()
    assert not at.exception, at.exception
    assert _documents_table(at).shape[0] == 2
    assert any("已恢复" in s.value for s in at.success)
    assert any(e.label == "已隐藏的文档（0）" for e in at.expander)


def test_english_reasons_are_shown_in_chinese() -> None:
    from components.library_view import reason_zh

    assert (
        reason_zh("a.md: not valid UTF-8 (byte 0xff at offset 3)")
        == "a.md：不是有效的 UTF-8 文本（偏移 3 处的字节 0xff），未导入"
    )
    assert reason_zh("b.md: Markdown nested too deeply to parse") == "b.md：Markdown 嵌套过深，无法解析，未导入"
    assert reason_zh("c.md: could not parse Markdown: ValueError: x") == "c.md：无法解析 Markdown，未导入"
    assert reason_zh("something odd happened") == "无法导入（原因：something odd happened）"
    assert reason_zh("文件为空，未导入") == "文件为空，未导入"


def test_an_empty_upload_is_rejected_with_a_reason(tmp_path, sample_engine):
    from core.ingest.library import ingest_uploads

    before = len(sample_engine.index.documents())
    report = ingest_uploads(sample_engine.index, [("空.md", b""), ("只有空白.txt", b" \n\t\n")], tmp_path / "uploads")
    assert report.counts()["added"] == 0 and len(sample_engine.index.documents()) == before
    reasons = {f.source_id: f.reason for f in report.failures}
    assert "文件为空" in reasons["空.md"] and "空白" in reasons["只有空白.txt"]


@pytest.mark.slow
def test_an_import_of_uploads_empties_the_upload_box_and_its_report_fits(page_env):
    """The tester's input: after 导入上传的文件 the box kept its files (the next import sent them
    again), and the report's 原因 column was cut off at 1400 px (and could not wrap at 390 px)."""
    at = _library(page_env)
    at.file_uploader[0].set_value(
        [("甲.md", "## 节\n\n甲的内容。\n".encode(), "text/markdown"), ("空.md", b"", "text/markdown")]
    ).run()
    assert not _button(at, "导入上传的文件").disabled
    _button(at, "导入上传的文件").click().run()
    assert not at.exception, at.exception
    assert any("新增 1" in w.value and "失败 1" in w.value for w in at.warning)
    assert not at.file_uploader[0].value and _button(at, "导入上传的文件").disabled  # nothing to send again
    assert not any("原因" in d.value.columns for d in at.dataframe)  # a canvas grid cannot wrap a long reason
    assert [r[:2] for r in _report_rows(at)] == [("空.md", "失败"), ("甲.md", "新增")]


def test_the_import_report_escapes_names_and_lets_every_cell_wrap():
    from components.library_view import REPORT_CSS, report_html

    hostile = '<img src=x onerror="alert(1)">.md'
    long_reason = "不是有效的 UTF-8 文本（偏移 3 处的字节 0xff），未导入；" * 6
    out = report_html([{"文件": hostile, "结果": "失败", "原因": long_reason}])
    assert "<img" not in out and html.escape(hostile) in out
    assert f"<td>{long_reason}</td>" in out  # the whole reason, never cut with …
    assert "white-space:normal" in REPORT_CSS and "overflow-wrap:anywhere" in REPORT_CSS
    assert "table-layout:fixed" in REPORT_CSS and out.startswith(REPORT_CSS)


@pytest.mark.slow
def test_the_uploader_says_its_limit_and_types_in_chinese(page_env):
    """Issue 30 item 6: the drop zone's own strings ('Upload', '50MB per file') are Streamlit's,
    English in 1.67 with no option to change them; the page says the limit and the types in Chinese
    beside it (and hides Streamlit's English line that says the same)."""
    import streamlit as st

    at = _library(page_env)
    limit = st.get_option("server.maxUploadSize")
    hint = " ".join(c.value for c in at.caption)
    assert f"每个文件最大 {limit} MB" in hint and "Markdown" in hint and "PDF" in hint
    assert at.file_uploader[0].label.startswith("上传")
    assert any("stFileUploaderDropzoneInstructions" in h.proto.body for h in at.get("html"))
