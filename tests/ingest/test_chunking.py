"""core.ingest.chunking / core.ingest.corpus against the real zh-cn sample and synthetic edge cases."""

from __future__ import annotations

import copy
import re
import shutil
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import IngestError
from core.ingest.chunking import (
    MAX_CHUNK_CHARS,
    normalized_text,
    parse_markdown,
)
from core.ingest.corpus import (
    iter_source_files,
    load_glossary,
    load_sources,
    public_url,
)
from core.ingest.corpus_profile import find_profile
from core.models import make_chunk_id, sha256_hex

DOCS = Path(__file__).resolve().parents[2] / "data" / "k8s-zh-sample" / "docs"
K8S_ZH_BASE = "https://kubernetes.io/zh-cn/docs/"

pytestmark = pytest.mark.skipif(not DOCS.is_dir(), reason="sample corpus missing")

_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[ \t]*$", re.M | re.S)
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def prose(text: str) -> str:
    """Chunk text without fenced code blocks and inline code spans."""
    return _INLINE_CODE.sub("", _FENCE.sub("", text))


@pytest.fixture(scope="module")
def corpus():
    profile = find_profile(DOCS)  # the sample's corpus profile: its site and glossary folder
    assert profile.base_url == K8S_ZH_BASE and profile.glossary == "reference/glossary"
    parsed, failures = load_sources([DOCS], base_url=profile.base_url, glossary_dir=profile.glossary)
    assert failures == []
    return {p.document.source_id: p for p in parsed}


def chunks_of(corpus, source_id):
    return corpus[source_id].chunks


def all_text(corpus, source_id):
    return "\n".join(c.text for c in chunks_of(corpus, source_id))


# --------------------------------------------------------------------------- #
# Whole sample
# --------------------------------------------------------------------------- #


def test_every_sample_file_loads(corpus):
    assert len(corpus) == 40
    assert sum(len(p.chunks) for p in corpus.values()) > 300


@pytest.mark.parametrize("bad", ["{{", "}}", "<!--", "-->"])
def test_no_markup_leaks_outside_code(corpus, bad):
    for p in corpus.values():
        for c in p.chunks:
            assert bad not in prose(c.text), (c.chunk_id, c.text)
            for h in c.heading_path:
                assert bad not in h, (c.chunk_id, c.heading_path)


def test_no_internal_sentinels_or_anchor_syntax(corpus):
    for p in corpus.values():
        for c in p.chunks:
            assert not re.search("[\ue000-\ue004]", c.text)
            assert "{#" not in prose(c.text)
            assert all(h and "{#" not in h for h in c.heading_path)


def test_chunk_invariants(corpus):
    for p in corpus.values():
        doc, chunks = p.document, p.chunks
        norm = normalized_text(chunks)
        for i, c in enumerate(chunks):
            assert c.ordinal == i
            assert c.chunk_id == make_chunk_id(doc.document_id, i)
            assert c.document_id == doc.document_id and c.version == doc.version
            assert 0 < len(c.text) <= MAX_CHUNK_CHARS
            assert c.text == c.text.strip()
            assert c.content_sha256 == sha256_hex(c.text)
            assert norm[c.char_start : c.char_end] == c.text
            assert c.heading_path[0] == doc.title == c.title
            if c.source_anchor:
                assert c.uri == f"{doc.uri}#{c.source_anchor}"
            else:
                assert c.uri == doc.uri
        assert len(doc.version) == 16 and int(doc.version, 16) >= 0


