"""Prose sentences and table rows of a chunk, as the extractive answer quotes them and the evaluation counts them.

``split_sentences`` cuts a chunk's Markdown into sentences at their code-point offsets: code fences, table rows
and headings are skipped; blockquote and list markers are stripped (a note written as a blockquote is prose);
a sentence that announces what follows (ends with a colon or a comma before a list or a code block) is dropped
or, with ``lead_ins``, kept without its colon. ``is_filler`` says whether a sentence only points elsewhere
("参阅……", a short pointer at a block the answer does not show); ``needs_previous`` whether it needs the sentence
before it (an opening connective, or a pronoun that does not open its chunk). ``table_rows`` gives the body rows
of the chunk's Markdown tables (markdown-it's GFM tables), which the extractive answer quotes like sentences.
General Chinese and English punctuation and function words only: nothing here knows a corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from core.clock import stated_times
from core.markdown import markdown_parser

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
# A blockquote's markers (nested too: "> > "); a note or warning ("> **警告：**" then "> * …") is read as prose.
_QUOTE_MARK = re.compile(r"^\s*(?:>[ \t]?)+")
# A sentence ends at Chinese or Western sentence punctuation (and closing quotes after it); end
# punctuation inside a quotation that the sentence goes on after (以「新闻报导完，再会。」暗示…) does not end it.
# An English full stop ends one too when a capital letter opens the next ("…garage. The first hour…"): the
# sentences of an English page are quoted one by one, as a Chinese page's are; 1.5, config.yaml and "e.g. x" are not
# sentence ends.
_SENT = re.compile(
    r"(?:`[^`\n]*`|[^。！？!?；`.]|\.(?!\s+[A-Z“\"])|`|[。！？!?；]+[”’」』）)]+(?=[^\s。！？!?；”’」』）)]))+"
    r"(?:[。！？!?；]+[”’」』）)]*|\.(?=\s+[A-Z“\"])|$)"
)
_LEAD_IN = ("：", ":", "，", ",")
# A note's label before its sentence, plain once ingest has dropped the bold ("> 注意： 修改后需要重启。").
_NOTE_LABEL = re.compile(r"(?:注意|提示|警告|重要|说明|注|小贴士|Note|Warning|Tip|Caution|Important)\s*[：:]\s*", re.I)
# A bold label before a sentence on the same line: "**提示：** …", "**注意**：…".
_BOLD_LABEL = re.compile(r"(?:\*\*|__)[^*_\n]{1,12}?(?:[：:](?:\*\*|__)|(?:\*\*|__)[：:])\s*")
MIN_CHARS = 6
# Sentences that only point elsewhere: a pointer verb at the start (阅读/参考/查看/浏览/访问 only before a name,
# a quote or a space: 浏览器, 参考价格, 查看报表的权限 are words of a statement), and no clause after it that
# states something (``_STATES_MORE``: "详见合同的退款条款：超过 30 天的订单不支持自动退款" is a statement).
_FILLER = re.compile(
    r"^(?:请)?(?:(?:阅读|参考|查看|浏览|访问)(?=[\s《「“\"'\[(（`A-Za-z])|参阅|参见|进一步了解|了解更多|更多信息|更多细节"
    r"|有关.{0,30}?(?:请|可)?参阅|See (?:also|the|our|more|\[)|Read (?:the|our|more|about)\b|Learn more"
    r"|详见|详情(?:请)?(?:见|参见|参阅|参考)|具体(?:描述|说明|信息|内容|用法|步骤)?(?:请|可)?(?:详见|参见|参阅|参考)"
    r"|(?:关于|更多).{0,30}?(?:请|可)(?:参阅|参见|参考|详见|查看))"
)
_STATES_MORE = re.compile(
    r"[，,：:；;]\s*(?!(?:请|可以?|也可以?|您可以?|你可以?)?(?:参阅|参见|参考|详见|查看|阅读|see\b|read\b))[^，,：:；;。.]{4,}",
    re.IGNORECASE,
)
# A line that is only links ("* [Isolation Levels](/transaction-isolation-levels.md)" under 另请参阅): no prose.
_LINKS_ONLY = re.compile(r"(?:\s*\[[^\]\n]*\]\([^)\n]*\)[\s,，、;；.。/|｜·]*)+")
# Short sentences that announce a block which follows or point at one above (the block is not quoted).
_POINTER = re.compile(r"以下|如下|下面|下列|上面的|上述|上方的|the following|the above", re.IGNORECASE)
_POINTER_MAX = 20
# ... unless it lays down a rule about what it points at ("以下参数修改后必须重启服务才能生效。").
_RULE = re.compile(r"必须|不得|不能|禁止|无法|不支持|才能|\bmust\b|\bcannot\b|\brequires?\b", re.IGNORECASE)
# Discourse connectives that tie a sentence to the one before it.
_CONNECTIVE = re.compile(
    r"^(?:不过|但是|但|然而|而是|因此|所以|因而|于是|此外|另外|同时|而且|并且|否则|那么|总之|换句话说|也就是说|相反|反之|尽管如此|除此之外)"
)
# Pronouns: fine at the start of a chunk (the heading names the subject), else need the predecessor.
# Also after a subordinator that opens the sentence (当该值未指定时…, 在此示例中…, 如果该字段…): the thing is still
# named in the sentence before (dev-036 led with "当该值未指定时，默认是 `Always`。"). 其他/其它/其余 (other) refer
# to nothing.
_PRONOUN = re.compile(
    r"^(?:(?:当|如果|若|对于|在|由于|因为|假如|一旦)\s*)?(?:这|那些|那个|该|此|它|其(?!他|它|余)|他们|上述|以上|后者|前者)"
    # ... or after an opening verb or preposition ("没有该标志的卡只能在星城市使用。": which 标志 is the sentence
    # before's, a helper's round, session 18)
    r"|^(?:没有|没带|不带|带有|具有|持有|对|按|按照|根据|使用|用|除了|凡是|把|将)\s*(?:该|此|上述|前述|这些|这种|这个)"
    # ... or with a count of things just named ("两项优惠不能同时享受。" after two discounts; a helper's round, session 21)
    r"|^(?:两|二|三|四)(?:项|者|种)"
)


def split_sentences(text: str, lead_ins: bool = False) -> list[tuple[int, str]]:
    """Prose sentences of a chunk as ``(code-point offset, sentence)``.

    Skips code fences, table rows and headings; strips blockquote and list markers (a note or
    warning written as a blockquote is prose). A sentence that
    announces what follows (ends with a colon) is dropped, or with ``lead_ins`` kept
    without its colon ("创建一个服务对象来暴露 Deployment：" before a command); a piece ending with a comma is
    dropped too unless it ends its paragraph (``_ends_paragraph``). Each sentence is an exact substring of
    ``text`` at its offset.
    """
    out: list[tuple[int, str]] = []
    in_fence = False
    pos = 0
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        start = pos
        pos += len(line)
        quote = _QUOTE_MARK.match(line)
        inner = line[quote.end() :] if quote else line
        if _FENCE.match(inner):
            in_fence = not in_fence
            continue
        stripped = inner.strip()
        if in_fence or not stripped or stripped.startswith(("|", "#", ">")):
            continue
        m = _LIST_MARK.match(inner)
        body_start = start + len(line) - len(inner) + (m.end() if m else len(inner) - len(inner.lstrip()))
        body = text[body_start : start + len(line.rstrip())]
        if _LINKS_ONLY.fullmatch(body):
            continue
        for sm in _SENT.finditer(body):
            s = sm.group(0)
            lead = len(s) - len(s.lstrip())
            s = s.strip()
            at = body_start + sm.start() + lead
            at, s = _balanced(at, s)
            if s.strip("*_").endswith(("：", ":")) and not s.endswith(("：", ":")):
                continue  # a label in bold ("**警告：**"), a heading of what follows
            label = _BOLD_LABEL.match(s) or _NOTE_LABEL.match(s)
            if label and len(s) - label.end() >= MIN_CHARS:  # "**提示：** 扩容时…": the sentence is after it
                at, s = at + label.end(), s[label.end() :]
            if s.endswith(("：", ":")):
                at, s = _stated_before_colon(at, s)
            if not lead_ins and s.endswith(("：", ":")):
                at, s = _stated_before_pointer(at, s)
            if lead_ins and s.endswith(("：", ":")):
                s = s[:-1].rstrip()
            ends_on_comma = s.endswith(("，", ","))
            if (
                len(s) >= MIN_CHARS
                or (m is not None and s == body.strip() and _LABEL_VALUE.match(s))
                or _SHORT.fullmatch(s)
            ) and (not s.endswith(_LEAD_IN) or (ends_on_comma and _ends_paragraph(lines, i, sm.end() == len(body)))):
                out.append((at, s))
    return out


_OPENING, _CLOSING = "（(", "）)"


def _balanced(at: int, sentence: str) -> tuple[int, str]:
    """A sentence cut out of a parenthesis that holds two ("（不支持 32 位系统，也不支持 Linux。AI 降噪功能需要显存 4 GB 以上。）")
    without the bracket it does not close or open: "不支持 32 位系统，也不支持 Linux。" at its offset, and "AI 降噪功能…以上。"
    (a helper's round, session 27: the answer had shown "（不支持 32 位系统…" and "…加收 20%。）")."""
    opened = sum(sentence.count(ch) for ch in _OPENING)
    closed = sum(sentence.count(ch) for ch in _CLOSING)
    if opened > closed and sentence[:1] in _OPENING:
        rest = sentence[1:]
        return at + 1 + len(rest) - len(rest.lstrip()), rest.lstrip()
    if closed > opened and sentence[-1:] in _CLOSING:
        return at, sentence[:-1].rstrip()
    return at, sentence


# A list item that is a label and its value ("- 周日：休息", "- 押金：无"): short by nature, yet it states the value
# (a helper's round, session 18: "单车铺周日营业吗？" never saw "周日：休息", five characters).
_LABEL_VALUE = re.compile(r"^[^：:\s]{1,12}[：:]\s*[^：:\s]{2,}$")
# A short sentence of four Chinese characters and its full stop ("检查免费。"): it states the fact in a word (a
# helper's round, session 26: "检查要收费吗？" was answered as not stated, the sentence being under ``MIN_CHARS``).
_SHORT = re.compile(r"[\u3400-\u9fff]{4}[。！]")


#: A table cell of at most this many code points that ends no sentence is a value ("不限", "联系销售", "闭馆").
VALUE_MAX = 6


def _is_value(cell: str) -> bool:
    cell = cell.strip()
    return bool(cell) and (
        bool(_DIGIT.search(cell)) or (len(cell) <= VALUE_MAX and not _CELL_SENTENCE_END.search(cell))
    )


@dataclass(frozen=True)
class TableRow:
    """A body row of a Markdown table (GFM). Offsets are code points into the chunk text.

    ``at``/``text``: the row's line without its outer pipes, an exact substring
    ("`*.foo.com` | `baz.bar.foo.com` | 不匹配，通配符仅覆盖了一个 DNS 标签"); ``header``: the table's header
    cells joined by spaces ("主机 主机头部 匹配与否？"); ``cells``: each cell's ``(offset, text)``."""

    at: int
    text: str
    header: str
    cells: tuple[tuple[int, str], ...]
    #: The header row as written, from its first filled cell to its last (``(offset, text)``), or None.
    header_row: tuple[int, str] | None = None

    def compares(self) -> bool:
        """Whether the row holds two or more values after its first cell ("一线城市 | 每晚 500 元 | 每晚 800 元";
        "企业版 | 联系销售 | 不限 | 30 天起"): which value is which is read from the header only. A value has a digit
        or is a short word (at most ``VALUE_MAX`` code points, no sentence end); a prose cell says what it is."""
        return sum(1 for _, cell in self.cells[1:] if _is_value(cell)) >= 2

    def sentences(self) -> list[tuple[int, str]]:
        """A long row (over ``ROW_MAX`` code points) with prose cells (a sentence end: "| `GET_LOCK(…)`
        | 获取咨询锁。…在超时前，TiDB 最长等待 `timeout` 秒并返回失败。 |") as the sentences of its cells after
        the first, ``(offset, sentence)``; empty for a row quoted whole (a row of values, or a short one:
        "`retry.max-times` | 3 | 同步失败后的最大重试次数。" states its value only whole)."""
        if len(self.text) <= ROW_MAX:
            return []
        prose = [c for c in self.cells[1:] if _CELL_SENTENCE_END.search(c[1])]
        return [(at + k, s) for at, cell in prose for k, s in split_sentences(cell)]


_CELL_SENTENCE_END = re.compile(r"[。！？!?]")
_DIGIT = re.compile(r"\d")
#: A table row up to this many code points is quoted whole (one record: its name, values and description).
ROW_MAX = 100


@lru_cache(maxsize=256)
def table_rows(text: str) -> tuple[TableRow, ...]:
    """The body rows of the Markdown tables in ``text`` (:class:`TableRow`), parsed by markdown-it
    (``core.markdown.markdown_parser``, GFM tables); rows shorter than ``MIN_CHARS`` are left out."""
    if "|" not in text:
        return ()
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    out: list[TableRow] = []
    header: list[str] = []
    in_head = False
    row: int | None = None  # where the current row's line ends
    cursor = 0
    cells: list[tuple[int, str]] = []

    header_row: tuple[int, str] | None = None

    def close() -> None:
        nonlocal header_row
        if row is None or not cells:
            return
        at, end = cells[0][0], cells[-1][0] + len(cells[-1][1])  # first filled cell to last: no empty one's pipe
        if in_head:
            header_row = (at, text[at:end])
        elif end - at >= MIN_CHARS:
            out.append(TableRow(at, text[at:end], " ".join(header), tuple(cells), header_row))

    for tok in _TABLES.parse(text):
        if tok.type == "thead_open":
            in_head, header, header_row = True, [], None
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open" and tok.map is not None:
            row, cells = starts[tok.map[0] + 1], []  # the row's line ends there
            cursor = starts[tok.map[0]]
        elif tok.type == "inline" and row is not None and tok.content:
            if in_head:
                header.append(tok.content)
            # the cell as written: markdown-it unescapes "\|" in a cell's content
            found = re.compile(re.escape(tok.content).replace(r"\|", r"\\?\|")).search(text, cursor, row)
            if found is not None:
                cells.append((found.start(), found.group(0)))
                cursor = found.end()
        elif tok.type == "tr_close" and row is not None:
            close()
            row = None
    return tuple(out)


_TABLES = markdown_parser()


def _ends_paragraph(lines: list[str], i: int, last_in_line: bool) -> bool:
    """Whether the piece that ends line ``i`` of ``lines`` also ends its paragraph (the chunk ends, or a blank
    line follows and then no list, code block, table or quote): a statement whose source stops on a comma
    ("…Kubernetes 也不保证保留此 Job，" then a new section; dev-021's gold), not a lead-in to what follows."""
    if not last_in_line:
        return False
    rest = lines[i + 1 :]
    if not rest:
        return True
    if rest[0].strip():
        return False
    after = next((ln for ln in rest if ln.strip()), "")
    return not (_LIST_MARK.match(after) or _FENCE.match(after) or after.lstrip().startswith(("|", ">")))


def _stated_before_colon(at: int, sentence: str) -> tuple[int, str]:
    """A sentence that ends with a colon announces what follows and is dropped, but a statement
    between an earlier colon and that one stands on its own ("…八个元音：艾努语数词借自波斯语："
    gives "艾努语数词借自波斯语", at its offset) unless it only points ahead (如下/以下)."""
    inner = sentence.rfind("：", 0, len(sentence) - 1)
    if inner < 0:
        return at, sentence
    clause = sentence[inner + 1 : -1]
    stripped = clause.lstrip()
    if len(stripped) < MIN_CHARS or _POINTER.search(stripped):
        return at, sentence
    return at + inner + 1 + len(clause) - len(stripped), stripped


def _stated_before_pointer(at: int, sentence: str) -> tuple[int, str]:
    """A sentence that ends with a colon whose last clause only points ahead ("…开始支持的特性，语法如下：") states
    something before that clause: the sentence without its colon, at its offset ("`SAVEPOINT` 是 TiDB 从
    v6.2.0 开始支持的特性，语法如下"; the pointing clause stays, so "…默认开启，关闭方法如下" still says where
    the method is), or the sentence without its colon when it names a value in code or a time of day and points at
    nothing ("推荐把 Key 放在请求头 `X-YT-Key` 中：", "…1 月 17 日 13:30 准时发车，过时不候："); the sentence unchanged
    otherwise."""
    comma = max(sentence.rfind("，"), sentence.rfind(","))
    pointer = sentence[comma + 1 : -1].strip() if comma >= 0 else ""
    statement = sentence[:comma].rstrip() if comma >= 0 else ""
    if len(statement) >= MIN_CHARS and _FOR_EXAMPLE.fullmatch(pointer):
        return at, statement  # "…可以设置环境变量 `TIDESYNC_INSTALL_DIR` 改到其他目录，例如：" (the example is a block)
    if comma >= 0 and len(statement) >= MIN_CHARS and len(pointer) <= _POINTER_MAX // 2 and _POINTER.search(pointer):
        return at, sentence[:-1].rstrip()
    if (
        (_NAMES_CODE.search(sentence) or stated_times(sentence))
        and not _POINTER.search(sentence)
        and not _DANGLING.search(sentence[:-1])
        and len(sentence) > MIN_CHARS
    ):
        # it names the value in code and points at nothing: "推荐把 Key 放在请求头 `X-YT-Key` 中：" before an example
        # command states the header (a helper's round, session 24: "API Key 放在哪个请求头里？" never saw it); or a time
        # of day: "公司安排两条班车线路，1 月 17 日 13:30 准时发车，过时不候：" before the two routes (session 25: "班车几点
        # 发车？" was answered with the return bus's 21:45)
        return at, sentence[:-1].rstrip()
    if (
        comma >= 0
        and len(statement) >= MIN_CHARS
        and _STATES_DATE.search(pointer)
        and not _POINTER.search(pointer)
        and not _DANGLING.search(pointer)
    ):
        # its last clause states a date and points at nothing, whatever the first announces: "以下人员经部门负责人批准后可
        # 不参加疏散演练，但须在 10月22日前将名单报行政部：" before the list of who is exempt (a helper's round, session 27:
        # "免于参加演练的名单什么时候前报给行政部？" was answered with the list's items, the deadline never shown)
        return at, sentence[:-1].rstrip()
    return at, sentence


#: A month and day ("10月22日", "1 月 17 日"): a date a clause states.
_STATES_DATE = re.compile(r"\d{1,2}\s*月\s*\d{1,2}\s*[日号]")


#: An inline code span: a name or value the sentence writes as code (`X-YT-Key`).
_NAMES_CODE = re.compile(r"`[^`\n]+`")


# The last clause of a sentence that only introduces an example below it (a helper's round, session 21: "我没有 root
# 权限，怎么安装到自己的目录？" never saw its answer, which ends "…改到其他目录，例如：" before a command).
_FOR_EXAMPLE = re.compile(
    r"(?:例如|比如|譬如|举例来说|示例如下|for example|for instance|e\.g\.|such as)", re.IGNORECASE
)
#: ... and a sentence that breaks off at one ("…请查看 `kube-proxy` 日志中的特定行，如："): it states nothing yet.
_DANGLING = re.compile(rf"(?:{_FOR_EXAMPLE.pattern}|如|像|即|包括|like|including)\s*$", re.IGNORECASE)


def is_filler(sentence: str) -> bool:
    """Whether ``sentence`` only points elsewhere ("阅读 Secret。", "参阅……") or, short, at
    what follows it ("将产生以下 ConfigMap。", a code block the answer does not show)."""
    s = sentence.strip()
    m = _FILLER.match(s)
    if m is not None and _STATES_MORE.search(s, m.end()) is None:
        return True
    return len(s) <= _POINTER_MAX and bool(_POINTER.search(s)) and not _RULE.search(s)


def needs_previous(sentence: str, first_in_chunk: bool) -> bool:
    """Whether ``sentence`` needs the sentence before it to be understood: it opens with a
    connective (不过/因此/此外…), or with a pronoun (这/该/它…) and does not open its chunk."""
    s = sentence.strip()
    return bool(_CONNECTIVE.match(s)) or (not first_in_chunk and bool(_PRONOUN.match(s)))
