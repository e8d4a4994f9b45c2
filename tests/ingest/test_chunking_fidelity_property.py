"""Text fidelity as an invariant (issue 24): what a reader sees of a chunk is what a reader
sees of the document, character for character apart from whitespace.

*Rendered text of the document*: the document rendered to HTML by markdown-it-py with the
plugins the ingest enables (CommonMark with raw HTML, GFM tables, front matter, footnotes,
CJK-friendly emphasis), then the text content of that HTML (``html.parser``). Three rendering
choices of the ingest (``core.ingest.chunking.inline``) are the reader's view and are set here with
markdown-it's own render rules, not with chunking code: a link whose text is a bare number
reads ``[1]``; a footnote reference reads ``[n]`` (the plugin's caption without its ``:k``
repeat suffix); a footnote note starts with ``[n] `` and loses its ↩︎ back link.

*Plain text of a chunk*: the chunk text rendered by the product dialect
(``core.markdown.markdown_parser``, what the snapshot shows), text content the same way.
That rendering must hold no emphasis: the ingest drops emphasis markup, so ``<strong>`` in a
snapshot would bold a span the source did not (``这是**“重要”内容。详见《用户手册》**第3页。``).

Whitespace: runs become one space, and a space next to a CJK character (or at either end)
is dropped (the chunker joins CJK lines without one), so ``2.3 1`` still differs from ``2.31``.
"""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from core.cjk import is_cjk
from core.cjk_emphasis import cjk_emphasis_plugin
from core.ingest.chunking import parse_markdown
from core.markdown import markdown_parser

_BLOCK = frozenset("p li td th tr div pre blockquote section hr br h1 h2 h3 h4 h5 h6 ol ul table".split())


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        if tag in _BLOCK:
            self.out.append(" ")

    def handle_endtag(self, tag):  # noqa: ANN001
        if tag in _BLOCK:
            self.out.append(" ")

    def handle_data(self, data):  # noqa: ANN001
        self.out.append(data)


def text_content(html: str) -> str:
    p = _Text()
    p.feed(html)
    p.close()
    return "".join(p.out)


def squash(s: str) -> str:
    words = s.split()
    out = ""
    for w in words:
        if out and not is_cjk(out[-1]) and not is_cjk(w[0]):
            out += " "
        out += w
    return out


def _is_number_link(tokens, i: int) -> bool:  # noqa: ANN001
    return (
        i + 2 < len(tokens)
        and tokens[i].type == "link_open"
        and tokens[i + 1].type == "text"
        and tokens[i + 1].content.isdigit()
        and tokens[i + 2].type == "link_close"
    )


def reference_md() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable("table").use(front_matter_plugin).use(footnote_plugin)
    md.use(cjk_emphasis_plugin)

    def link_open(self, tokens, idx, options, env):  # noqa: ANN001
        return self.renderToken(tokens, idx, options, env) + ("[" if _is_number_link(tokens, idx) else "")

    def link_close(self, tokens, idx, options, env):  # noqa: ANN001
        return ("]" if idx >= 2 and _is_number_link(tokens, idx - 2) else "") + self.renderToken(
            tokens, idx, options, env
        )

    def caption(self, tokens, idx, options, env):  # noqa: ANN001
        return f"[{tokens[idx].meta['id'] + 1}]"

    def note_open(self, tokens, idx, options, env):  # noqa: ANN001
        return f"<li>[{tokens[idx].meta['id'] + 1}] "

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("link_close", link_close)
    md.add_render_rule("footnote_caption", caption)
    md.add_render_rule("footnote_open", note_open)
    md.add_render_rule("footnote_anchor", lambda *a: "")
    return md


REFERENCE = reference_md()
PRODUCT = markdown_parser()


def rendered_text(doc: str) -> str:
    return squash(text_content(REFERENCE.render(doc)))


def chunks_text(doc: str) -> str:
    """The chunks' plain text; asserts that no chunk renders emphasis (the ingest drops
    emphasis markup, so ``<strong>`` / ``<em>`` in a snapshot is a span the source did not mark)."""
    _, chunks = parse_markdown(doc, "doc.md")
    html = [PRODUCT.render(c.text) for c in chunks]
    assert not any("<strong>" in h or "<em>" in h for h in html), html
    return squash(" ".join(text_content(h) for h in html))


# ---------------------------------------------------------------- generated documents