@pytest.mark.parametrize(
    ("source_id", "english", "chinese"),
    [
        (
            "concepts/configuration/configmap.md",
            "A ConfigMap is not designed to hold large chunks of data.",
            "ConfigMap 在设计上不是用来保存大量数据的。",
        ),
        (
            "concepts/configuration/configmap.md",
            "Use a ConfigMap for setting configuration data separately from application code.",
            "使用 ConfigMap 来将你的配置数据和应用程序代码分开。",
        ),
        (
            "concepts/workloads/controllers/cron-jobs.md",
            "states that the task must be started every Friday at midnight",
            "表示此任务必须在每个星期五的午夜以及每个月的 13 日的午夜开始。",
        ),
        (
            "reference/glossary/pod.md",
            "A Pod represents a set of running",
            "Pod 是 Kubernetes 的原子对象。",
        ),
    ],
)
def test_english_comments_dropped_translation_kept(corpus, source_id, english, chinese):
    text = all_text(corpus, source_id)
    assert english not in text
    assert chinese in text


def test_english_headings_in_comments_never_become_headings(corpus):
    cm = chunks_of(corpus, "concepts/configuration/configmap.md")
    heads = {h for c in cm for h in c.heading_path}
    assert "Motivation" not in heads and "ConfigMap object" not in heads
    assert {"动机", "ConfigMap 对象"} <= heads
    dns = {h for c in chunks_of(corpus, "concepts/services-networking/dns-pod-service.md") for h in c.heading_path}
    assert not dns & {"Services", "Pods-->", "Pods", "A/AAAA records", "SRV records"}
    for p in corpus.values():
        assert all("reviewers:" not in c.text for c in p.chunks)


def test_title_and_heading_paths(corpus):
    cm = chunks_of(corpus, "concepts/configuration/configmap.md")
    assert cm[0].heading_path == ("ConfigMap",)
    motivation = [c for c in cm if c.heading_path == ("ConfigMap", "动机")]
    assert motivation and all(c.source_anchor == "motivation" for c in motivation)
    assert motivation[0].uri == ("https://kubernetes.io/zh-cn/docs/concepts/configuration/configmap/#motivation")
    paths = {c.heading_path for c in cm}
    assert ("ConfigMap", "使用 ConfigMap", "在 Pod 中将 ConfigMap 当做文件使用") in paths


def test_heading_level_skip_nests(corpus):
    # dns-pod-service.md: "### Service" directly under the title, then "#### A/AAAA 记录 {#…}"
    chunks = chunks_of(corpus, "concepts/services-networking/dns-pod-service.md")
    by_path = {c.heading_path: c for c in chunks}
    title = "Service 与 Pod 的 DNS"
    assert by_path[(title, "Service", "A/AAAA 记录")].source_anchor == "a-aaaa-records"
    assert by_path[(title, "Service", "SRV 记录")].source_anchor == "srv-records"
    assert (title, "Pod", "Pod 的 DNS 策略") in by_path


def test_level_skip_synthetic():
    md = "---\ntitle: T\n---\n# T\n\n甲。\n\n#### 深 {#deep}\n\n乙。\n\n## 二\n\n丙。\n\n### 三\n\n丁。\n"
    _, chunks = parse_markdown(md, "x.md")
    assert [c.heading_path for c in chunks] == [("T",), ("T", "深"), ("T", "二"), ("T", "二", "三")]
    assert [c.source_anchor for c in chunks] == [None, "deep", None, None]


def test_whatsnext_heading(corpus):
    chunks = chunks_of(corpus, "concepts/services-networking/dns-pod-service.md")
    paths = [c.heading_path for c in chunks]
    assert paths[-1] == ("Service 与 Pod 的 DNS", "接下来")


def test_hard_wrapped_chinese_joined(corpus):
    text = all_text(corpus, "concepts/configuration/configmap.md")
    assert "它可以在你自己的电脑上（用于开发）和在云上（用于实际流量）运行。" in text
    assert "在云上 （" not in text and "在云上\n（" not in text


def test_latin_soft_breaks_joined_with_space():
    _, chunks = parse_markdown("## A\n\nhello\nworld and\n中文\n继续", "x.md")
    assert chunks[0].text == "hello world and 中文继续"


