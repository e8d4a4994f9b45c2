"""Export an answer record as Markdown with footnote-style citations.

Markers go where the chat page puts them (``core.grounding.layout.layout``): inline
``[^n]`` after a supported span, or on its own line after a code block or
table the span ends in. Unsupported sentences get ``〔本段无出处〕``. Verified
supports say their verdict in words after their markers, as the page does
(``core.verification.verdicts``): ``〔待复核：理由〕`` and ``〔⚠ 与来源矛盾：理由；来源原文：“…”〕``
(reason and quote are untrusted: Markdown punctuation in them is escaped). One
footnote per cited chunk, numbered by first appearance like the page:
``[^n]: 标题 › 路径 — URL（片段 chunk_id，版本 version）``.
The JSON export is :func:`record_json` (a conversation, :func:`conversation_to_json`: its
turns, each with its versions): the stored record's exact values.

Every text goes through the one escaping path of :mod:`core.records.export_escape`: the answer's own
Markdown is written as it stands only when no CommonMark renderer can find raw HTML, an image or
a link other than the page's http(s) links in it (else as the page shows it); everything else -
the question, titles and heading paths, chunk ids, reasons, quotes, error messages, link labels -
is escaped text (``<img onerror=…>`` or ``[l](javascript:…)`` shows as text); control characters
become U+FFFD; URLs are written only when they are http(s), percent-encoded and in ``<…>``.
"""

from __future__ import annotations

from core.models import AnswerRecord
from core.records.export_escape import answer_body, escape_text, json_text, safe_url
from core.records.presentation import (
    EXPORT_BLOCKED_MESSAGE,
    INTERRUPTED_MESSAGE,
    NO_EVIDENCE_MESSAGE,
    PATH_SEPARATOR,
    UNSUPPORTED_LABEL,
    error_message,
    mark_answer,
    no_evidence_message,
)
from core.records.store import conversation_turns, version_label
from core.verification.verdicts import CONTRADICTED_LABEL, QUOTE_LABEL, REVIEW_LABEL, MarkerVerdict

UNSUPPORTED_MARK = f"〔{UNSUPPORTED_LABEL}〕"

INTERRUPTED_NOTE = f"（{INTERRUPTED_MESSAGE}）"

STATUS_TEXT = {"no_evidence": NO_EVIDENCE_MESSAGE, "blocked": EXPORT_BLOCKED_MESSAGE}


def _verdict_words(record: AnswerRecord, verdicts: list[MarkerVerdict]) -> str:
    """What a slot's verdicts say in the export (empty when every marker is plain or supported)."""
    out = []
    for v in verdicts:
        if v.kind == "contradicted":
            words = f"{CONTRADICTED_LABEL}：{escape_text(v.reason or '')}"
            snap = record.chunk(v.chunk_id)
            if v.quote is not None and snap is not None:
                words += f"；{QUOTE_LABEL}：“{escape_text(snap.text[v.quote[0] : v.quote[1]])}”"
            out.append(f"〔{words}〕")
        elif v.kind == "review":
            out.append(f"〔{REVIEW_LABEL}：{escape_text(v.reason or '')}〕")
    return "".join(dict.fromkeys(out))


def to_markdown(record: AnswerRecord, *, label_prefix: str = "") -> str:
    """The record as Markdown: question, answer with footnote markers, footnotes, links,
    and the feedback a person gave (``## 反馈``, when there is one).

    Footnote labels are ``[^{label_prefix}{n}]``; only the labels this function
    writes carry the prefix (text in the answer or question is never rewritten).
    """
    out = [f"## 问题\n\n{escape_text(record.query)}\n", *_record_lines(record, label_prefix, origin_note=True)]
    return "\n".join(out).rstrip() + "\n"


def _record_lines(record: AnswerRecord, label_prefix: str, *, origin_note: bool) -> list[str]:
    """Everything after the question: 回答 (and, with ``origin_note``, the line naming the
    answer a regeneration replaced), 推荐链接, 反馈."""
    out = ["## 回答\n", *_answer_lines(record, label_prefix)]
    if origin_note and record.regenerated_from:
        out.append(f"（重新生成的回答，原回答 {escape_text(record.regenerated_from)} 仍保留）\n")
    links = [(escape_text(link.label), safe_url(link.url)) for link in record.recommended_links]
    if any(url for _, url in links):
        out.append("\n## 推荐链接\n")
        out += [f"- [{label}]({url})" for label, url in links if url]
    if record.feedback is not None:
        out.append("\n## 反馈\n")
        out.append(feedback_text(record))
    return out


FEEDBACK_WORDS = {"up": "👍 有用", "down": "👎 没用"}


