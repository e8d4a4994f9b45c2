"""Recommended links relate to the answer (issue 15): the knowledge base they describe, or their
keywords; contact links only on contact intent. Never on uploaded-document or no_evidence answers."""

from __future__ import annotations

import pytest

from core.ingest.corpus_profile import NEUTRAL, CorpusProfile
from core.models import Support
from core.records.links import links_for_record, relevant_links
from tests.ui.test_render import chunk, record

K8S_DOC = "https://kubernetes.io/zh-cn/docs/concepts/configuration/configmap/"


@pytest.fixture
def links_file() -> tuple[CorpusProfile, ...]:
    """The profiles of the searched knowledge bases (one with links)."""
    return (
        CorpusProfile.model_validate(
            {
                "navigation": [
                    {"label": "首页", "url": "https://kubernetes.io/zh-cn/docs/home/"},
                    {
                        "label": "术语表",
                        "url": "https://kubernetes.io/zh-cn/docs/reference/glossary/",
                        "keywords": ["术语"],
                    },
                ],
                "contact": [{"label": "联系我们", "url": "https://example.org/contact"}],
                "contact_keywords": ["合作", "联系"],
            }
        ),
    )


def _labels(links) -> list[str]:  # noqa: ANN001
    return [link.label for link in links]


def test_links_of_the_cited_knowledge_base_are_shown(links_file) -> None:
    r = record(
        "ConfigMap 保存配置。",
        [Support(start=0, end=11, chunk_ids=("k#0",))],
        [chunk("k#0", uri=K8S_DOC)],
        query="ConfigMap 是什么？",
    )
    assert _labels(links_for_record(r, links_file)) == ["首页", "术语表"]


def test_no_navigation_links_on_answers_from_uploaded_documents(links_file) -> None:
    r = record(
        "报销需要发票。",
        [Support(start=0, end=7, chunk_ids=("u#0",))],
        [chunk("u#0", uri=None)],
        query="报销需要什么？",
    )
    assert links_for_record(r, links_file) == ()
    # a chunk of the site that was retrieved but not cited does not count
    r2 = record(
        "报销需要发票。",
        [Support(start=0, end=7, chunk_ids=("u#0",))],
        [chunk("u#0", uri=None), chunk("k#0", uri=K8S_DOC)],
        query="报销需要什么？",
    )
    assert links_for_record(r2, links_file) == ()


def test_no_navigation_links_without_evidence_but_contact_intent_still_counts(links_file) -> None:
    kafka = record("", status="no_evidence", query="Kafka 的消费者组如何重平衡？")
    assert links_for_record(kafka, links_file) == ()
    contact = record("", status="no_evidence", query="想合作，怎么联系你们？")
    assert _labels(links_for_record(contact, links_file)) == ["联系我们"]


def test_a_keyword_makes_a_navigation_link_relevant_without_its_site(links_file) -> None:
    assert _labels(relevant_links("这个术语是什么意思？", links_file, cited_uris=[None])) == ["术语表"]
    assert relevant_links("这个术语是什么意思？", links_file, status="error") == ()


@pytest.mark.slow
def test_pipeline_stores_links_that_relate_to_the_answer(sample_engine) -> None:  # noqa: ANN001
    answered = sample_engine.ask("Deployment 是什么？")
    assert answered.status == "answered"
    assert any(link.kind == "navigation" for link in answered.recommended_links)
    kafka = sample_engine.ask("Kafka 的消费者组重平衡是怎么工作的？")
    assert kafka.status == "no_evidence"
    assert kafka.recommended_links == ()


def test_a_knowledge_base_without_a_profile_recommends_nothing_not_even_on_contact_intent():
    """Issue 26: the same two Kubernetes links sat under every answer, whatever was asked of."""
    contact = record("", status="no_evidence", query="想合作，怎么联系你们？")
    assert links_for_record(contact, (NEUTRAL,)) == ()
    assert links_for_record(contact, ()) == ()