def test_code_fence_verbatim_and_hash_lines_are_not_headings(corpus):
    chunks = chunks_of(corpus, "concepts/workloads/controllers/cron-jobs.md")
    fence = (
        "```\n"
        "# ┌───────────── 分钟 (0 - 59)\n"
        "# │ ┌───────────── 小时 (0 - 23)\n"
        "# │ │ ┌───────────── 月的某天 (1 - 31)\n"
    )
    hits = [c for c in chunks if fence in c.text]
    assert len(hits) == 1
    assert hits[0].heading_path == ("CronJob", "编写 CronJob 声明信息", "Cron 时间表语法")
    assert all(not h.startswith("┌") and "分钟" not in h for c in chunks for h in c.heading_path)
    cm = all_text(corpus, "concepts/configuration/configmap.md")
    assert '  # 类属性键；每一个键都映射到一个简单的值\n  player_initial_lives: "3"\n' in cm


def test_indented_fence_in_list_item_kept():
    md = "## 步骤\n\n1. 运行：\n\n   ```shell\n   # 不是标题\n   kubectl get pods\n   ```\n\n2. 完成。\n"
    _, chunks = parse_markdown(md, "x.md")
    assert len(chunks) == 1
    text = chunks[0].text
    assert "1. 运行：" in text and "2. 完成。" in text
    assert "```shell\n# 不是标题\nkubectl get pods\n```" in text
    assert chunks[0].heading_path == ("x", "步骤")


def test_glossary_tooltip_with_and_without_text(corpus):
    cm = all_text(corpus, "concepts/configuration/configmap.md")
    assert "将其设置为引用 Kubernetes 集群中的公开数据库组件的服务。" in cm
    pod = all_text(corpus, "reference/glossary/pod.md")
    assert "通常用 Deployment 来管理 Pod。" in pod  # title from reference/glossary/deployment.md
    src = (DOCS / "reference/glossary/pod.md").read_text(encoding="utf-8")
    _, bare = parse_markdown(src, "reference/glossary/pod.md")
    assert "通常用 deployment 来管理 Pod。" in bare[-1].text  # falls back to term_id
    _, mapped = parse_markdown(src, "p.md", glossary={"deployment": "部署"})
    # the spaces around the shortcode go: one space between two CJK ideographs means nothing in Chinese prose
    assert "通常用部署来管理 Pod。" in mapped[-1].text


def test_multiline_glossary_tooltip():
    md = (
        "## 甲\n\n集群组件（如 {{< glossary_tooltip\n"
        'term_id="kube-proxy" text="kube-proxy" >}}）可以使用这些提示，\n'
        '并且 {{<glossary_tooltip text="垃圾收集器"\nterm_id="garbage-collection">}} 会删除它们。\n'
    )
    _, chunks = parse_markdown(md, "x.md")
    assert chunks[0].text == "集群组件（如 kube-proxy）可以使用这些提示，并且垃圾收集器会删除它们。"


def test_load_glossary(corpus):
    g = load_glossary(DOCS)
    assert g["deployment"] == "Deployment" and g["pod"] == "Pod" and g["service"] == "服务（Service）"
    assert load_glossary(DOCS / "concepts") == {}


def test_admonitions_keep_inner_text(corpus):
    cm = all_text(corpus, "concepts/configuration/configmap.md")
    assert "说明：静态 Pod 中的 `spec` 字段不能引用 ConfigMap 或任何其他 API 对象。" in cm
    assert "注意：ConfigMap 并不提供保密或者加密功能。" in cm
    md = "## 甲\n\n{{< warning >}}\n小心。\n{{< /warning >}}\n\n{{< note >}}\n- 项一\n- 项二\n{{< /note >}}\n"
    _, chunks = parse_markdown(md, "x.md")
    assert chunks[0].text == "警告：小心。\n\n说明：\n- 项一\n- 项二"


