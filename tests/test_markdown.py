"""core.markdown.safe_link is the one http(s) URL check: every caller agrees with it."""

import json

import pytest
from pydantic import ValidationError

from components.source_view import _safe_url
from core.config import Settings
from core.errors import ConfigError
from core.markdown import markdown_parser, safe_link
from core.models import Support
from core.records.export import safe_url, to_markdown
from tests.records.test_export import record, snap

SAFE = ["http://example.org", "https://例子.cn/路径?q=1", "  HTTPS://Example.org/a  ", "http://[::1]:8080/"]
UNSAFE = [
    "javascript:alert(1)", " JavaScript:alert(1)", "data:text/html,<b>x</b>", "/relative/path", "",
    "http:example.org", "https:/example.org", "http://", "https:///etc/passwd", "http://[::1",
    "ftp://example.org", "ht\ttp://example.org",
]  # fmt: skip


@pytest.mark.parametrize("url", SAFE)
def test_http_urls_with_a_host_are_safe(url):
    assert safe_link(url) is True
    assert _safe_url(url) == url
    assert (safe_url(url) or "").lower().startswith("<http")


@pytest.mark.parametrize("url", UNSAFE)
def test_everything_else_is_not_safe_anywhere(url):
    assert safe_link(url) is False
    assert _safe_url(url) is None
    assert safe_url(url) is None


def test_markdown_links_follow_the_same_check():
    html = markdown_parser().render("[甲](HTTPS://example.org/a) [乙](http://) [丙](https:///etc) [丁](javascript:x)")
    assert html.count("<a ") == 1 and 'href="HTTPS://example.org/a"' in html
    assert "[乙](http://)" in html and "[丙](https:///etc)" in html and "[丁](javascript:x)" in html


def test_export_of_a_source_with_a_broken_ipv6_url_keeps_the_footnote():
    """urlparse raised ValueError here before: the whole export failed."""
    r = record("一句话。", [Support(start=0, end=4, chunk_ids=("a#0",))], [snap("a#0", ("甲",), "http://[::1")])
    md = to_markdown(r)
    assert "[^1]: 甲（片段 a#0，版本 v1）" in md and "::1" not in md


def test_corpus_profile_links_use_the_check(tmp_path):
    from core.ingest.corpus_profile import find_profile

    (tmp_path / "docs").mkdir()
    (tmp_path / "corpus-profile.json").write_text(
        json.dumps({"navigation": [{"label": "首页", "url": " HTTPS://example.org/ "}]}), encoding="utf-8"
    )
    assert [link.url for link in find_profile(tmp_path / "docs").navigation] == ["HTTPS://example.org/"]
    for bad in ("http://", "javascript:alert(1)", "data:text/html,x"):
        (tmp_path / "corpus-profile.json").write_text(
            json.dumps({"navigation": [{"label": "空", "url": bad}]}), encoding="utf-8"
        )
        with pytest.raises(ConfigError, match="http"):
            find_profile(tmp_path / "docs")


def test_corpus_base_url_uses_the_check():
    assert Settings(corpus_base_url=" https://example.org/docs/ ").corpus_base_url == "https://example.org/docs/"
    assert Settings(corpus_base_url="none").corpus_base_url is None
    for bad in ("ftp://example.org/", "http://", "javascript:alert(1)"):
        with pytest.raises(ValidationError, match="http"):
            Settings(corpus_base_url=bad)
