"""Several evaluation sets in one run (issue 26, item 4): ``python -m core eval --set …/--dev``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.evaluation.sets import EvalSet, dev_sets, format_sets_table, parse_set, run_sets, set_goals

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"


def test_parse_set_reads_name_questions_and_every_folder():
    s = parse_set("tidb=a/q.jsonl:docs/one,docs/two")
    assert s == EvalSet("tidb", Path("a/q.jsonl"), (Path("docs/one"), Path("docs/two")))


@pytest.mark.parametrize("spec", ["tidb", "tidb=q.jsonl", "=q.jsonl:d", "tidb=:d", "tidb=q.jsonl:", "t/x=q:d"])
def test_parse_set_names_a_malformed_spec(spec):
    with pytest.raises(ValueError, match="--set"):
        parse_set(spec)


@pytest.mark.skipif(not (SHARED / "eval-dev").is_dir(), reason="../shared/eval-dev is not beside the repository")
def test_dev_sets_are_every_shared_dev_set_with_its_own_documents():
    sets = {s.name: s for s in dev_sets(SHARED)}
    assert set(sets) == {"k8s", "cmrc", "tidb", "clinic", "clinic-single"}
    assert sets["cmrc"].docs[1].name == "distractors"
    assert sets["clinic-single"].docs == (SHARED / "eval-dev/own/clinic/single/docs",)


def _report(rows, documents=3):
    from core.evaluation.report import summarize

    return summarize(rows, {"documents": documents, "chunks": 4, "dense_coverage": "off"})


def _row(kind, status, answerable=True, **extra):
    base = {
        "id": kind,
        "question": "?",
        "answerable": answerable,
        "status": status,
        "latency_ms": 10.0,
        "top_relevance": 0.5,
        "evidence": 1,
        "supports": 1,
        "valid_supports": 1,
        "sentences": 1,
        "covered_sentences": 1,
        "answer_text": "x",
        "kind": kind,
        "answered": status in ("answered", "unverifiable"),
    }
    if answerable:
        base.update(
            gold_rank=1,
            gold_in_evidence=True,
            gold_in_cited=True,
            gold_in_cited_any=True,
            contains_gold=True,
            contains_all_gold=True,
            first_contains_gold=False,
            f1=0.5,
        )
    base.update(extra)
    return base


def test_a_one_document_set_must_answer_every_answerable_and_refuse_every_unanswerable():
    rows = [
        _row("lexical", "answered"),
        _row("lexical", "no_evidence", gold_in_cited=False),
        _row("unanswerable", "no_evidence", answerable=False),
        _row("unanswerable", "answered", answerable=False),
    ]
    goals = set_goals(_report(rows, documents=1))
    assert goals["single_all_answered"]["value"] == 0.5 and goals["single_all_answered"]["met"] is False
    assert goals["single_all_refused"]["value"] == 0.5 and goals["single_all_refused"]["met"] is False
    assert goals["unanswerable_no_evidence"]["met"] is False
    assert goals["answered_first_contains_gold"]["value"] == 0.0


def test_reworded_questions_are_counted_apart_from_answerable_no_evidence():
    rows = [_row("lexical", "answered"), _row("paraphrase", "no_evidence", gold_in_cited=False)]
    goals = set_goals(_report(rows))
    assert goals["answerable_no_evidence"]["value"] == 0.0
    assert "single_all_answered" not in goals  # three documents


def test_run_sets_gives_each_set_its_own_data_folder_and_refuses_a_repeated_name(tmp_path):
    calls = []

    def fake_run(questions, docs, *, data_dir, **options):
        calls.append((questions, docs, data_dir, options))
        return _report([_row("lexical", "answered")])

    sets = [EvalSet("a", Path("qa"), (Path("da"),)), EvalSet("b", Path("qb"), (Path("db"),))]
    result = run_sets(sets, data_root=tmp_path, run=fake_run, use_dense=False)
    assert [c[2] for c in calls] == [tmp_path / "a", tmp_path / "b"]
    assert calls[0][3] == {"use_dense": False}
    assert set(result["sets"]) == {"a", "b"} and result["goals"]["a"]["gold_in_cited_lexical"]["met"] is True
    table = format_sets_table(result)
    assert "a             lexical" in table and "✓ gold_in_cited_lexical" in table
    with pytest.raises(ValueError, match="share a name"):
        run_sets(sets + sets[:1], run=fake_run)


def test_eval_command_runs_two_sets_in_one_table(tmp_path):
    for name, text in (
        ("one", "赤狐平台的值班轮换周期是十天，每次交接必须在周五上午十点完成。"),
        ("two", "星河团队每周一上午交接班，交接记录保存在共享表格里。"),
    ):
        docs = tmp_path / name
        docs.mkdir()
        (docs / "page.md").write_text(f"# {name}\n\n{text}\n", encoding="utf-8")
        q = {
            "id": f"{name}-1",
            "question": text[:8] + "？",
            "kind": "lexical",
            "gold": [{"file": "page.md", "heading_path": [name], "answer_text": text[:12]}],
        }
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(q, ensure_ascii=False) + "\n", encoding="utf-8")
    report = tmp_path / "r.json"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "core",
            "eval",
            "--no-dense",
            "--quiet",
            "--report",
            str(report),
            "--set",
            f"one={tmp_path / 'one.jsonl'}:{tmp_path / 'one'}",
            "--set",
            f"two={tmp_path / 'two.jsonl'}:{tmp_path / 'two'}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "YINZHENG_DATA_DIR": str(tmp_path / "data")},
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    assert set(data["sets"]) == {"one", "two"}
    assert data["sets"]["one"]["config"]["documents"] == 1  # each set is its own knowledge base
    assert "one           lexical" in out.stdout and "two           lexical" in out.stdout


def test_eval_command_refuses_positional_files_beside_sets(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "core", "eval", "q.jsonl", "docs", "--set", "a=q:d"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 1 and "not both" in out.stderr


def test_an_answer_that_says_the_detail_is_not_stated_counts_as_declined_not_as_no_evidence():
    rows = [
        _row("unanswerable", "no_evidence", answerable=False),
        _row("unanswerable", "answered", answerable=False, not_stated=True),
        _row("unanswerable", "answered", answerable=False),
        _row("lexical", "answered"),
    ]
    report = _report(rows)
    assert report["by_kind"]["unanswerable"]["no_evidence"] == round(1 / 3, 4)
    assert report["by_kind"]["unanswerable"]["declined"] == round(2 / 3, 4)
    goals = set_goals(report)
    assert goals["unanswerable_declined"]["value"] == round(2 / 3, 4)
    assert goals["unanswerable_declined"]["met"] is False


_SETS = Path(__file__).resolve().parents[2] / "benchmarks" / "eval-sets"
_HELPER_SETS = sorted(p.name for p in (_SETS / "helpers").iterdir() if p.is_dir())


@pytest.mark.parametrize(
    "name", ["library", "saas", "hr", "property", "manual", *(f"helpers/{n}" for n in _HELPER_SETS)]
)
def test_the_extra_question_sets_are_well_formed(name):
    """``benchmarks/eval-sets`` (and its ``helpers/`` sets, sessions 20 to 27): every question parses, its kind is one the
    report knows, and every gold passage is written word for word in its file."""
    from core.evaluation.questions import load_questions

    root = _SETS / name
    questions = load_questions(root / "questions.jsonl")
    assert len(questions) >= (20 if "/" not in name else 8)
    assert len(_HELPER_SETS) == 59
    assert {q.kind for q in questions} <= {"lexical", "paraphrase", "english", "followup", "multi", "unanswerable"}
    for q in questions:
        assert q.answerable == bool(q.passages), q.id
        for p in q.passages:
            assert p.answer_text in (root / "docs" / p.file).read_text(encoding="utf-8"), (q.id, p.answer_text)