def test_feature_state_and_table(corpus):
    cron = all_text(corpus, "concepts/workloads/controllers/cron-jobs.md")
    assert "特性状态: v1.21 stable" in cron
    assert "| @monthly | 每月第一天的午夜运行一次 | 0 0 1 * * |" in cron
    ds = all_text(corpus, "concepts/workloads/controllers/daemonset.md")
    assert "DaemonSet Pod 适用的容忍度：\n| 容忍度键名 | 效果 | 描述 |" in ds


def test_inline_html_and_entities(corpus):
    ip = all_text(corpus, "concepts/services-networking/cluster-ip-allocation.md")
    assert "范围大小：2^8 - 2 = 254" in ip and "<sup>" not in ip
    _, chunks = parse_markdown("## 甲\n\n使用 &lt;pod-name&gt;&nbsp;替换<br>下一行", "x.md")
    assert chunks[0].text == "使用 <pod-name> 替换\n下一行"


def test_shortcode_zoo_synthetic():
    md = (
        "---\ntitle: 杂项\n---\n"
        '## {{% heading "prerequisites" %}}\n\n{{< include "task-tutorial-prereqs.md" >}} '
        "{{< version-check >}}\n\n"
        '## 版本\n\n当前版本为 {{< param "version" >}}，见 '
        "[API](/docs/reference/generated/kubernetes-api/"
        '{{< param "version" >}}/#pod-v1-core)。\n\n'
        "{{< comment >}}\n隐藏的内容。\n\n## 隐藏标题\n{{< /comment >}}\n\n"
        "{{<mermaid>}}\ngraph TB\n    p3(Pod) --> n3(Node3)\n{{< /mermaid >}}\n\n"
        '{{< figure src="/a.svg" alt="图 1" caption="流程" >}}\n\n'
        '{{< tabs name="t" >}}\n{{% tab name="集群作用域" %}}\n内容甲。\n{{% /tab %}}\n{{< /tabs >}}\n\n'
        '<a href="{{< ref "../x#Y" >}}">ObjectMeta</a> 字段。\n\n'
        "```\n{{</* note */>}}\n```\n"
    )
    doc, chunks = parse_markdown(md, "x.md")
    assert doc.title == "杂项"
    heads = [c.heading_path for c in chunks]
    assert ("杂项", "版本") in heads and all("隐藏标题" not in h for p in heads for h in p)
    assert all(p != ("杂项", "准备开始") for p in heads)  # section with dropped include only
    text = normalized_text(chunks)
    assert "隐藏的内容" not in text and "graph TB" not in text and "Node3" not in text
    assert "当前版本为，见 API。" in text
    assert "图 1（流程）" in text and "集群作用域：内容甲。" in text
    assert "ObjectMeta 字段。" in text
    assert "```\n{{</* note */>}}\n```" in text  # escaped shortcode inside code stays verbatim
    assert "{{" not in prose(text)


def test_comment_holding_code_and_heading():
    md = (
        "## 甲\n\n<!--\n## English\n\n```shell\n# not a heading\n```\n\ntext -->\n中文段落。\n\n"
        "文本 <!-- inline\n\nspanning --> 尾部。\n"
    )
    _, chunks = parse_markdown(md, "x.md")
    assert [c.heading_path for c in chunks] == [("x", "甲")]
    assert chunks[0].text == "中文段落。\n\n文本\n\n尾部。"


# --------------------------------------------------------------------------- #
# Sizes
# --------------------------------------------------------------------------- #


def test_small_max_chars_on_long_file():
    src = (DOCS / "concepts/workloads/pods/pod-lifecycle.md").read_text(encoding="utf-8")
    _, default = parse_markdown(src, "pod-lifecycle.md")
    _, small = parse_markdown(src, "pod-lifecycle.md", max_chars=120)
    assert len(small) > len(default)
    assert all(len(c.text) <= 120 for c in small)
    for c in small:  # split code stays fenced: every piece opens and closes its fence
        fence_lines = [ln for ln in c.text.split("\n") if ln.startswith("```")]
        assert len(fence_lines) % 2 == 0, c.text


