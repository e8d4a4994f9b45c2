"""Corpus profiles (issue 26, item 1): what is true of one collection lives in its profile, not in
generic code; a user's folder gets a neutral one."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from core.errors import ConfigError
from core.ingest.corpus_profile import NEUTRAL, PROFILE_FILE, find_profile, profile_of
from core.store.knowledge_bases import DEFAULT_TITLE
from tests.fakes import build_engine as hash_engine

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "k8s-zh-sample" / "docs"


def test_the_bundled_sample_ships_its_profile_beside_its_documents():
    p = find_profile(SAMPLE)
    assert p.base_url == "https://kubernetes.io/zh-cn/docs/" and p.glossary == "reference/glossary"
    assert p.title == "Kubernetes 示例文档" and p.attribution and p.navigation


def test_a_folder_without_a_profile_gets_the_neutral_one(tmp_path):
    (tmp_path / "a.md").write_text("# 手册\n\n正文。\n", encoding="utf-8")
    assert find_profile(tmp_path) == NEUTRAL
    assert find_profile(tmp_path / "a.md") == NEUTRAL  # a single file brings no profile
    assert profile_of({}) == NEUTRAL and profile_of({"profile": "junk"}) == NEUTRAL


@pytest.mark.parametrize(
    "bad",
    [
        {"base_url": "javascript:alert(1)"},
        {"navigation": [{"label": "x", "url": "data:text/html,<b>"}]},
        {"glossary": "../../etc"},
        {"tittle": "typo"},
        "not an object",
    ],
)
def test_an_invalid_profile_names_its_file(tmp_path, bad):
    (tmp_path / PROFILE_FILE).write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(ConfigError, match=PROFILE_FILE):
        find_profile(tmp_path)


def _folder(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "guide.md").write_text(text, encoding="utf-8")
    return folder


def test_a_users_folder_has_no_kubernetes_links_title_or_glossary(tmp_path):
    """Before: every folder's documents got kubernetes.io URLs, the default base was titled
    "Kubernetes 示例文档", and a `reference/glossary` folder anywhere was read as a glossary."""
    folder = _folder(
        tmp_path,
        "docs",
        '# 员工手册\n\n密码每九十天必须更换一次。{{< glossary_tooltip text="访客" term_id="guest" >}}\n',
    )
    (folder / "reference" / "glossary").mkdir(parents=True)
    (folder / "reference" / "glossary" / "guest.md").write_text(
        "---\ntitle: 来宾\nid: guest\n---\n来宾。\n", encoding="utf-8"
    )
    engine = hash_engine(tmp_path / "data", [folder])
    kb = engine.index.knowledge_bases.get("default")
    assert kb.title == DEFAULT_TITLE == "默认知识库"
    assert profile_of(kb.settings) == NEUTRAL
    docs = {row.document.source_id: row.document for row in engine.index.documents("default")}
    assert docs["guide.md"].uri is None  # the card links to the stored snapshot instead
    record = engine.ask("密码多久要换一次？")
    assert record.recommended_links == ()
    assert all(c.uri is None for c in record.chunks)


def test_a_folder_with_a_profile_gives_its_knowledge_base_links_title_and_site(tmp_path):
    folder = _folder(tmp_path, "docs", "# 员工手册\n\n密码每九十天必须更换一次。\n")
    (tmp_path / PROFILE_FILE).write_text(
        json.dumps(
            {
                "title": "员工手册",
                "base_url": "https://intranet.example.com/handbook/",
                "contact": [{"label": "人事部", "url": "https://intranet.example.com/hr"}],
                "contact_keywords": ["联系"],
            },
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    engine = hash_engine(tmp_path / "data", [folder])
    kb = engine.index.knowledge_bases.get("default")
    assert kb.title == "员工手册" and profile_of(kb.settings).base_url == "https://intranet.example.com/handbook/"
    docs = {row.document.source_id: row.document for row in engine.index.documents("default")}
    assert docs["guide.md"].uri == "https://intranet.example.com/handbook/guide/"
    assert [link.label for link in engine.ask("换密码的问题找谁联系？").recommended_links] == ["人事部"]
    assert engine.profiles() == (profile_of(kb.settings),)


# ------------------------------------------------------------------ no corpus in generic code

#: The sample's own vocabulary: a rule that names one of these is a rule for one corpus.
VOCABULARY = re.compile(
    r"(?i)(?<![a-z])(kubernetes|kubectl|kubelet|pods?|configmaps?|deployments?|statefulsets?|daemonsets?|"
    r"cronjobs?|replicasets?|namespaces?|kubernetes\.io)(?![a-z])"
)
#: Modules whose strings may name it: the Hugo dialect's shortcodes (a detected dialect),
#: the evaluation tooling over the Kubernetes dev sets.
ALLOWED = {"core/ingest/chunking/hugo.py", "core/evaluation/claims.py"}


def _strings(path: Path):
    """String constants of a module that are not docstrings (code, not documentation)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value


def test_generic_modules_do_not_name_the_samples_vocabulary():
    found = []
    for folder in ("core", "components", "app_pages"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in ALLOWED or rel.startswith("core/evaluation/"):
                continue
            found += [f"{rel}:{n}: {m.group(0)!r}" for n, s in _strings(path) if (m := VOCABULARY.search(s))]
    assert found == []


def test_the_vocabulary_test_can_fail(tmp_path):
    bad = tmp_path / "m.py"
    bad.write_text('"""Pods are documented here."""\nRULE = "kubectl "\n', encoding="utf-8")
    assert [s for _, s in _strings(bad) if VOCABULARY.search(s)] == ["kubectl "]
