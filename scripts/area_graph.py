"""The import graph between PrettyScore's areas, and where it runs against the layers.

    .venv/bin/python scripts/area_graph.py [checkout]      (default: this checkout)

An area is a package under ``prettyscore/``; an edge is an import of one area by
another. Printed twice: for every module, and for the domain alone (the modules outside
the Reflex layer, as pyproject.toml's per-file-ignores of TID251 name that layer). In
the domain, every area should stand on the ones below it, so its graph has no cycle;
the Reflex layer's pages and states meet the shared layout (``ui/``), so its areas
import each other both ways by design. For each: the largest cycle (strongly connected
set of areas), the edges and import statements inside cycles, the largest package's
share of the code, and the domain modules that import the Reflex layer.
"""

from __future__ import annotations

import ast
import collections
import fnmatch
import sys
import tomllib
from pathlib import Path


def reflex_layer_globs(root: Path) -> list[str]:
    ignores = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    return [
        glob
        for glob, rules in ignores["per-file-ignores"].items()
        if "TID251" in rules and not glob.startswith("!")
    ]


def modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Every module of the package: its file, and whether it is in the Reflex layer."""
    globs = reflex_layer_globs(root)
    found = {}
    for path in (root / "prettyscore").rglob("*.py"):
        relative = path.relative_to(root)
        name = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
        found[name] = (path, any(fnmatch.fnmatch(relative.as_posix(), g) for g in globs))
    return found


def area(module: str) -> str:
    """The module's area: its package under ``prettyscore``, or "(root)" for the
    composition roots (``prettyscore.prettyscore``, ``api_app``) and the package."""
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1] in ("prettyscore", "api_app")):
        return "(root)"
    return parts[1]


def imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return [name for name in found if name.startswith("prettyscore.")]


def cycles(edges) -> list[set[str]]:
    """The strongly connected sets of areas (Tarjan), largest first."""
    graph = collections.defaultdict(set)
    for source, target in edges:
        graph[source].add(target)
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            found.append(component)

    sys.setrecursionlimit(10_000)
    for node in list(graph):
        if node not in index:
            visit(node)
    return sorted(found, key=len, reverse=True)


def report(root: Path) -> str:
    found = modules(root)
    lines_of = collections.Counter()
    edges = {"every module": collections.Counter(), "the domain": collections.Counter()}
    against = []
    for name, (path, in_reflex_layer) in found.items():
        source = area(name)
        lines_of[source] += len(path.read_text().splitlines())
        for target_module in imports(path):
            target = area(target_module)
            target_in_layer = found.get(target_module, (None, False))[1]
            if not in_reflex_layer and target_in_layer:
                against.append(f"{name} → {target_module}")
            if target == source or source == "(root)":
                continue
            edges["every module"][(source, target)] += 1
            if not in_reflex_layer and not target_in_layer:
                edges["the domain"][(source, target)] += 1
    total = sum(lines_of.values())
    largest, size = lines_of.most_common(1)[0]
    out = [f"{total} lines; the largest package, {largest}/, has {size} ({size / total:.1%})"]
    for kind, counted in edges.items():
        sets = cycles(counted)
        inside = {e: n for e, n in counted.items() if any(e[0] in s and e[1] in s for s in sets)}
        biggest = sets[0] if sets and len(sets[0]) > 1 else set()
        out.append(
            f"{kind}: {len(counted)} area edges ({sum(counted.values())} imports); largest "
            f"cycle {len(biggest)} areas {sorted(biggest)}; {len(inside)} edges "
            f"({sum(inside.values())} imports) inside cycles"
        )
    out.append(f"domain modules importing the Reflex layer: {len(against)} {against}")
    return "\n".join(out)


if __name__ == "__main__":
    checkout = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
    print(report(checkout.resolve()))