def test_max_chars_validated():
    with pytest.raises(ValueError, match="max_chars"):
        parse_markdown("x", "x.md", max_chars=10)


def test_tiny_paragraphs_merge_within_section_only():
    md = "## 甲\n\n一。\n\n二。\n\n## 乙\n\n三。\n"
    _, chunks = parse_markdown(md, "x.md")
    assert [(c.heading_path, c.text) for c in chunks] == [
        (("x", "甲"), "一。\n\n二。"),
        (("x", "乙"), "三。"),
    ]


def test_long_sentence_split_at_punctuation():
    para = "".join(f"第{i}句话说明了某件事情，并且继续说下去。" for i in range(60))
    _, chunks = parse_markdown("## 甲\n\n" + para, "x.md")
    assert len(chunks) > 1
    assert all(len(c.text) <= MAX_CHUNK_CHARS and c.text.endswith("。") for c in chunks)
    assert "".join(c.text for c in chunks) == para


# --------------------------------------------------------------------------- #
# Structure edge cases
# --------------------------------------------------------------------------- #


def test_front_matter_only_file_has_no_chunks(corpus):
    p = corpus["concepts/workloads/controllers/_index.md"]
    assert p.chunks == []
    assert p.document.title == "工作负载资源"
    assert p.document.uri == "https://kubernetes.io/zh-cn/docs/concepts/workloads/controllers/"


def test_bom_before_front_matter():
    md = "\ufeff---\ntitle: 配额\n---\n\n## 小节 {#sec}\n\n内容。\n"
    doc, chunks = parse_markdown(md, "quota.md")
    assert doc.title == "配额"
    assert chunks[0].heading_path == ("配额", "小节") and chunks[0].source_anchor == "sec"
    assert "title" not in chunks[0].text


def test_title_fallbacks_and_bad_yaml():
    doc, _ = parse_markdown("# 大标题\n\n正文。", "a/b.md")
    assert doc.title == "大标题"
    doc, chunks = parse_markdown("---\ntitle: [unclosed\n---\n\n## 节\n\n正文。", "a/bad.md")
    assert doc.title == "bad" and chunks[0].heading_path == ("bad", "节")
    assert "front_matter_error" in doc.metadata
    doc, _ = parse_markdown("正文。", "a/b/_index.md")
    assert doc.title == "b"


def test_updated_at_from_front_matter(corpus):
    doc = corpus["reference/glossary/pod.md"].document
    assert doc.updated_at == datetime(2018, 4, 12, tzinfo=timezone.utc)
    when = datetime(2024, 1, 2, tzinfo=timezone.utc)
    d2, c2 = parse_markdown("## a\n\nb", "x.md", updated_at=when)
    assert d2.updated_at == when and c2[0].updated_at == when


def test_bad_input_raises_ingest_error_naming_source():
    with pytest.raises(IngestError, match="bad.md"):
        parse_markdown(b"bytes", "bad.md")  # type: ignore[arg-type]
    with pytest.raises(IngestError, match="bad.md"):
        parse_markdown("ok \ud800", "bad.md")


# --------------------------------------------------------------------------- #
# Ids and versions
# --------------------------------------------------------------------------- #


def test_ids_stable_and_change_with_content(tmp_path):
    names = [
        "concepts/configuration/configmap.md",
        "concepts/workloads/controllers/cron-jobs.md",
        "reference/glossary/pod.md",
    ]
    for n in names:
        (tmp_path / n).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DOCS / n, tmp_path / n)

    def ids():
        parsed, failures = load_sources([tmp_path])
        assert failures == []
        return {p.document.source_id: (p.document.version, [c.chunk_id for c in p.chunks]) for p in parsed}

    first, second = ids(), ids()
    assert first == second
    target = tmp_path / names[1]
    src = target.read_text(encoding="utf-8")
    visible = "CronJob 用于执行排期操作，例如备份、生成报告等。"
    assert visible in src
    target.write_text(src.replace(visible, visible.replace("备份", "备价")), encoding="utf-8")
    third = ids()
    assert third[names[1]][0] != first[names[1]][0]
    assert set(third[names[1]][1]).isdisjoint(first[names[1]][1])
    assert third[names[0]] == first[names[0]] and third[names[2]] == first[names[2]]
    # a change inside an English comment is not content: same version
    english = "A CronJob creates a Job object approximately once"
    assert english in src
    target.write_text(src.replace(english, english.upper()), encoding="utf-8")
    assert ids()[names[1]] == first[names[1]]


