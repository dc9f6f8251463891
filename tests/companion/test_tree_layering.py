"""The layout of geomotion.tree: one readable oracle, one compiled path, no cycles.

Each algorithm of the package's trees exists twice and only twice: as readable code in
the public oracle ``geomotion.tree.reference`` and as a compiled kernel.  These tests
read the sources (the import statements, at module level and inside functions) and
check what keeps the two apart and the compiled path acyclic:

* no module of the compiled path, of the tree's validation or of the public fast
  functions imports the oracle (only ``tree/__init__.py`` re-exports its readable
  path, and ``verification``, which exists to compare the two, reads it);
* ``tree/_flat.py``, which holds everything the compiled path needs of a tree, imports
  nothing from ``geomotion.tree``;
* the modules of ``geomotion.tree`` import one another without a cycle;
* every module of ``geomotion.tree`` but the oracle is internal (a leading underscore).
"""

import ast
import pathlib

import geomotion

PACKAGE = pathlib.Path(geomotion.__file__).parent
TREE = PACKAGE / "tree"


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """What ``path`` imports from geomotion, fully qualified: a module, or module.name for
    each name of a ``from module import name`` (a submodule or a name in the module)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("geomotion")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            if not origin.startswith("geomotion"):
                continue
            found |= {f"{origin}.{alias.name}" for alias in node.names}
    return found


def _tree_modules():
    return {_module_name(path): path for path in TREE.rglob("*.py")}


ORACLE = "geomotion.tree.reference"


def _reads_the_oracle(path):
    return any(m == ORACLE or m.startswith(ORACLE + ".") for m in _imports(path))


def _resolve(imported, modules):
    """The module of ``modules`` that ``imported`` (module or module.name) refers to."""
    if imported in modules:
        return imported
    parent = imported.rsplit(".", 1)[0]
    return parent if parent in modules else None


def test_no_production_module_imports_the_oracle():
    allowed = {"geomotion.tree", "geomotion.verification"}  # re-export; the comparisons
    offenders = [
        _module_name(path)
        for path in PACKAGE.rglob("*.py")
        if _reads_the_oracle(path)
        and _module_name(path) not in allowed
        and not _module_name(path).startswith(ORACLE)
    ]
    assert not offenders, f"modules that import the oracle {ORACLE}: {offenders}"


def test_the_oracle_imports_no_compiled_module():
    compiled = (
        "_flat",
        "_lanes",
        "_lanes_coriolis",
        "_lanes_frames",
        "_single",
        "_run",
        "_closed_loop",
    )
    offenders = [
        (_module_name(path), module)
        for path in (TREE / "reference").glob("*.py")
        for module in _imports(path)
        if any(f"geomotion.tree.{name}" in (module, module.rsplit(".", 1)[0]) for name in compiled)
    ]
    assert not offenders, f"the oracle imports the compiled path: {offenders}"


def test_the_flat_tree_module_is_a_leaf():
    inside = [m for m in _imports(TREE / "_flat.py") if m.startswith("geomotion.tree.")]
    assert not inside, f"geomotion.tree._flat imports {inside}"


def _tree_graph():
    modules = _tree_modules()
    graph = {}
    for name, path in modules.items():
        targets = set()
        for imported in _imports(path):
            target = _resolve(imported, modules)
            if target is not None and target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def _cycle(graph):
    """A cycle of ``graph`` as a list of modules, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                return stack[stack.index(target) :] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_tree_modules_import_one_another_without_a_cycle():
    graph = _tree_graph()
    # The package's __init__ imports every module; a module importing the package's
    # public names from it back would be a cycle through it.
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_every_tree_module_but_the_oracle_is_internal():
    public = {"geomotion.tree", ORACLE}
    offenders = [
        name
        for name in _tree_modules()
        if name not in public
        and not name.startswith(ORACLE + ".")
        and not name.rsplit(".", 1)[1].startswith("_")
    ]
    assert not offenders, f"public-looking internal modules: {offenders}"
