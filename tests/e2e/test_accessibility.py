"""No page has a serious or critical accessibility violation that axe-core finds.

For a visitor, a member, a Premium member and an admin, each page of the app is opened
once, at 390 px (a phone), checked with axe-core (the rules of WCAG 2.x A and AA and
axe's best practices), then resized to 1280 px (the sidebar's layout) and checked again.
A violation of impact "serious" or "critical" fails the test, named by its rule, the
elements it was found on and the page. ``make test`` installs axe-core into
.tools/axe-core/ (``make axe-core``).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest

from tests.e2e.flows import open_page
from tests.e2e.test_phone_layout import HEIGHT, SETTLE, USER_KINDS, app_routes, become

pytestmark = pytest.mark.e2e

AXE_SCRIPT = (
    Path(__file__).resolve().parents[2] / ".tools/axe-core/node_modules/axe-core/axe.min.js"
)
WIDTHS = (390, 1280)
SEVERE = ("serious", "critical")


class Exclusion(NamedTuple):
    """A violation left out: of ``rule``, on the elements matching ``selector``, on the
    page ``route`` (on every page when None), for ``reason``."""

    route: str | None
    rule: str
    selector: str
    reason: str


#: Violations left out, each with why it is not fixed here.
EXCLUDED: tuple[Exclusion, ...] = ()

# axe on the whole document: for each violation of impact serious or critical, on the
# elements no exclusion covers, the rule, its summary, each element's CSS selector, the
# start of its HTML and what is wrong with it.
RUN_AXE = """async ([severe, excluded]) => {
  const isExcluded = (rule, node) => excluded.some(([excludedRule, selector]) =>
    excludedRule === rule && node.target.length === 1
      && document.querySelector(node.target[0])?.matches(selector));
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map((violation) => ({
    rule: violation.id,
    help: violation.help,
    nodes: violation.nodes
      .filter((node) => severe.includes(node.impact) && !isExcluded(violation.id, node))
      .map((node) => ({
        target: node.target.join(' '),
        html: node.html.slice(0, 160),
        why: node.failureSummary.split(/\\s+/).join(' '),
      })),
  })).filter((violation) => violation.nodes.length);
}"""


def axe_violations(page, route: str) -> dict[tuple[str, str], str]:
    """{(rule, element): what is wrong} of the serious and critical violations on the
    page open at ``route``, but for those EXCLUDED."""
    page.evaluate(SETTLE)
    excluded = [(item.rule, item.selector) for item in EXCLUDED if item.route in (None, route)]
    found = {}
    for violation in page.evaluate(RUN_AXE, [list(SEVERE), excluded]):
        for node in violation["nodes"]:
            found[violation["rule"], node["target"]] = (
                f"{violation['help']}: {node['html']} — {node['why']}"
            )
    return found


@pytest.mark.parametrize("kind", USER_KINDS)
def test_no_page_has_a_serious_accessibility_violation(new_context, app_server, kind):
    if not AXE_SCRIPT.exists():
        pytest.fail(
            f"axe-core not found at {AXE_SCRIPT}: run `make axe-core` (or `make test`).",
            pytrace=False,
        )
    page = new_context(viewport=(WIDTHS[0], HEIGHT)).new_page()
    become(kind, page, app_server)
    # (page, rule, element) -> (the widths it was found at, what is wrong)
    problems: dict[tuple[str, str, str], tuple[list[int], str]] = {}
    for route in app_routes(app_server):
        page.set_viewport_size({"width": WIDTHS[0], "height": HEIGHT})
        open_page(page, route)
        page.wait_for_timeout(250)  # data the page loads after it is ready
        page.add_script_tag(path=str(AXE_SCRIPT))
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": HEIGHT})
            for (rule, target), text in axe_violations(page, route).items():
                problems.setdefault((route, rule, target), ([], text))[0].append(width)
    report = [
        f"{route} at {', '.join(map(str, widths))} px: {rule} on {target}\n    {text}"
        for (route, rule, target), (widths, text) in problems.items()
    ]
    assert not report, f"{len(report)} serious accessibility violations for the {kind}:\n" + (
        "\n".join(report)
    )
