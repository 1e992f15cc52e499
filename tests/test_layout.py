"""The tests mirror the package: ``renderer/<pkg>/<module>.py`` is tested in
``tests/<pkg>/test_<module>.py`` (a trailing ``_``, as in ``import_``, dropped)."""

from __future__ import annotations

from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
PACKAGE = PROJECT / "renderer"
TESTS = PROJECT / "tests"
#: Modules that are not a unit of their own: package markers and the entry points.
EXEMPT = {"__init__", "__main__", "_entry"}
#: Modules written before the rule whose test module is still to come; only ever shrinks.
NOT_YET: set[str] = set()


def mirror_of(module: Path) -> Path:
    """Where the tests of ``module`` (a path under renderer/) live."""
    rel = module.relative_to(PACKAGE)
    return TESTS / rel.parent / f"test_{module.stem.rstrip('_')}.py"


def _untested() -> set[str]:
    return {
        str(module.relative_to(PACKAGE))
        for module in PACKAGE.rglob("*.py")
        if module.stem not in EXEMPT and not mirror_of(module).is_file()
    }


def test_every_module_has_a_test_module_mirroring_it() -> None:
    assert sorted(_untested() - NOT_YET) == []


def test_the_list_of_modules_still_without_tests_only_shrinks() -> None:
    assert sorted(NOT_YET - _untested()) == []  # tested now, or gone: drop it from NOT_YET


def test_the_mirror_is_the_tests_package_layout() -> None:
    assert mirror_of(PACKAGE / "k8s" / "decode.py") == TESTS / "k8s" / "test_decode.py"
    assert mirror_of(PACKAGE / "cli" / "import_.py") == TESTS / "cli" / "test_import.py"
    assert mirror_of(PACKAGE / "errors.py") == TESTS / "test_errors.py"
