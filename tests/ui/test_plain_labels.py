"""User text is text (issue 24, item 5): conversation titles and every user-supplied string shown
outside the answer renderer reach Streamlit Markdown (st.markdown/caption/info/..., widget labels)
only through ``components.plain.plain``. The sidebar showed ``温度20~25°C和30~35°C哪个好？`` as
"温度2025°C和3035°C" struck through and ``:red[重启]`` in red."""

from __future__ import annotations

import ast
from pathlib import Path

from streamlit.testing.v1 import AppTest

from core.models import AnswerRecord, GeneratorInfo

ROOT = Path(__file__).resolve().parents[2]
TILDES, RED = "温度20~25°C和30~35°C哪个好？", ":red[重启]"


def _unescaped(label: str, token: str) -> bool:
    """Whether ``token`` occurs in ``label`` with its first character not backslash-escaped."""
    i = label.find(token)
    while i != -1:
        if i == 0 or label[i - 1] != "\\":
            return True
        i = label.find(token, i + 1)
    return False


def test_sidebar_shows_conversation_titles_as_text(page_env):
    from core.config import load_settings
    from core.records.store import RecordStore

    store = RecordStore(load_settings().records_location)
    for n, title in enumerate((TILDES, RED, "**粗**:ok:~删~[链](js:x)$x$")):
        store.save(
            AnswerRecord(
                answer_id=f"a{n}",
                conversation_id=f"c{n}",
                query=title,
                answer_text="回答。",
                status="answered",
                generator=GeneratorInfo(name="extractive"),
            )
        )
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception, at.exception
    labels = [b.label for b in at.sidebar.button if b.key and b.key.startswith("conv-")]
    assert "温度20\\~25°C和30\\~35°C哪个好？" in labels  # the escaped form: shows the ~ literally
    assert "\\:red\\[重启\\]" in labels
    assert "\\*\\*粗\\*\\*\\:\u2060ok\\:\\~删\\~\\[链\\]\\(js\\:x\\)\\$x\\$" in labels
    for label in labels:
        assert not _unescaped(label, "~") and not _unescaped(label, ":red[") and not _unescaped(label, "*"), label


def test_plain_shows_exactly_the_text():
    """Rendered as CommonMark, a plain() string is the text itself (markdown-it stands in for Streamlit's
    remark; its directive and emoji extensions read the same escaped characters)."""
    from markdown_it import MarkdownIt

    from components.plain import plain

    md = MarkdownIt("commonmark").enable("strikethrough")
    for text in (TILDES, RED, "<b>x</b> & [a](http://x) `c` 1. _i_ | $m$ > q", "NUL\x00 \u202eRTL"):
        html = md.renderInline(plain(text))
        assert "<" not in html.replace("&lt;", "") and "\u202e" not in html and "\x00" not in html
    assert md.renderInline(plain(TILDES)) == TILDES


# -- static: no new user value reaches Streamlit Markdown without plain() ------------------------------

#: Streamlit calls whose first argument (the body or the label) is Markdown.
MARKDOWN_CALLS = {
    "markdown", "caption", "write", "info", "warning", "error", "success", "toast", "button", "page_link",
    "expander", "popover", "subheader", "header", "title", "download_button", "link_button", "form_submit_button",
    "radio", "checkbox", "toggle", "text_input", "text_area", "selectbox", "multiselect", "tabs",
}  # fmt: skip
#: Values shown in those calls that are not user text (each reviewed): counts, fixed labels, checked names.
TRUSTED = {
    "len(rows)", "sum((r.chunk_count for r in rows))", "hidden", "len(hidden)", "len(failures)", "len(records.skipped)",
    "c.turns", "c.updated_at[:16].replace('T', ' ')", "MODE_LABELS['hybrid2']", "done", "of", "embedded", "total",
    "shown",  # a count "done/of" or a percentage (components.library_view.vector_status)
    "action",  # a fixed Chinese verb phrase chosen by the caller
    "kb.name", "created.name",  # core.models.check_kb_name: [a-z0-9_-] only, shown in a code span
    "label",  # the login providers' labels, from the operator's secrets.toml
    "flash", "summary", "hint", "msg[0]",  # fixed sentences (kb names in code spans; counts)
    "upload_hint()",  # a fixed sentence with server.maxUploadSize (an int) and the fixed file types
}  # fmt: skip


def _untrusted(node: ast.expr) -> list[ast.expr]:
    """The parts of an argument that are neither fixed text, nor plain(...), nor :data:`TRUSTED`."""
    if isinstance(node, ast.Constant):
        return []
    if isinstance(node, ast.JoinedStr):
        return [u for v in node.values if isinstance(v, ast.FormattedValue) for u in _untrusted(v.value)]
    if isinstance(node, ast.BinOp):  # "..." + "..."
        return _untrusted(node.left) + _untrusted(node.right)
    if isinstance(node, ast.IfExp):
        return _untrusted(node.body) + _untrusted(node.orelse)
    if isinstance(node, ast.List | ast.Tuple):  # st.tabs([...])
        return [u for e in node.elts for u in _untrusted(e)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("plain", "version_label"):
        return []
    return [] if ast.unparse(node) in TRUSTED else [node]


def _offenders(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MARKDOWN_CALLS
            and node.args
        ):
            continue
        if ast.unparse(node.func.value).startswith(("sys.", "log")):  # not Streamlit
            continue
        out += [f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(v)}" for v in _untrusted(node.args[0])]
    return out


def test_no_user_value_reaches_streamlit_markdown_without_plain():
    files = [*(ROOT / "components").glob("*.py"), *(ROOT / "app_pages").glob("*.py"), ROOT / "app.py"]
    offenders = [o for f in sorted(files) for o in _offenders(f)]
    assert not offenders, "wrap user text in components.plain.plain (or st.text):\n" + "\n".join(offenders)