def feedback_text(record: AnswerRecord) -> str:
    """The record's feedback in one line of Markdown (``👍 有用：comment``, comment escaped),
    or "" when there is none."""
    fb = record.feedback
    if fb is None:
        return ""
    comment = escape_text(fb.comment or "")
    return FEEDBACK_WORDS[fb.rating] + (f"：{comment}" if comment else "") + f"（{fb.given_at:%Y-%m-%d %H:%M} UTC）"


def answer_markdown(record: AnswerRecord, *, footnotes: bool) -> str:
    """What 复制 copies: the answer alone, with footnote markers and their definitions
    (``footnotes=True``, as in :func:`to_markdown`) or as the plain answer text the
    generator wrote (``footnotes=False``). Status messages stand in for an answer
    that has no text (no_evidence, blocked, error)."""
    if not footnotes and record.status in ("answered", "unverifiable", "interrupted") and record.answer_text:
        return answer_body(record.answer_text, ()).rstrip() + "\n"
    return "\n".join(_answer_lines(record, "")).rstrip() + "\n"


def _answer_lines(record: AnswerRecord, label_prefix: str) -> list[str]:
    """The lines of the 回答 section: the answer with its markers, then one footnote per cited chunk."""
    out: list[str] = []
    if record.status == "no_evidence":  # the decision's own reason when a rule gave one, as the chat says it
        out.append(escape_text(no_evidence_message(record)) + "\n")
    elif record.status in STATUS_TEXT:
        out.append(STATUS_TEXT[record.status] + "\n")
    elif record.status == "error":
        out.append(escape_text(error_message(record)) + "\n")
    else:
        if record.status == "interrupted":
            out.append(INTERRUPTED_NOTE + "\n")
        marked = mark_answer(record)
        verdicts, numbers = marked.verdicts, marked.numbers
        inserts: list[tuple[int, str, bool]] = []
        for slot in marked.layout.slots:
            if slot.unsupported and not slot.chunk_ids:
                mark = UNSUPPORTED_MARK
            else:
                mark = "".join(f"[^{label_prefix}{numbers[c]}]" for c in slot.chunk_ids)
                mark += _verdict_words(
                    record, [verdicts[(slot.position, c)] for c in slot.chunk_ids if (slot.position, c) in verdicts]
                )
            own_line = slot.anchor_token is not None and record.answer_text[slot.position - 1 : slot.position] == "\n"
            inserts.append((slot.position, mark, own_line))
        out.append(answer_body(record.answer_text, inserts).rstrip() + "\n")
        if numbers:
            out.append("")
            for cid, n in sorted(numbers.items(), key=lambda kv: kv[1]):
                snap = record.chunk(cid)
                if snap is None:
                    continue
                url = safe_url(snap.uri)
                where = f" — {url}" if url else ""
                path = PATH_SEPARATOR.join(escape_text(h) for h in snap.heading_path)
                out.append(
                    f"[^{label_prefix}{n}]: {path}{where}（片段 {escape_text(cid)}，版本 {escape_text(snap.version)}）"
                )
    return out


def conversation_to_markdown(records: list[AnswerRecord]) -> str:
    """A conversation (records oldest first) as one Markdown document, turn by turn as the
    chat page shows it (``core.records.store.conversation_turns``): ``# 第 n 轮``, the question once,
    then each version of its answer under ``## 第 k/m 版（重新生成）`` when it has several.

    Footnote labels are prefixed with the turn number (``[^2-1]``), and the version in a
    turn with several (``[^2.1-1]``), so that they stay unique across the document.
    """
    out = []
    for n, turn in enumerate(conversation_turns(records), start=1):
        if len(turn) == 1:
            out.append(f"# 第 {n} 轮\n\n" + to_markdown(turn[0], label_prefix=f"{n}-"))
            continue
        lines = [f"# 第 {n} 轮\n", f"## 问题\n\n{escape_text(turn[0].query)}\n"]
        for k, record in enumerate(turn, start=1):
            lines.append(f"\n## {version_label(k, turn)}\n")
            lines += _record_lines(record, f"{n}.{k}-", origin_note=False)
        out.append("\n".join(lines).rstrip() + "\n")
    return "\n".join(out)


def conversation_to_json(records: list[AnswerRecord]) -> str:
    """A conversation (records oldest first) as JSON, turn by turn like the chat page:
    ``[{"turn": n, "versions": [record, ...]}, ...]``, each record the full stored
    ``AnswerRecord`` (``model_dump(mode="json")``), a turn's versions oldest first."""
    turns = [
        {"turn": n, "versions": [r.model_dump(mode="json") for r in turn]}
        for n, turn in enumerate(conversation_turns(records), start=1)
    ]
    return json_text(turns) + "\n"


def record_json(record: AnswerRecord) -> str:
    """One record as JSON (``model_dump(mode="json")``, indented; every value exact, unsafe
    characters as ``\\uXXXX`` escapes: :func:`core.records.export_escape.json_text`)."""
    return json_text(record.model_dump(mode="json")) + "\n"
