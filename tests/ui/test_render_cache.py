"""Past answers are rendered once per version state (issue 18): the render cache
calls the renderer again only for a new record or when a cited source changed."""

from __future__ import annotations

from components.answer_view import render_answer
from components.render_cache import RenderCache, version_state
from core.models import Support
from tests.ui.test_render import chunk, record


def _spy():
    calls: list[tuple[str, object]] = []

    def render(rec, **kw):
        calls.append((rec.answer_id, kw["current_versions"]))
        return render_answer(rec, **kw)

    return calls, render


REC = record(
    "Pod 是最小的部署单元。",
    [Support(start=0, end=12, chunk_ids=("c1",))],
    [chunk("c1", "Pod 是最小的部署单元。", source_id="docs/pod.md", version="v1")],
)


def test_second_render_of_the_same_record_does_not_call_the_renderer():
    calls, render = _spy()
    cache = RenderCache(render)
    versions = {"default/docs/pod.md": "v1", "default/docs/other.md": "v7"}
    first = cache.html(REC, versions)
    assert cache.html(REC, dict(versions)) == first == render_answer(REC, current_versions=versions)
    assert len(calls) == 1 and cache.renders == 1
    # a source the record does not cite changing leaves the HTML as it was
    cache.html(REC, {"default/docs/pod.md": "v1", "default/docs/other.md": "v8"})
    assert len(calls) == 1


def test_a_changed_version_state_renders_again():
    calls, render = _spy()
    cache = RenderCache(render)
    fresh = cache.html(REC, {"default/docs/pod.md": "v1"})
    updated = cache.html(REC, {"default/docs/pod.md": "v2"})
    deleted = cache.html(REC, {"default/docs/pod.md": None})
    assert len(calls) == 3
    assert "来源已更新" in updated and "来源已更新" not in fresh
    assert "来源已删除" in deleted
    assert version_state(REC, {"default/docs/pod.md": "v2"}) == ("updated",)
    assert version_state(REC, None) == ("unknown",)


def test_another_record_or_snapshot_page_is_its_own_entry_and_the_cache_is_bounded():
    calls, render = _spy()
    cache = RenderCache(render, max_entries=2)
    other = REC.model_copy(update={"answer_id": "ans-2"})
    cache.html(REC)
    cache.html(other)
    cache.html(REC, snapshot_base="../sources")
    assert [c[0] for c in calls] == ["ans-1", "ans-2", "ans-1"]
    cache.html(REC)  # the oldest entry was dropped: rendered again
    assert len(calls) == 4