WORDS = st.sampled_from(["版本", "发布于", "价格是", "内容", "详见", "用户", "第3页", "控制器", "Pod", "节点"])
NUMBERS = st.sampled_from(["2.3", "10", "$10", "1.8", "2024", "0.5", "v1", "3"])
PAIRS = st.sampled_from(["“”", "《》", "「」", "（）"])
DELIMS = st.sampled_from(["**", "*", "__"])
SEPS = st.sampled_from(["", " ", "，", "。", "、"])


# form → (the text after the number, its definition label, the definition's target);
# "bare" has no definition, so its brackets stay text.
FORMS = {
    "inline": ("[{text}]({url})", None, None),
    "full": ("[{text}][r{k}]", "[r{k}]", "{url}"),
    "collapsed": ("[{text}][]", "[{text}]", "{url}"),
    "shortcut": ("[{text}]", "[{text}]", "{url}"),
    "numeric": ("[{k}]", "[{k}]", "{url}"),
    "footnote": ("[^{k}]", "[^{k}]", "{word}的注释{k}。"),
    "bare": ("[{k}]", None, None),
}


@st.composite
def numbered(draw, defs: dict[str, str]):  # noqa: ANN001
    """A number followed by one link or footnote form; definitions collected in ``defs``."""
    k = len(defs) + 1
    values = {
        "k": k,
        "url": f"https://example.com/{k}",
        "word": draw(WORDS),
        "text": draw(st.sampled_from(["文档", "手册", "说明", "发行版"])) + str(k),
    }
    use, label, target = FORMS[draw(st.sampled_from(sorted(FORMS)))]
    if label is not None and target is not None:
        defs[label.format(**values)] = target.format(**values)
    return draw(NUMBERS) + use.format(**values)


@st.composite
def emphasized(draw, defs: dict[str, str]):  # noqa: ANN001
    pair, delim = draw(PAIRS), draw(DELIMS)
    inner = draw(st.one_of(WORDS, NUMBERS, numbered(defs)))
    return f"{draw(WORDS)}{delim}{pair[0]}{inner}{pair[1]}{delim}{draw(WORDS)}"


@st.composite
def paragraph(draw, defs: dict[str, str]):  # noqa: ANN001
    pieces = draw(st.lists(st.one_of(WORDS, numbered(defs), emphasized(defs)), min_size=1, max_size=6))
    seps = draw(st.lists(SEPS, min_size=len(pieces), max_size=len(pieces)))
    return "".join(p + s for p, s in zip(pieces, seps)).strip() + "。"


@st.composite
def document(draw):  # noqa: ANN001
    defs: dict[str, str] = {}
    blocks = []
    kinds = st.sampled_from(["p", "p", "long", "list", "table", "indented", "html"])
    for kind in draw(st.lists(kinds, min_size=1, max_size=5)):
        if kind == "p":
            blocks.append(draw(paragraph(defs)))
        elif kind == "long":  # soft-wrapped lines, long enough to be split into several chunks
            blocks.append("\n".join(draw(paragraph(defs)) for _ in range(draw(st.integers(8, 20)))))
        elif kind == "list":
            blocks.append("\n".join(f"- {draw(paragraph(defs))}" for _ in range(draw(st.integers(1, 3)))))
        elif kind == "table":
            blocks.append(f"| 项 | 值 |\n| --- | --- |\n| {draw(WORDS)} | {draw(numbered(defs))} |")
        elif kind == "indented":
            blocks.append(f"    {draw(WORDS)}的说明是 {draw(NUMBERS)} 个{draw(WORDS)}。")
        else:
            blocks.append(f"<div>{draw(WORDS)} {draw(NUMBERS)} {draw(WORDS)}</div>")
    definitions = "\n".join(f"{label}: {target}" for label, target in defs.items())
    return "\n\n".join(blocks) + ("\n\n" + definitions if definitions else "") + "\n"


def test_reference_renders_the_issue_examples_as_a_reader_sees_them():
    assert (
        rendered_text("当前稳定版本是 2.3[1]，发布于 2024 年。\n\n[1]: https://example.com/rel\n")
        == "当前稳定版本是2.3[1]，发布于2024年。"
    )
    assert rendered_text("版本 1.8[^1] 与 1.8[^1]。\n\n[^1]: 见说明。\n") == "版本1.8[1]与1.8[1]。[1]见说明。"
    assert squash("2.3 1") != squash("2.31")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document())
def test_every_chunk_shows_the_documents_rendered_text(doc):
    assert chunks_text(doc) == rendered_text(doc), doc
