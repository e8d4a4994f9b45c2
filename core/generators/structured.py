"""The structured answer over *our* chunks, shared by every LLM adapter
(Gemini mode 1, OpenAI-compatible servers): no network, no vendor SDK.

``StructuredAnswer`` is the JSON contract sent as the response schema
(``{"answer": [{"text": "one sentence", "chunk_ids": ["…"]}]}``); the reply
(JSON text, possibly streamed, possibly inside a ```json fence) is parsed here
into a one-part ``Draft`` whose supports are built by us in **code points** of
the assembled answer text (``unit="codepoint"``, part 0). Ids are passed
through unchecked; ``core.grounding.supports`` drops and audits ids that were not sent.
``StructuredStreamPreview`` turns the growing JSON into visible answer text.
"""

from __future__ import annotations

import json
import re
from typing import Iterable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.cjk import is_cjk
from core.errors import GenerationError
from core.models import Draft, DraftSupport, GeneratorInfo


class AnswerSentence(BaseModel):
    """One sentence of the answer and the ids of the evidence blocks behind it."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(description="One sentence of the answer, without citation markers.")
    chunk_ids: list[str] = Field(
        description="Ids of the evidence blocks that support this sentence; empty if none does.",
    )


class StructuredAnswer(BaseModel):
    """The JSON object Gemini must return in mode 1."""

    model_config = ConfigDict(extra="ignore")

    answer: list[AnswerSentence] = Field(description="The answer as a list of sentences in reading order.")


def _separator(prev: str, nxt: str) -> str:
    """The text put between two sentences: a space between two non-CJK ends."""
    if not prev or not nxt or prev[-1].isspace() or nxt[0].isspace():
        return ""
    if is_cjk(prev[-1]) or is_cjk(nxt[0]):
        return ""
    return " "


def assemble_sentences(texts: Iterable[str]) -> tuple[str, list[tuple[int, int]]]:
    """Join sentence texts into the answer text.

    Whitespace-only sentences are skipped; a space goes between two sentences
    whose touching characters are both non-CJK. Returns the text and, per
    kept sentence, its ``(start, end)`` span in **code points**, trimmed of
    the sentence's own leading/trailing whitespace.
    """
    out = ""
    spans: list[tuple[int, int]] = []
    for t in texts:
        if not t or not t.strip():
            continue
        out += _separator(out, t)
        lead = len(t) - len(t.lstrip())
        start = len(out) + lead
        out += t
        spans.append((start, start + len(t.strip())))
    return out, spans


def _strip_fence(raw: str) -> str:
    s = raw.strip()
    m = re.match(r"^```(?:json)?\s*\n(.*)\n```$", s, re.S)
    return m.group(1) if m else s


def parse_structured_answer(raw: str, provider: str = "The model") -> StructuredAnswer:
    """Parse the JSON text of a structured answer (a ```json fence and a bare
    list of sentences are tolerated); ``GenerationError`` naming ``provider``
    and the first characters of ``raw`` if it is not one."""
    try:
        data = json.loads(_strip_fence(raw))
        if isinstance(data, list):  # tolerate a bare list of sentences
            data = {"answer": data}
        if isinstance(data, dict) and isinstance(data.get("answer"), list):
            data = dict(data)  # tolerate a sentence without chunk_ids (schema requires it)
            data["answer"] = [
                {**item, "chunk_ids": item.get("chunk_ids") or []} if isinstance(item, dict) else item
                for item in data["answer"]
            ]
        return StructuredAnswer.model_validate(data)
    except (ValueError, ValidationError) as exc:
        raise GenerationError(
            f"{provider} did not return an answer in the expected JSON format "
            f"(first characters: {raw[:80]!r}); try again or use the extractive generator."
        ) from exc


def draft_from_structured(answer: StructuredAnswer, info: GeneratorInfo) -> Draft:
    """Build a one-part ``Draft`` from a structured answer.

    Each sentence with ``chunk_ids`` gets one ``DraftSupport`` with
    ``unit="codepoint"``, ``part_index=0`` covering the sentence in the
    assembled text. Ids are passed through as given (de-duplicated, order
    kept); grounding drops ids that were not sent and audits them.
    """
    kept = [s for s in answer.answer if s.text and s.text.strip()]
    text, spans = assemble_sentences(s.text for s in kept)
    supports: list[DraftSupport] = []
    for sent, (start, end) in zip(kept, spans):
        ids = tuple(dict.fromkeys(c.strip() for c in sent.chunk_ids if c and c.strip()))
        if ids:
            supports.append(DraftSupport(start=start, end=end, chunk_ids=ids, unit="codepoint", part_index=0))
    return Draft(parts=(text,) if text else (), supports=tuple(supports), generator=info)


_PARTIAL_ESCAPE = re.compile(r"(?:\\u[0-9a-fA-F]{0,3}|\\)$")


def _decode_partial(raw: str) -> str | None:
    """Decode the body of an unterminated JSON string (drop a cut-off escape)."""
    # remove an incomplete escape at the very end (odd number of backslashes)
    m = _PARTIAL_ESCAPE.search(raw)
    if m:
        backslashes = len(raw[: m.start() + 1]) - len(raw[: m.start() + 1].rstrip("\\"))
        if backslashes % 2 == 1:
            raw = raw[: m.start()]
    try:
        s = json.loads('"' + raw + '"')
    except ValueError:
        return None
    if s and 0xD800 <= ord(s[-1]) <= 0xDBFF:  # half a surrogate pair
        s = s[:-1]
    return s


def scan_sentence_texts(buf: str) -> tuple[list[str], str | None]:
    """Values of ``"text"`` keys in a (possibly incomplete) JSON text.

    Returns the complete string values in order and the decoded prefix of an
    unterminated ``"text"`` value at the end of ``buf`` (or None). A real
    string scanner, so quotes and the word ``text`` inside values never match.
    """
    complete: list[str] = []
    i, n = 0, len(buf)
    prev_string: str | None = None  # last complete string not used as a value
    key: str | None = None
    after_colon = False
    while i < n:
        c = buf[i]
        if c == '"':
            j, esc = i + 1, False
            while j < n:
                ch = buf[j]
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == '"':
                    break
                j += 1
            if j >= n:  # unterminated string
                if after_colon and key == "text":
                    return complete, _decode_partial(buf[i + 1 :])
                return complete, None
            try:
                s = json.loads(buf[i : j + 1])
            except ValueError:
                s = ""
            if after_colon:
                if key == "text":
                    complete.append(s)
                after_colon, key, prev_string = False, None, None
            else:
                prev_string = s
            i = j + 1
            continue
        if c == ":":
            key, after_colon, prev_string = prev_string, True, None
        elif not c.isspace():
            after_colon, prev_string = False, None
        i += 1
    return complete, None


class StructuredStreamPreview:
    """Turns growing mode-1 JSON text into increments of the visible answer.

    ``feed(piece)`` returns the new visible text (possibly ""): the sentence
    texts parsed so far (including the growing last one), joined exactly as
    ``assemble_sentences`` joins them, so the increments add up to a prefix of
    the final ``Draft.text``. If the final parse disagrees with the preview,
    later increments stop (the Draft is authoritative).
    """

    def __init__(self) -> None:
        self.raw = ""
        self.emitted = ""
        self._broken = False

    def feed(self, piece: str) -> str:
        self.raw += piece
        if self._broken:
            return ""
        complete, partial = scan_sentence_texts(self.raw)
        visible, _ = assemble_sentences(complete + ([partial] if partial else []))
        if not visible.startswith(self.emitted):
            self._broken = True
            return ""
        delta = visible[len(self.emitted) :]
        self.emitted = visible
        return delta
