"""Layering rules from DESIGN.md and the public names `core` exports."""

import ast
from pathlib import Path

import core

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_core_never_imports_streamlit():
    offenders = [str(p) for p in (ROOT / "core").rglob("*.py") if "streamlit" in _imports(p)]
    assert offenders == []


def test_only_the_gemini_adapter_imports_google_genai():
    offenders = []
    for p in list((ROOT / "core").rglob("*.py")) + list((ROOT / "components").rglob("*.py")):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n.startswith("google.genai") or n == "google" for n in names) and not p.name.startswith("gemini"):
                offenders.append(str(p))
    assert offenders == []


def test_only_index_module_imports_chromadb():
    offenders = [str(p) for p in (ROOT / "core").rglob("*.py") if "chromadb" in _imports(p) and p.name != "index.py"]
    assert offenders == []


def test_pages_do_not_import_each_other_and_core_does_not_import_up():
    for p in (ROOT / "core").rglob("*.py"):
        assert not ({"components", "app_pages", "pages", "app"} & _imports(p)), p
    for p in (ROOT / "components").rglob("*.py"):
        assert not ({"app_pages", "pages", "app"} & _imports(p)), p


def test_no_legacy_pages_folder_beside_the_entry_point():
    """Streamlit runs a ``pages/`` folder beside ``app.py`` as a legacy (v1) multipage
    app until some session has called ``st.navigation`` ("As soon as any session of your
    app executes the st.navigation command, your app will ignore the pages/ directory",
    st.navigation docs): right after start, a deep link would run a page without
    ``app.py``. Page scripts live in ``app_pages/``."""
    assert not (ROOT / "pages").exists()
    assert sorted(p.name for p in (ROOT / "app_pages").glob("*.py")) == ["chat.py", "history.py", "library.py", "sources.py"]


def test_public_names_pinned():
    assert sorted(core.__all__) == sorted(
        [
            "AnswerRecord",
            "Chunk",
            "ChunkSnapshot",
            "Draft",
            "DraftSupport",
            "Engine",
            "RetrievedChunk",
            "Segment",
            "SourceCard",
            "SourceDocument",
            "Support",
            "AppError",
            "load_settings",
        ]
    )
    for name in core.__all__:
        assert getattr(core, name) is not None
