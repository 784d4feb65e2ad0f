"""The apps' boundary (ARCHITECTURE.md, CONVENTIONS.md "Across apps, ask the owner"):
`puzzles` never imports `grading` and never reads grading's tables through reverse
relations; it asks `puzzles.jury`, which `grading` answers."""

from __future__ import annotations

import ast
import graphlib
import re
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
def test_the_jury_answers_what_puzzles_asks(db):
    from django.core.management import call_command

    from grading.models import Paper
    from puzzles.jury import jury_still_grading
    from puzzles.models import Competition

    call_command("demo", verbosity=0)
    demo = Competition.objects.get(slug="demo")
    assert jury_still_grading(demo)  # problems 1 and 2 have papers and are not finalized
    Paper.objects.filter(problem__competition=demo, problem__number__in=[1, 2]).delete()
    assert not jury_still_grading(demo)  # problem 3 alone, finalized
    assert not jury_still_grading(Competition.objects.create(slug="empty", name="Empty"))


def _imported(path: Path, root: Path = ROOT) -> set[str]:
    """Return the modules a file imports, relative imports made absolute (any nesting:
    a function's import counts as much as a top-level one)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
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


# --- every app: no import cycle, no module over 500 lines (issue 21, Checks) ------------------

APPS = ("grading", "puzzles", "ioleval")
MAX_LINES = 500
# Modules over MAX_LINES that their owners are splitting (issue 21): the list only shrinks.
# A module of it that is split, or falls under the limit, must leave it.
WAITING = {
    "grading/review/charts.py": "the review split by concern (issue 21, move 6)",
    "puzzles/context/analysis.py": "the context lab's rooms (issue 21, move 8)",
    "puzzles/context/outcomes.py": "the context lab's rooms (issue 21, move 8)",
}


def _modules(app: str, root: Path = ROOT) -> dict[str, Path]:
    """Return the app's modules by dotted name (a package by its __init__), migrations apart."""
    return {
        ".".join(path.relative_to(root).with_suffix("").parts): path
        for path in (root / app).rglob("*.py")
        if "migrations" not in path.parts
    }


def _app_imports(app: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Return each module of the app with the modules of the app it imports, lazy imports
    included: `from .pdf import x` leads to grading.pdf.x if that is a module, else to the
    package's __init__ (which re-exports x)."""
    modules = _modules(app, root)

    def resolve(name: str) -> str | None:
        while name:
            for candidate in (name, f"{name}.__init__"):
                if candidate in modules:
                    return candidate
            name = name.rpartition(".")[0]
        return None

    return {
        module: {found for name in _imported(path, root) if (found := resolve(name))} - {module}
        for module, path in modules.items()
    }


def test_the_app_cycle_check_finds_a_cycle_through_a_package(tmp_path):
    """A module that imports its package's __init__, which re-exports it, is a cycle; so is a
    lazy import back."""
    package = tmp_path / "app" / "pdf"
    package.mkdir(parents=True)
    (tmp_path / "app" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from .render import a\nfrom .folder import b\n")
    (package / "render.py").write_text("def a():\n    pass\n")
    (package / "folder.py").write_text("from .render import a\n")
    (tmp_path / "app" / "tasks.py").write_text("from .pdf import b\n")
    assert _app_imports("app", tmp_path)["app.tasks"] == {"app.pdf.__init__"}
    assert _cycle(_app_imports("app", tmp_path)) == []
    (package / "render.py").write_text("def a():\n    from ..tasks import c\n")
    assert set(_cycle(_app_imports("app", tmp_path))) >= {"app.pdf.render", "app.tasks"}
    (package / "render.py").write_text("from app.pdf import b\n")
    assert "app.pdf.__init__" in _cycle(_app_imports("app", tmp_path))


@pytest.mark.parametrize("app", APPS)
def test_no_import_cycle_inside_an_app(app):
    assert _cycle(_app_imports(app)) == []


def test_the_split_packages_import_in_one_direction():
    """grading.pdf, grading.services.rubrics and grading.services.marks_io: one module per
    concern, each importing only those before it (the app check above sees their edges)."""
    graph = _app_imports("grading")
    assert graph["grading.pdf.folder"] >= {
        "grading.pdf.render",
        "grading.pdf.sheets",
        "grading.pdf.stamps",
    }
    assert "grading.pdf.fetch" in graph["grading.pdf.render"]
    assert "grading.pdf.__init__" in graph["grading.batches"]
    assert graph["grading.services.rubrics.files"] >= {
        "grading.services.rubrics.changes",
        "grading.services.rubrics.specs",
        "grading.services.rubrics.versions",
    }
    assert "grading.services.marks_io.rows" in graph["grading.services.marks_io.imports"]


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_of_an_app_is_over_500_lines():
    """A module past ~400 lines becomes a package (CONVENTIONS.md pattern 10); past 500 this
    fails, unless its split is under way (WAITING)."""
    sizes = {
        str(path.relative_to(ROOT)): _lines(path) for app in APPS for path in _modules(app).values()
    }
    assert len(sizes) > 100
    over = {name: n for name, n in sizes.items() if n > MAX_LINES and name not in WAITING}
    assert over == {}
    done = {name for name in WAITING if sizes.get(name, 0) <= MAX_LINES}
    assert done == set(), "split or under the limit: remove from WAITING"
