"""The 知识库 page shows, per file, why a file was not stored or what was
left out (issue 10), through the real page script (AppTest)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent


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
    table = next(d.value for d in at.dataframe if "原因" in d.value.columns)
    rows = {r["文件"]: (r["结果"], r["原因"]) for r in table.to_dict("records")}
    assert rows["empty.md"][0] == "失败" and "文件为空" in rows["empty.md"][1]
    assert rows["utf16.txt"][0] == "失败" and "UTF-16" in rows["utf16.txt"][1]
    assert rows["_index.md"] == ("新增（有警告）", "没有可检索的正文（例如只有 front matter 或注释）：文档已登记，但提问时检索不到")
    assert rows["ok.md"] == ("新增", "")
