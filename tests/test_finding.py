"""The one finding model: location, merging and each report's keys."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from renderer.finding import (
    Details,
    Finding,
    ObjectRef,
    blocking,
    locate,
    merge_findings,
    merge_located,
    notes,
    split_location,
)


def _schema(kube: str, scen: str, line: int = 3, msg: str = "bad", fld: str = "spec.x") -> Finding:
    return Finding(
        "schema-invalid",
        "error",
        msg,
        stage="schema",
        object=ObjectRef("Kind", "n", "ns"),
        field=fld,
        file="a.yaml",
        line=line,
        scenarios=(scen,),
        kube_versions=(kube,),
    )


def test_one_defect_is_one_finding_listing_every_kube_version_and_scenario() -> None:
    """Equal in rule, object, field and template line: one finding, whatever the
    scenario, Kubernetes version or message (a registry variant names its image its
    own way); another line is another defect."""
    merged = merge_findings(
        [
            _schema("1.34", "s1"),
            _schema("1.35", "s1"),
            _schema("1.34", "s2", 9),
            _schema("1.34", "s3", msg="x"),
            _schema("1.34", "s1", msg="bad"),
        ]
    )
    assert [(m.message, m.where, m.kube_versions, m.scenarios) for m in merged] == [
        ("bad; x", "a.yaml:3", ("1.34", "1.35"), ("s1", "s3")),
        ("bad", "a.yaml:9", ("1.34",), ("s2",)),
    ]


def test_findings_not_at_a_field_are_one_per_message_wherever_found() -> None:
    merged = merge_findings(
        [
            _schema("1.34", "s1", fld=""),
            _schema("1.34", "s2", msg="x", fld=""),
            _schema("1.34", "s3", 9, fld=""),
        ]
    )
    assert [(m.message, m.where, m.scenarios) for m in merged] == [
        ("bad", "a.yaml:3", ("s1", "s3")),
        ("x", "a.yaml:3", ("s2",)),
    ]


def test_merge_orders_scenarios_as_asked_then_first_seen() -> None:
    found = [_schema("1.34", s) for s in ("c", "x", "a")]
    (merged,) = merge_findings(found, ["a", "b", "c"])
    assert merged.scenarios == ("a", "c", "x")


@pytest.mark.parametrize(
    ("where", "split", "located"),
    [
        ("", (None, None), ("", 0)),
        ("a.yaml", ("a.yaml", None), ("a.yaml", 0)),
        ("a.yaml:3", ("a.yaml", 3), ("a.yaml", 3)),
        ("a.yaml:3:5", ("a.yaml:3", 5), ("a.yaml:3", 5)),
        ("a:x", ("a:x", None), ("a:x", 0)),
    ],
)
def test_locations_split_into_file_and_line(
    where: str, split: tuple[str | None, int | None], located: tuple[str, int]
) -> None:
    assert split_location(where) == split
    assert locate(where) == located
    assert Finding("r", "error", "m", file=located[0], line=located[1]).where == where


def test_blocking_is_the_errors() -> None:
    found = [Finding("a", "error", "m"), Finding("b", "warning", "m"), Finding("c", "info", "m")]
    assert [f.rule for f in blocking(found)] == ["a"]


@dataclass(frozen=True)
class _Key(Details):
    key: str


def test_details_do_not_change_equality() -> None:
    assert Finding("r", "error", "m", details=_Key("k")) == Finding("r", "error", "m")


def test_text_is_the_compilers_location_style() -> None:
    f = Finding("r", "error", "m", stage="rules", file="k/c.yaml", line=7505, column=12)
    assert str(f) == "k/c.yaml:7505:12: error: [r] m"
    assert str(Finding("r", "warning", "m")) == "warning: [r] m"
    kube = Finding("r", "error", "m", kube_versions=("1.30", "1.31"), exception="why")
    assert str(kube) == "error: [r] m (kube 1.30, 1.31; excepted: why)"


def test_object_refs_parse_their_text() -> None:
    ref = ObjectRef("Deployment", "calico-typha", "kube-system")
    assert ObjectRef.parse(str(ref)) == ref
    assert ObjectRef.parse("Node n") == ObjectRef("Node", "n")
    assert ObjectRef.parse("") is None


def test_findings_at_other_places_stay_apart_when_merged_by_location() -> None:
    found = [_schema("1.34", "s"), _schema("1.35", "s"), _schema("1.34", "s", line=9)]
    assert [(m.line, m.kube_versions) for m in merge_located(found)] == [
        (3, ("1.34", "1.35")),
        (9, ("1.34",)),
    ]


def test_notes_are_warning_findings_once_per_message() -> None:
    found = notes("plan", "plan-warning", ["a", "b", "a"])
    assert [(f.stage, f.rule, f.severity, f.message) for f in found] == [
        ("plan", "plan-warning", "warning", "a"),
        ("plan", "plan-warning", "warning", "b"),
    ]
