"""axe-core (vendored, ``vendor/``) run in a Playwright page: the violations it rates serious or
critical, as readable lines (empty: none)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
BLOCKING = ("serious", "critical")
RUN_AXE = """async () => {
  const found = await axe.run(document, {resultTypes: ["violations"]});
  return found.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + ": " + n.failureSummary)}));
}"""


def serious_violations(page: Any) -> list[str]:
    """axe's serious and critical findings on ``page`` as it is now (its context needs
    ``bypass_csp``: axe is injected as an inline script)."""
    page.add_script_tag(path=str(AXE))
    return [f"{v['id']} ({v['impact']}): {v['help']}\n  " + "\n  ".join(v["nodes"])
            for v in page.evaluate(RUN_AXE) if v["impact"] in BLOCKING]
