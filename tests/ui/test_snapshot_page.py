"""The snapshot page (issue 15): the chunk's Markdown rendered safely with the cited passage
highlighted, the stored text verbatim under 原始文本, and a way back to the answer."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from core.records.presentation import snippet

ROOT = Path(__file__).resolve().parents[2]


def test_snapshot_page_renders_markdown_highlights_and_links_back(app_env):  # noqa: F811
    record = app_env.ask("Pod 的重启策略有哪些？", conversation_id="conv-1")
    sp = record.supports[0]
    chunk_id = sp.chunk_ids[0]
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)  # with app.py's navigation
    at.switch_page("app_pages/sources.py")
    at.query_params["answer_id"] = record.answer_id
    at.query_params["chunk_id"] = chunk_id
    at.run()
    assert not at.exception, at.exception
    body = next(el.proto.body for el in at.get("html") if 'class="yz-snap-md"' in el.proto.body)
    marks = re.findall(r"<mark[^>]*>(.*?)</mark>", body, flags=re.S)
    sentence = record.answer_text[sp.start : sp.end].strip()
    # the extractive sentence, as rendered (inline code without its backticks)
    assert re.sub(r"<[^>]+>", "", "".join(marks)).split() == snippet(sentence, 1000).split()
    assert "`" not in "".join(marks)
    assert "<script" not in body.lower()
    assert [t.value for t in at.expander[0].text] == [record.chunk(chunk_id).text]
    back = [el.proto for el in at.get("page_link") if el.proto.label == "返回回答"]
    assert len(back) == 1 and "conv-1" in str(back[0]), back  # the answer's conversation, same session
