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
