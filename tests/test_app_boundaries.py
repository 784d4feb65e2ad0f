"""The apps' boundary (ARCHITECTURE.md, CONVENTIONS.md "Across apps, ask the owner"):
`puzzles` never imports `grading` and never reads grading's tables through reverse
relations; it asks `puzzles.jury`, which `grading` answers."""

from __future__ import annotations

import ast
import graphlib
import re
import sys
from pathlib import Path

import pytest
from django.apps import apps

ROOT = Path(__file__).resolve().parent.parent
PUZZLES = [p for p in (ROOT / "puzzles").rglob("*.py") if "migrations" not in p.parts]


def _grading_relations() -> set[str]:
    """The names by which puzzles models reach grading's models backwards."""
    names = set()
    for model in apps.get_app_config("puzzles").get_models():
        for relation in model._meta.related_objects:
            if relation.related_model._meta.app_label == "grading":
                names.add(relation.get_accessor_name() or "")
                names.add(relation.field.related_query_name())
    return {n for n in names if n and not n.endswith("+")}


def test_puzzles_never_imports_grading():
    for path in PUZZLES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("grading"), path
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("grading") for a in node.names), path


def test_puzzles_never_follows_a_relation_into_grading():
    names = _grading_relations()
    assert {"papers", "jury"} <= names  # what the old publish view used
    # A lookup ("papers__isnull") or a manager call (competition.tags.all()).
    managers = "all|filter|exclude|count|exists|get|values|values_list|order_by|first|create"
    pattern = re.compile(
        r"[.\"'(,\s](" + "|".join(map(re.escape, sorted(names))) + rf")(__\w|\.({managers})\b)"
    )
    for path in PUZZLES:
        text = path.read_text(encoding="utf-8")
        found = [m.group(0) for m in pattern.finditer(text)]
        assert not found, (path, found)


@pytest.mark.django_db
def test_the_jury_answers_what_puzzles_asks(demo):
    from grading.models import Paper
    from puzzles.jury import jury_still_grading
    from puzzles.models import Competition

    demo = demo.competition
    assert jury_still_grading(demo)  # problems 1 and 2 have papers and are not finalized
    Paper.objects.filter(problem__competition=demo, problem__number__in=[1, 2]).delete()
    assert not jury_still_grading(demo)  # problem 3 alone, finalized
    assert not jury_still_grading(Competition.objects.create(slug="empty", name="Empty"))


def _imported(path: Path) -> set[str]:
    """Return the modules a file imports, relative imports made absolute (any nesting:
    a function's import counts as much as a top-level one)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = parts if parts[-1] == "__init__" else parts[:-1]
    package = [p for p in package if p != "__init__"]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)
    return found


def test_the_jurys_writes_never_import_the_review():
    """The writes announce a finalization (grading.signals); the review listens, connected
    in grading/apps.py, so that a write never waits on, or breaks with, the review."""
    writes = list((ROOT / "grading" / "services").rglob("*.py"))
    assert writes
    for path in writes:
        assert not any(m.startswith("grading.review") for m in _imported(path)), path


def test_the_review_never_imports_the_tasks():
    """grading/tasks.py imports the review's refresh task, never the other way round."""
    review = list((ROOT / "grading" / "review").rglob("*.py"))
    assert "grading.review.refresh" in _imported(ROOT / "grading" / "tasks.py")
    for path in review:
        assert not any(m.startswith("grading.tasks") for m in _imported(path)), path


# --- grading.selectors: one module per page or concern (CONVENTIONS.md, pattern 10) ---------

SELECTORS = ROOT / "grading" / "selectors"
MODULE_LINES = 400


