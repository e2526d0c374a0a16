"""The layers of docs/architecture.md, held by tests: no import cycles, no UI in the library, short files."""

from __future__ import annotations

import ast
from pathlib import Path

from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "stviz"
#: The longest a module of the library may grow before it holds more than one job.
MAX_LINES = 500


def module_name(path: Path) -> str:
    """Dotted name of a module file under the project root."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(path: Path) -> set[str]:
    """Every absolute import of a file, those inside functions included (they tie modules as much)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def import_graph() -> dict[str, set[str]]:
    """stviz module -> the stviz modules it imports (a package and its own submodules do not count)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in modules.items():
        targets = {resolve(t) for t in imported_names(path) if t.startswith("stviz")}
        graph[name] = {t for t in targets if t and t != name and not t.startswith(name + ".")
                       and not name.startswith(t + ".")}
    return graph


def test_no_import_cycles_among_stviz_modules():
    graph = import_graph()
    names = sorted(graph)
    index = {n: i for i, n in enumerate(names)}
    rows, cols = zip(*[(index[a], index[b]) for a in names for b in graph[a]])
    adjacency = csr_matrix(([1] * len(rows), (rows, cols)), shape=(len(names), len(names)))
    _, labels = connected_components(adjacency, directed=True, connection="strong")
    cycles = [sorted(n for n in names if labels[index[n]] == label)
              for label in set(labels) if list(labels).count(label) > 1]
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_library_never_imports_streamlit():
    users = [module_name(p) for p in PACKAGE.rglob("*.py") if any(n.split(".")[0] == "streamlit"
                                                                   for n in imported_names(p))]
    assert not users


def test_no_library_file_is_over_the_limit():
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split by job (at most {MAX_LINES} lines): {long}"


def test_pages_and_commands_compute_through_the_analysis_layer():
    # Views and commands read datasets and draw; computing goes through stviz.analyses (page = CLI).
    computation = ("stviz.metrics", "stviz.meta", "stviz.similarity", "stviz.measures", "stviz.reduce")
    files = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(PACKAGE / "cli").glob("*.py")]
    direct = {str(p.relative_to(ROOT)): sorted(n for n in imported_names(p) if n.startswith(computation))
              for p in files}
    assert not {k: v for k, v in direct.items() if v}


def test_the_measures_sit_above_what_they_compute_with():
    # docs/architecture.md, "Measures by axis": the families compute with metrics, embedders, models and data, and
    # none of those imports a family (so a family's module may import them at the top without a cycle).
    below = ("stviz.metrics", "stviz.embedders", "stviz.data", "stviz.cache", "stviz.languages", "stviz.engine",
             "stviz.models.loading", "stviz.models.known_answers", "stviz.progress", "stviz.shared")
    upward = {name: sorted(t for t in targets if t.startswith("stviz.measures"))
              for name, targets in import_graph().items() if name.startswith(below)}
    assert not {name: targets for name, targets in upward.items() if targets}


def test_every_stviz_import_names_a_module_of_this_tree():
    # A module moved (issue 41: the style and fluency axes into stviz.measures) leaves no import of its old path.
    def exists(name: str) -> bool:
        path = ROOT.joinpath(*name.split("."))
        return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()

    files = [*PACKAGE.rglob("*.py"), ROOT / "app.py",
             *(p for folder in ("ui", "pages", "tests", "benchmarks", "tools") for p in (ROOT / folder).rglob("*.py"))]
    stale = {}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            else:
                continue
            missing = [n for n in names if n.split(".")[0] == "stviz" and not exists(n)]
            if missing:
                stale.setdefault(str(path.relative_to(ROOT)), []).extend(missing)
    assert not stale


def test_the_cycle_finder_finds_a_cycle(tmp_path, monkeypatch):
    # The checker itself can fail: two modules importing each other inside functions form a cycle.
    package = tmp_path / "stviz"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from stviz.b import g\n")
    (package / "b.py").write_text("def g():\n    import stviz.a\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    monkeypatch.setattr(__import__(__name__), "PACKAGE", package)
    assert import_graph() == {"stviz": set(), "stviz.a": {"stviz.b"}, "stviz.b": {"stviz.a"}}


def test_no_page_relies_on_streamlit_magic():
    """Magic is off (.streamlit/config.toml): a bare expression in a page or the app would silently draw nothing."""
    assert "magicEnabled = false" in (ROOT / ".streamlit" / "config.toml").read_text()
    bare = []
    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            blocks = [getattr(node, field, None) for field in ("body", "orelse", "finalbody")]
            for i, statement in (pair for block in blocks if isinstance(block, list) for pair in enumerate(block)):
                if not isinstance(statement, ast.Expr) or isinstance(statement.value, (ast.Call, ast.Await)):
                    continue
                if i == 0 and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str):
                    continue  # a docstring: never drawn
                bare.append(f"{path.name}:{statement.lineno}")
    assert bare == []


def test_every_page_runs_in_its_turn():
    """Each view's file ends with ui.run_page(main) (ui.turns): a new server's first deep link runs the file without
    app.py, so a turn taken only in app.py would be skipped there."""
    for path in sorted((ROOT / "pages").glob("*.py")):
        last = ast.parse(path.read_text()).body[-1]
        assert ast.unparse(last) == "ui.run_page(main)", path.name
    assert "ui.run_page(home)" in (ROOT / "app.py").read_text()