def test_heading_change_changes_version():
    a, _ = parse_markdown("## 甲\n\n正文。", "x.md")
    b, _ = parse_markdown("## 乙\n\n正文。", "x.md")
    assert a.version != b.version


def test_parse_does_not_mutate_inputs():
    glossary = {"deployment": "Deployment"}
    before = copy.deepcopy(glossary)
    src = (DOCS / "reference/glossary/pod.md").read_text(encoding="utf-8")
    src_copy = str(src)
    r1 = parse_markdown(src, "p.md", glossary=glossary)
    r2 = parse_markdown(src, "p.md", glossary=MappingProxyType(glossary))
    assert glossary == before and src == src_copy
    assert r1 == r2


# --------------------------------------------------------------------------- #
# Corpus loading
# --------------------------------------------------------------------------- #


def test_broken_files_reported_by_name(tmp_path):
    (tmp_path / "good.md").write_text("---\ntitle: 好\n---\n\n## 节\n\n正文。\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("纯文本也按 Markdown 读取。\n", encoding="utf-8")
    (tmp_path / "bad.md").write_bytes(b"## \xe4\xb8\n\xff\xfe broken\n")
    (tmp_path / "x.md").mkdir()
    (tmp_path / "ignored.py").write_text("print()", encoding="utf-8")
    seen = []
    parsed, failures = load_sources([tmp_path], progress=lambda i, n, s: seen.append((i, n, s)))
    assert sorted(p.document.source_id for p in parsed) == ["good.md", "notes.txt"]
    reasons = {f.source_id: f.reason for f in failures}
    assert set(reasons) == {"bad.md", "x.md"}
    assert "bad.md" in reasons["bad.md"] and "UTF-8" in reasons["bad.md"]
    assert "x.md" in reasons["x.md"] and "directory" in reasons["x.md"]
    assert [s[0] for s in seen] == [1, 2, 3, 4] and all(s[1] == 4 for s in seen)


def test_iter_source_files_ids(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c.md").write_text("x", encoding="utf-8")
    (tmp_path / "z.markdown").write_text("x", encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "h.md").write_text("x", encoding="utf-8")
    single = tmp_path / "a" / "b" / "c.md"
    ids = [s for _, s in iter_source_files([tmp_path, single])]
    assert ids == ["a/b/c.md", "z.markdown", "c.md"]


@pytest.mark.parametrize(
    ("source_id", "url"),
    [
        ("concepts/workloads/pods/_index.md", K8S_ZH_BASE + "concepts/workloads/pods/"),
        ("concepts/configuration/configmap.md", K8S_ZH_BASE + "concepts/configuration/configmap/"),
        ("_index.md", K8S_ZH_BASE),
    ],
)
def test_public_url(source_id, url):
    assert public_url(source_id, K8S_ZH_BASE) == url
    assert public_url(source_id) is None  # no profile, no public URL: the card links to the snapshot
    assert public_url("a/b.md", "https://example.org/docs") == "https://example.org/docs/a/b/"


# --------------------------------------------------------------------------- #
# Nothing dropped in silence: nesting past markdown-it's limit, front-matter lists
# --------------------------------------------------------------------------- #

_WORD = re.compile(r"w\d+x")


def _deep_list(n: int, step: str = "  ", marker: str = "- ") -> str:
    return "\n".join(step * i + f"{marker}w{i}x" for i in range(n))


DEEP_INPUTS = {
    "list of 1000 levels": _deep_list(1000),
    "ordered list of 100 levels": _deep_list(100, "   ", "1. "),
    "20 blockquotes on one line": ">" * 20 + " w0x",
    "1000 blockquotes on one line": ">" * 1000 + " w0x w1x",
    "blockquote one level deeper per line": "\n".join(">" * (i + 1) + f" w{i}x" for i in range(60)),
    "paragraphs 30 quotes deep": "\n".join(["> " * 30 + "w1x", "> " * 30 + "w2x", "> " * 30, "> " * 30 + "w3x"]),
    "quote and list alternating": "".join("> " if i % 2 else "- " for i in range(50)) + "w1x\n\nw2x",
    "fence 25 quotes deep": "> " * 25 + "```\n" + "> " * 25 + "w1x code\n" + "> " * 25 + "```",
    "html 25 quotes deep": "> " * 25 + "<div>w1x</div>",
    "40 nested link brackets": "[" * 40 + "w1x" + "]" * 40 + "(http://x) w2x",
}


@pytest.mark.parametrize("name", list(DEEP_INPUTS))
def test_deeply_nested_markdown_keeps_every_word(name):
    src = DEEP_INPUTS[name] + "\n\nw9999x 之后的段落。\n\n## 之后的标题\n\nw9998x 标题下的正文。\n"
    doc, chunks = parse_markdown(src, "deep.md")
    text = "\n".join(c.text for c in chunks)
    missing = [w for w in dict.fromkeys(_WORD.findall(src)) if w not in text]
    assert missing == [], f"{len(missing)} words lost, e.g. {missing[:5]}"
    # what follows the deep part keeps its own structure
    after = next(c for c in chunks if "w9998x" in c.text)
    assert after.heading_path == (doc.title, "之后的标题")
    norm = normalized_text(chunks)
    assert all(0 < len(c.text) <= MAX_CHUNK_CHARS and norm[c.char_start : c.char_end] == c.text for c in chunks)


def test_structure_within_the_nesting_limit_is_unchanged():
    src = _deep_list(5)
    _, chunks = parse_markdown(src, "a.md")
    assert chunks[0].text == "- w0x\n  - w1x\n    - w2x\n      - w3x\n        - w4x"


def test_front_matter_lists_kept_as_json_text_and_nulls_dropped():
    md = (
        '---\ntitle: 手册\npages: [3, 4]\ntags: [网络, "服务"]\nsection: null\nempty:\n'
        "sitemap:\n  priority: 0.5\nreviewed: [2024-01-02]\nweight: 3\nlog:\n  2024-01-02: 发布\n"
        "---\n\n## 一节\n\n正文。\n"
    )
    doc, chunks = parse_markdown(md, "m.md")
    assert doc.metadata["pages"] == "[3, 4]"
    assert doc.metadata["tags"] == '["网络", "服务"]'
    assert doc.metadata["sitemap"] == '{"priority": 0.5}'
    assert doc.metadata["reviewed"] == '["2024-01-02"]'
    assert doc.metadata["weight"] == 3
    assert doc.metadata["log"] == '{"2024-01-02": "发布"}'
    assert "section" not in doc.metadata and "empty" not in doc.metadata
    # metadata does not change the content version
    plain, _ = parse_markdown("---\ntitle: 手册\n---\n\n## 一节\n\n正文。\n", "m.md")
    assert plain.version == doc.version


# --------------------------------------------------------------------------- #
# Property test
# --------------------------------------------------------------------------- #

_FRAGMENTS = st.sampled_from(
    [
        "# ",
        "## ",
        "### 标题 {#anc}",
        "#### ",
        "\n",
        "\n\n",
        "\n\n",
        "```",
        "```yaml\n",
        "~~~",
        "    ",
        "{{<",
        ">}}",
        "{{%",
        "%}}",
        "{{< note >}}",
        "{{< /note >}}",
        "{{< comment >}}",
        "{{< /comment >}}",
        "{{<mermaid>}}",
        "{{< /mermaid >}}",
        "{{</* x */>}}",
        '{{< glossary_tooltip text="服务" term_id="service" >}}',
        '{{< glossary_tooltip\nterm_id="pod" >}}',
        "<!--",
        "-->",
        "<!-- c -->",
        "- ",
        "1. ",
        "> ",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "---",
        "`",
        "<br>",
        "&lt;",
        "😀",
        "👨‍👩‍👧",
        "é",
        "中文句子。",
        "很长的中文内容没有标点" * 30,
        "Latin words ",
        '[链接](http://x/{{< param "v" >}})',
        "\ufeff",
        "\ue000",
        "\r\n",
        "\t",
        "*",
        "_",
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    parts=st.lists(st.one_of(_FRAGMENTS, st.text(max_size=30)), max_size=40),
    max_chars=st.sampled_from([40, 120, MAX_CHUNK_CHARS]),
)
def test_random_markdown_never_breaks_invariants(parts, max_chars):
    text = "".join(parts)
    doc, chunks = parse_markdown(text, "rand.md", max_chars=max_chars)
    doc2, chunks2 = parse_markdown(text, "rand.md", max_chars=max_chars)
    assert (doc, chunks) == (doc2, chunks2)
    norm = normalized_text(chunks)
    for i, c in enumerate(chunks):
        assert 0 < len(c.text) <= max_chars
        assert c.content_sha256 == sha256_hex(c.text)
        assert c.ordinal == i and norm[c.char_start : c.char_end] == c.text
        assert not re.search("[\ue000-\ue004]", c.text)
        assert c.heading_path[0] == doc.title and all(c.heading_path)


# ---------------------------------------------------------------- cuts never break a URL or a number


def test_a_long_paragraph_is_never_cut_inside_a_bare_url():
    """Found by tests/ingest/test_chunking_fidelity_property.py: a paragraph of reference-style lines
    (text, since definitions cannot interrupt a paragraph) was cut after ``https:``, so one chunk
    ended "…https:" and the next began "//example.com/13"."""
    lines = [f"[文档{n}]: https://example.com/docs/{n}?tab=参数" for n in range(2, 60)]
    doc = "版本的说明。\n" + "\n".join(lines) + "\n"
    _, chunks = parse_markdown(doc, "refs.md")
    assert len(chunks) > 1  # long enough to be cut
    for n in range(2, 60):
        url = f"https://example.com/docs/{n}?tab=参数"
        assert any(url in c.text for c in chunks), url
    assert not any(c.text.rstrip().endswith(("https:", "http:")) for c in chunks)


def test_a_long_clause_list_is_never_cut_inside_a_number_with_a_comma_or_colon():
    from core.ingest.chunking.splitting import _CLAUSE_END, _pieces

    clause = "门诊在 08:30 开门，挂号费 1,200 元，see: https://example.org/a,b 或 Note: 见下"
    pieces = _pieces(clause, _CLAUSE_END)
    assert "".join(pieces) == clause
    assert not any(p.endswith(("08:", "1,", "https:", "/a,")) for p in pieces), pieces
    assert "see:" in [p.strip() for p in pieces] or any(p.endswith("see:") or p.endswith("see: ") for p in pieces)
    clause = "门诊在 08:30 开门，挂号费 1,200 元，"
    doc = "## 价格\n\n" + clause * 40 + "详见前台。\n"
    _, chunks = parse_markdown(doc, "prices.md")
    assert len(chunks) > 1
    for c in chunks:
        body = c.text.split("\n\n", 1)[-1]
        assert not body.lstrip().startswith(("30", "200")), body[:20]
        assert not body.rstrip().endswith(("08:", "1,")), body[-20:]
    assert sum(c.text.count("1,200") for c in chunks) == 40
    assert sum(c.text.count("08:30") for c in chunks) == 40