def _package_imports(package: Path) -> dict[str, set[str]]:
    """Return each module of the package with the modules of it that it imports (lazy
    imports in a function count too; importing the package itself is importing __init__)."""
    name = ".".join(package.relative_to(package.parent.parent).parts)  # grading.selectors
    modules = {p.stem for p in package.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in package.glob("*.py"):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level == 1:
                module = node.module or ""
            elif node.level == 0 and (node.module or "").startswith(name):
                module = (node.module or "")[len(name) + 1 :]
            else:
                continue
            if module:
                found.add(module.split(".")[0])
            else:  # from . import x: a module of the package, or a name of its __init__
                found |= {a.name if a.name in modules else "__init__" for a in node.names}
        graph[path.stem] = found - {path.stem}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """Return one import cycle of the graph ([] if none)."""
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        return list(error.args[1])
    return []


def test_the_cycle_check_finds_a_lazy_import_back(tmp_path):
    """grading.selectors and selectors_criterion had this cycle: a lazy import back."""
    package = tmp_path / "app" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .sheet import a\nfrom .criterion import b\n")
    (package / "sheet.py").write_text("def a():\n    from .criterion import b\n")
    (package / "criterion.py").write_text("from .sheet import a\n")
    assert set(_cycle(_package_imports(package))) == {"sheet", "criterion"}
    (package / "sheet.py").write_text("def a():\n    pass\n")
    assert _cycle(_package_imports(package)) == []
    (package / "sheet.py").write_text("from app.pkg import b\n")  # through the __init__
    assert "__init__" in _cycle(_package_imports(package))


def test_grading_selectors_import_one_another_without_a_cycle():
    graph = _package_imports(SELECTORS)
    assert {"sheet", "cells", "by_criterion", "grade"} <= set(graph)
    assert graph["sheet"] >= {"cells"}  # the check reads the package's own imports
    assert _cycle(graph) == []


def test_no_module_of_grading_selectors_is_over_400_lines():
    sizes = {
        path.name: len(path.read_text(encoding="utf-8").splitlines())
        for path in SELECTORS.glob("*.py")
    }
    assert len(sizes) > 10
    assert {name: n for name, n in sizes.items() if n > MODULE_LINES} == {}


# --- puzzles: one room per analysis, no cycle (issue 21, move 8) ------------------------------


def _prefix_groups(package: Path) -> dict[str, list[str]]:
    """Return the `<prefix>_` groups of two or more modules of the package: rooms that are
    still prefixes (run_charts, run_forms, ...) instead of a package."""
    groups: dict[str, list[str]] = {}
    for path in package.glob("*.py"):
        if "_" in path.stem.strip("_"):
            groups.setdefault(path.stem.split("_")[0], []).append(path.stem)
    return {prefix: sorted(names) for prefix, names in groups.items() if len(names) > 1}


def _module_graph(package: Path) -> dict[str, set[str]]:
    """Return each module of the package and its subpackages (a package's __init__ by the
    package's name) with the modules of them that it imports, lazy imports counted."""
    modules = {}
    for path in package.rglob("*.py"):
        if "migrations" not in path.parts:
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return {name: (_imported(path) & set(modules)) - {name} for name, path in modules.items()}


def test_the_room_checks_find_a_prefix_group_and_a_cycle(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    app = tmp_path / "app"
    (app / "runs").mkdir(parents=True)
    for name in ("__init__", "run_charts", "run_forms", "report", "report_pdf", "runs/__init__"):
        (app / f"{name}.py").write_text("")
    assert _prefix_groups(app) == {"run": ["run_charts", "run_forms"]}
    (app / "runs" / "charts.py").write_text("def f():\n    from ..report import x\n")
    (app / "report.py").write_text("from .runs import f\n")
    assert _cycle(_module_graph(app)) == []
    (app / "runs" / "__init__.py").write_text("from .charts import f\n")  # through the room
    assert set(_cycle(_module_graph(app))) == {"app.runs", "app.runs.charts", "app.report"}


def test_analytics_and_the_context_lab_are_rooms_not_prefixes():
    for package in (ROOT / "puzzles" / "analytics", ROOT / "puzzles" / "context"):
        assert _prefix_groups(package) == {}, package
    assert (ROOT / "puzzles" / "analytics" / "runs" / "__init__.py").is_file()
    assert (ROOT / "puzzles" / "context" / "results" / "__init__.py").is_file()


def test_puzzles_imports_itself_without_a_cycle():
    graph = _module_graph(ROOT / "puzzles")
    assert "puzzles.analytics.runs" in graph["puzzles.analytics.report"]  # edges are read
    assert _cycle(graph) == []


# --- ioleval: the shared floor imports no app (CONVENTIONS.md, pattern 10) -------------------

APP_PACKAGES = ("puzzles", "grading")


def _app_imports(path: Path) -> set[str]:
    """Return the modules of an app that a file imports (strings naming an app, as
    INSTALLED_APPS and include("grading.urls") do, are not imports)."""
    return {m for m in _imported(path) if m.split(".")[0] in APP_PACKAGES}


def test_the_app_import_check_finds_a_lazy_import(tmp_path, monkeypatch):
    """ioleval/accounts/selectors.py imported grading.selectors (the jurors' loads)."""
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    (tmp_path / "floor.py").write_text(
        'APPS = ["grading"]\n\ndef f():\n    from grading.selectors import juror_loads\n'
    )
    (tmp_path / "clean.py").write_text('URLS = "puzzles.urls"\nimport ioleval.errors\n')
    assert "grading.selectors" in _app_imports(tmp_path / "floor.py")
    assert _app_imports(tmp_path / "clean.py") == set()


def test_ioleval_imports_no_app():
    floor = [p for p in (ROOT / "ioleval").rglob("*.py") if "migrations" not in p.parts]
    assert len(floor) > 20  # settings, accounts and management commands included
    found = {str(p.relative_to(ROOT)): _app_imports(p) for p in floor}
    assert {path: apps for path, apps in found.items() if apps} == {}


# --- every app: no import cycle, no module over 500 lines (issue 21, Checks) ------------------

APPS = ("grading", "puzzles", "ioleval")
MAX_LINES = 500


@pytest.mark.parametrize("app", ["grading", "ioleval"])  # puzzles: the test above
def test_no_import_cycle_inside_an_app(app):
    assert _cycle(_module_graph(ROOT / app)) == []


def test_the_split_packages_import_in_one_direction():
    """grading.pdf, grading.services.rubrics and grading.services.marks_io: one module per
    concern, each importing only those before it (the app check above sees their edges)."""
    graph = _module_graph(ROOT / "grading")
    assert graph["grading.pdf.folder"] >= {
        "grading.pdf.render",
        "grading.pdf.sheets",
        "grading.pdf.stamps",
    }
    assert "grading.pdf.fetch" in graph["grading.pdf.render"]
    assert "grading.pdf" in graph["grading.batches"]
    assert graph["grading.services.rubrics.files"] >= {
        "grading.services.rubrics.changes",
        "grading.services.rubrics.specs",
        "grading.services.rubrics.versions",
    }
    assert "grading.services.marks_io.rows" in graph["grading.services.marks_io.imports"]


def test_no_module_of_an_app_is_over_500_lines():
    """A module past ~400 lines becomes a package (CONVENTIONS.md pattern 10); past 500 this
    fails."""
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts
    }
    assert len(sizes) > 100
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}
