"""The GitLab Code Quality format (a JSON array of issues), for documents with findings
to annotate (:class:`renderer.output.Findings`): a merge request's widget and diff show
each issue on its line (``artifacts: reports: codequality``).

Every issue has ``description``, ``check_name`` (the rule), ``fingerprint`` (stable
across runs and machines, see :mod:`.fingerprint`), ``severity`` and
``location.path`` with ``location.lines.begin``. GitLab needs a path: a finding located
nowhere (a missing Typha object) names the report's subject instead.
"""

from __future__ import annotations

import json
from typing import Any

from renderer import output
from renderer.output.fingerprint import fingerprints

#: A finding's severity as a Code Quality severity.
SEVERITIES = {"error": "major", "warning": "minor", "info": "info"}


def issues(doc: output.Findings) -> list[dict[str, Any]]:
    found = doc.annotations()
    fallback = getattr(doc, "subject", "") or "."
    out = []
    for f, digest in zip(found, fingerprints(found), strict=True):
        out.append(
            {
                "type": "issue",
                "description": f"[{f.rule}] {f.headline}",
                "check_name": f.rule,
                "categories": ["Bug Risk"] if f.severity == "error" else ["Style"],
                "fingerprint": digest,
                "severity": SEVERITIES.get(f.severity, "minor"),
                "location": {"path": f.file or fallback, "lines": {"begin": f.line or 1}},
            }
        )
    return out


class CodeQualityFormat:
    name = "codequality"

    def supports(self, kind: type[output.Document]) -> bool:
        return issubclass(kind, output.Document) and issubclass(kind, output.Findings)

    def render(self, doc: output.Document) -> str:
        if not isinstance(doc, output.Findings):
            raise ValueError(f"{type(doc).__name__} carries no findings")
        return json.dumps(issues(doc), indent=2, ensure_ascii=False) + "\n"


output.register(CodeQualityFormat())
