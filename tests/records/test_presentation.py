"""``core.records.presentation`` is what the page and the export share: on every golden case the
export's footnote numbers and the page's card numbers agree chunk by chunk, and the
status texts come from one place."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from components.answer_view import render_answer, source_cards
from core.records.export import STATUS_TEXT, UNSUPPORTED_MARK, to_markdown
from core.records.presentation import NO_EVIDENCE_MESSAGE, UNSUPPORTED_LABEL, mark_answer
from tests.ui.test_render import GOLDEN, _golden_record

FOOTNOTE = re.compile(r"^\[\^(\d+)\]: .*（片段 (.+?)，版本 ", re.M)


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_page_and_export_number_each_chunk_alike(path: Path) -> None:
    rec, _ = _golden_record(json.loads(path.read_text(encoding="utf-8")))
    page = {c.chunk_id: c.number for c in source_cards(rec)}
    export = {cid: int(n) for n, cid in FOOTNOTE.findall(to_markdown(rec))}
    assert export == page
    assert mark_answer(rec).numbers == page
    assert sorted(page.values()) == list(range(1, len(page) + 1))


def test_status_texts_are_shared() -> None:
    assert STATUS_TEXT["no_evidence"] == NO_EVIDENCE_MESSAGE
    assert UNSUPPORTED_MARK == f"〔{UNSUPPORTED_LABEL}〕"
    rec, _ = _golden_record(json.loads((GOLDEN[0]).read_text(encoding="utf-8")))
    no_ev = rec.model_copy(update={"status": "no_evidence", "supports": ()})
    assert NO_EVIDENCE_MESSAGE in render_answer(no_ev) and NO_EVIDENCE_MESSAGE in to_markdown(no_ev)


def test_the_export_gives_the_decisions_own_reason_for_a_refusal_as_the_chat_does() -> None:
    """A helper's round (session 19): the chat and the command line say why a question was refused ("知识库中没有关于
    「A1」的内容。"); the Markdown export said only the generic sentence. The reason holds the person's words: escaped."""
    from core.models import SufficiencyInfo

    rec, _ = _golden_record(json.loads((GOLDEN[0]).read_text(encoding="utf-8")))
    reason = SufficiencyInfo(
        decision="no_evidence", score=0.1, threshold=0.57, mode="hybrid2", missing_terms=("A1*",),
        message="知识库中没有关于「A1*」的内容。",
    )  # fmt: skip
    no_ev = rec.model_copy(update={"status": "no_evidence", "supports": (), "sufficiency": reason})
    md = to_markdown(no_ev)
    assert "知识库中没有关于「A1\\*」的内容。" in md and NO_EVIDENCE_MESSAGE not in md, md
    assert "知识库中没有关于「A1*」的内容。" in render_answer(no_ev)
