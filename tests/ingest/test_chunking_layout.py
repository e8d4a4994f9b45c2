"""core/chunking is a package with one job per module; the Hugo dialect stays apart."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "core" / "ingest" / "chunking"


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


def test_no_module_over_400_lines_and_each_says_its_job():
    modules = sorted(PACKAGE.glob("*.py"))
    assert {p.stem for p in modules} >= {"__init__", "document", "hugo", "markdown", "splitting", "normalize"}
    for p in modules:
        assert len(p.read_text(encoding="utf-8").splitlines()) <= 400, p.name
        assert ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))), p.name


def test_generic_modules_do_not_know_the_hugo_dialect():
    for name in ("splitting", "normalize", "htmltext", "frontmatter"):
        imported = _imported_modules(PACKAGE / f"{name}.py")
        assert "core.ingest.chunking.hugo" not in imported, name
        assert not any(
            m.startswith("core.ingest.chunking.markdown") or m == "core.ingest.chunking.document" for m in imported
        ), name


def test_public_entry_points_stay_importable_from_the_package():
    import core.ingest.chunking as chunking
    from core.ingest.chunking.document import parse_markdown
    from core.ingest.chunking.frontmatter import parse_front_matter

    assert chunking.parse_markdown is parse_markdown
    assert chunking.parse_front_matter is parse_front_matter
    assert chunking.MAX_CHUNK_CHARS == 500
