"""Layering rules from docs/design.md and the public names `core` exports."""

import ast
import re
import sys
from pathlib import Path

import pytest

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


def _python_files(*layers: str) -> list[Path]:
    return sorted(p for layer in layers for p in (ROOT / layer).rglob("*.py"))


def _importers_of(matches) -> set[str]:
    """Files of core/, components/, app_pages/ and app.py with an import whose module name ``matches``."""
    importers = set()
    for p in _python_files("core", "components", "app_pages") + [ROOT / "app.py"]:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            if any(matches(n) for n in names):
                importers.add(p.relative_to(ROOT).as_posix())
    return importers


def test_only_the_gemini_adapter_imports_google_genai():
    """One adapter per vendor SDK: the store administration and the parsers of
    Gemini output reach the SDK only through ``core/generators/gemini.py``."""
    assert _importers_of(lambda n: n.startswith("google.genai") or n == "google") == {"core/generators/gemini.py"}


def test_only_the_openai_adapter_imports_openai():
    """The OpenAI-compatible generator reaches the ``openai`` SDK only through its adapter."""
    assert _importers_of(lambda n: n == "openai" or n.startswith("openai.")) == {"core/generators/openai_chat.py"}


def _environment_reads(path: Path) -> list[int]:
    """Lines of ``os.environ[...]``, ``os.environ.get(...)`` and ``os.getenv(...)`` reads."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value) == "os.environ"
            and isinstance(node.ctx, ast.Load)
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.get", "os.getenv"):
            lines.append(node.lineno)
    return lines


def test_environment_reader_finds_reads(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        "import os\na = os.environ['A']\nb = os.environ.get('B')\nc = os.getenv('C')\n"
        "os.environ.setdefault('D', '1')\nos.environ['E'] = '1'\n",
        encoding="utf-8",
    )
    assert _environment_reads(src) == [2, 3, 4]


def test_only_config_reads_the_environment():
    """Every setting is read (and validated) once in core/config.py and passed in."""
    readers = {
        p.relative_to(ROOT).as_posix(): lines
        for p in _python_files("core", "components", "app_pages")
        if (lines := _environment_reads(p)) and p != ROOT / "core" / "config.py"
    }
    assert readers == {}


def test_only_vector_store_module_imports_chromadb():
    offenders = [
        str(p) for p in (ROOT / "core").rglob("*.py") if "chromadb" in _imports(p) and p.name != "vector_store.py"
    ]
    assert offenders == []
    assert "chromadb" in _imports(ROOT / "core" / "store" / "vector_store.py")  # the adapter is where the rule says


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
    assert sorted(p.name for p in (ROOT / "app_pages").glob("*.py")) == [
        "chat.py",
        "check.py",
        "history.py",
        "library.py",
        "sources.py",
    ]


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
    # each public name is the very object of the module that owns it (not a stub or a copy)
    from core import config, errors, models
    from core import engine as pipeline

    owners = {"Engine": pipeline, "AppError": errors, "load_settings": config}
    for name in core.__all__:
        assert getattr(core, name) is getattr(owners.get(name, models), name), name


# ------------------------------------------------------------------ import graph

LAYERS = ("core", "components", "app_pages")


def _module_files(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for core/, components/, pages/ and app.py under ``root``."""
    out = {"app": root / "app.py"} if (root / "app.py").is_file() else {}
    for layer in LAYERS:
        for p in (root / layer).rglob("*.py"):
            parts = p.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Edges module -> our modules it imports, anywhere in the file (also inside functions)."""
    files = _module_files(root)
    graph: dict[str, set[str]] = {}
    for mod, path in files.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                # `from core import models` imports the module core.models
                targets |= {f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names}
        graph[mod] = {t for t in targets if t in files and t != mod}
    return graph


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.add(frozenset(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_cycle_finder_on_a_hand_made_graph():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": {"f"}, "g": set()}
    assert cycles(graph) == {frozenset("abc"), frozenset("de")}


def test_import_graph_sees_function_level_relative_and_from_package_imports(tmp_path):
    files = {
        "core/__init__.py": "",
        "core/a.py": "from core import b\n",
        "core/b.py": "def f():\n    from .sub import c\n",
        "core/sub/__init__.py": "",
        "core/sub/c.py": "import core.a\nfrom core.sub import nothing_here\n",
        "components/v.py": "import json\nfrom core.a import x\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    assert import_graph(tmp_path) == {
        "core": set(), "core.a": {"core.b"}, "core.b": {"core.sub.c"}, "core.sub": set(),
        "core.sub.c": {"core.a", "core.sub"}, "components.v": {"core.a"},
    }  # fmt: skip
    assert cycles(import_graph(tmp_path)) == {frozenset({"core.a", "core.b", "core.sub.c"})}


def test_no_import_cycles():
    found = cycles(import_graph())
    assert not found, f"import cycles: {[sorted(c) for c in found]}"


def test_the_command_line_is_a_package_of_subcommand_modules():
    """``python -m core`` is a two-statement entry (importing it runs nothing); every subcommand module registers itself, and
    no library module of ``core/`` has a ``main`` (evaluation, claims and bench are libraries)."""
    from core import cli

    entry = (ROOT / "core" / "__main__.py").read_text(encoding="utf-8").strip().splitlines()
    assert entry[0].startswith("from core.cli import main")
    assert [line.strip() for line in entry[1:] if line.strip()] == [
        'if __name__ == "__main__":',
        "raise SystemExit(main())",
    ]
    modules = {p.stem for p in (ROOT / "core" / "cli").glob("*.py")} - {"__init__", "_shared"}
    assert {m.__name__.rpartition(".")[2] for m in cli.COMMANDS} == modules
    commands = set(cli.build_parser()._subparsers._group_actions[0].choices)  # noqa: SLF001
    assert commands == {
        "ingest",
        "ask",
        "export",
        "eval",
        "eval-claims",
        "eval-citecheck",
        "check",
        "verify",
        "kb",
        "store",
        "embed-worker",
    }
    with_main = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "core").rglob("*.py")
        if p.parent.name != "cli"
        and p.name != "__main__.py"
        and any(
            isinstance(n, ast.FunctionDef) and n.name == "main" for n in ast.parse(p.read_text(encoding="utf-8")).body
        )
    )
    assert with_main == []


def _string_imports(path: Path) -> set[tuple[str, str]]:
    """(file, enclosing function) of each importlib.import_module / __import__ call, and
    (file, constant) of each string naming a module of components/, pages/ or app."""
    rel = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[tuple[str, str]] = set()
    # a bare "pages" is data (the front-matter key of a page list), "pages.x" / "pages:x" a module
    upper = re.compile(r"(components|app_pages)(\.\w+)*(:\w+)?|pages(\.\w+)+(:\w+)?|pages:\w+|app(:\w+)?")

    def walk(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else where
            if isinstance(child, ast.Call):
                f = child.func
                called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                if called in ("import_module", "__import__"):
                    out.add((rel, where))
            if isinstance(child, ast.Constant) and isinstance(child.value, str) and upper.fullmatch(child.value):
                out.add((rel, child.value))
            walk(child, name)

    walk(tree, "<module>")
    return out


def test_string_import_finder_on_hand_made_code(tmp_path, monkeypatch):
    src = tmp_path / "core" / "x.py"
    src.parent.mkdir()
    src.write_text(
        "import importlib\nSPEC = 'components.answer_view:render_answer'\nNOTE = 'pages are thin'\n"
        "def f(m):\n    return importlib.import_module(m)\ndef g():\n    return __import__('pages.chat')\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert _string_imports(src) == {
        ("core/x.py", "f"),
        ("core/x.py", "g"),
        ("core/x.py", "components.answer_view:render_answer"),
        ("core/x.py", "pages.chat"),
    }


def test_core_does_not_import_upper_layers_by_name():
    """The imports by name in ``core/`` are the generator registry's factory lookup and the UI's
    public-name table; every module either names is a module of ``core/`` (never an upper layer)."""
    from core import public
    from core.generators import registry

    found = set().union(*(_string_imports(p) for p in sorted((ROOT / "core").rglob("*.py"))))
    expected = {("core/generators/registry.py", "build"), ("core/public.py", "__getattr__")}
    assert found == expected, f"imports by name from core/: {sorted(found)}"
    for where in public.NAMES.values():
        module = where.partition(":")[0]
        assert module.startswith("core.") and (ROOT / (module.replace(".", "/") + ".py")).is_file(), where
    for e in registry.REGISTRY:
        module, _, function = e.factory.partition(":")
        assert module.startswith("core.generators.") and function, e.name
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), e.factory


def test_only_the_sql_adapter_opens_databases_and_runs_migrations():
    """SQLAlchemy engines, Alembic and the PostgreSQL driver are reached through ``core/store/sql.py``
    (Alembic's own scripts live in ``core/migrations``); stores only build Core statements."""
    alembic_users = {
        f
        for f in _importers_of(lambda n: n == "alembic" or n.startswith("alembic."))
        if not f.startswith("core/store/migrations/")
    }
    assert alembic_users == {"core/store/sql.py"}
    assert _importers_of(lambda n: n == "psycopg" or n.startswith("psycopg.")) == set()
    engines = {
        p.relative_to(ROOT).as_posix()
        for p in _python_files("core", "components", "app_pages")
        if "create_engine(" in p.read_text(encoding="utf-8")
    }
    assert engines == {"core/store/sql.py"}


# ------------------------------------------------------------------ stages (issue 31)

#: The ground floor: values, errors, settings and shared text rules, importable from every stage.
GROUND = {
    "models",
    "errors",
    "config",
    "cjk",
    "cjk_emphasis",
    "markdown",
    "segmentation",
    "textsafe",
    "controls",
    "lexical",
    "clock",
    "designations",
}
#: What each stage package of ``core/`` may import besides the ground floor (its ``__init__`` says the same).
STAGES = {
    "store": set(),
    "ingest": {"store"},
    "retrieval": {"store"},
    "grounding": set(),
    "verification": {"grounding"},
    "generators": {"retrieval", "ingest"},
    "records": {"grounding", "verification", "store", "ingest"},
}
#: The turns over the stages: they may import every stage (and ``core.check``/``readable`` the engine).
TURNS = {"engine", "engine_views", "check", "readable", "public"}
#: The one ground-floor module that reads upward: settings validate a generator name against the
#: registry and a database URL with the SQL adapter, so a bad value fails at start.
GROUND_READS_UP = {("config", "generators"), ("config", "store")}


def _stage(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "core" or len(parts) == 1:
        return None
    return "ground" if parts[1] in GROUND else parts[1]


def test_every_stage_imports_only_what_its_package_doc_allows():
    edges = set()
    for source, targets in import_graph().items():
        for target in targets:
            a, b = _stage(source), _stage(target)
            if a and b and a != b and b != "ground":
                edges.add((a if a != "ground" else source.split(".")[1], b, source, target))
    wrong = []
    for a, b, source, target in sorted(edges):
        if a in STAGES and b not in STAGES[a]:
            wrong.append(f"{source} -> {target}")
        elif a in GROUND and (a, b) not in GROUND_READS_UP:
            wrong.append(f"{source} -> {target}")
        elif a in TURNS and b not in set(STAGES) | TURNS:
            wrong.append(f"{source} -> {target}")
        elif a not in STAGES and a not in GROUND and a not in TURNS | {"cli", "evaluation", "__main__"}:
            wrong.append(f"{source} (not in a known stage)")
    assert wrong == []


def test_the_stage_rules_match_the_package_docs():
    """Each stage package says its job and what it may import; the rules above are the ones it states."""
    for package, allowed in STAGES.items():
        doc = (ROOT / "core" / package / "__init__.py").read_text(encoding="utf-8")
        assert "May import:" in doc, package
        said = doc.split("May import:", 1)[1]
        for other in allowed:
            assert f"core.{other}" in said, (package, other)
        for other in set(STAGES) - allowed - {package}:
            assert f"core.{other}`" not in said, (package, other)


def test_the_stage_rule_catches_an_import_that_breaks_it(tmp_path, monkeypatch):
    files = {"core/__init__.py": "", "core/store/__init__.py": "", "core/store/a.py": "from core.engine import x\n"}
    files |= {"core/engine.py": "", "core/retrieval/__init__.py": "", "core/retrieval/b.py": "import core.store.a\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    real = import_graph
    monkeypatch.setattr(sys.modules[__name__], "import_graph", lambda: real(tmp_path))
    with pytest.raises(AssertionError, match="core.store.a -> core.engine"):
        test_every_stage_imports_only_what_its_package_doc_allows()


def _engine_reaches(path: Path) -> list[str]:
    """``<x>.index`` / ``<x>.records`` read on a name that holds an engine (``engine``, ``eng``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("index", "records")
            and isinstance(node.value, ast.Name)
            and node.value.id in ("engine", "eng")
        ):
            out.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {node.value.id}.{node.attr}")
    return out


def test_the_ui_uses_the_engine_facade_not_its_stores(tmp_path, monkeypatch):
    """Pages and components call ``Engine`` methods (``core/engine_views.py``: ``answers``,
    ``answer``, ``documents``, ``ingest_uploads``, ``vector_coverage``, ...), never
    ``engine.index`` or ``engine.records`` (issue 31)."""
    ui = sorted((ROOT / "app_pages").glob("*.py")) + sorted((ROOT / "components").rglob("*.py")) + [ROOT / "app.py"]
    found = [r for p in ui for r in _engine_reaches(p)]
    assert found == []
    probe = tmp_path / "page.py"
    probe.write_text("rows = engine.index.documents('kb')\nrecords = engine.answers()\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert _engine_reaches(probe) == ["page.py:1 engine.index"]


def _core_imports(path: Path) -> list[str]:
    """``path:line module`` for each import of a ``core`` module other than ``core.public``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module]
        else:
            continue
        for module in modules:
            if (module == "core" or module.startswith("core.")) and module != "core.public":
                out.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {module}")
    return out


def test_the_ui_imports_core_only_through_its_public_names(tmp_path, monkeypatch):
    """``app.py``, ``app_pages/`` and ``components/`` import from ``core`` through ``core.public`` only
    (issue 31): a stage's internals can move without touching the UI."""
    ui = sorted((ROOT / "app_pages").glob("*.py")) + sorted((ROOT / "components").rglob("*.py")) + [ROOT / "app.py"]
    assert [r for p in ui for r in _core_imports(p)] == []
    probe = tmp_path / "page.py"
    probe.write_text(
        "from core.public import AnswerRecord\nfrom core.records.store import RecordStore\nimport core.engine\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert _core_imports(probe) == ["page.py:2 core.records.store", "page.py:3 core.engine"]


def test_every_public_name_is_its_owners_object():
    """Each name of ``core.public`` resolves, is the owning module's own object (not a copy) and is
    imported only when asked for: importing ``core.public`` loads no stage."""
    import importlib
    import subprocess

    from core import public

    for name, where in public.NAMES.items():
        module, _, attribute = where.partition(":")
        owner = importlib.import_module(module)
        expected = owner if ":" in where and not attribute else getattr(owner, attribute or name)
        assert getattr(public, name) is expected, name
    with pytest.raises(ImportError):
        exec("from core.public import no_such_name", {})
    probe = (
        "import sys, core\nbefore = set(sys.modules)\nimport core.public\n"
        "print(sorted(m for m in set(sys.modules) - before if m != 'core.public'))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_tests_mirror_the_stages():
    """``tests/`` mirrors ``core/``: each stage package has its folder of tests (``tests/store/`` for
    ``core/store/``, ...), the UI's are in ``tests/ui/`` and ``tests/browser/``, the command line's and
    the evaluation's in ``tests/cli/``; the ground floor's and the turns' stay at ``tests/``."""
    stages = {p.parent.name for p in (ROOT / "core").glob("*/__init__.py")} - {"cli", "evaluation"}
    assert stages == set(STAGES)
    for folder in sorted(stages | {"ui", "browser", "cli"}):
        assert (ROOT / "tests" / folder / "__init__.py").is_file(), folder
        assert list((ROOT / "tests" / folder).glob("test_*.py")), folder
