"""The API convention (book/api_convention.md), enforced where a machine can check it.

Each test walks the whole public surface of ``geomotion`` (every name in a public module's
``__all__``) or the source of every module, and lists every violation in its message, so
that a new function cannot land with positional options, an undocumented signature, a
result that unpacks, a second name for a quantity or a private import across packages.
Each check was seen to fail on the code it was written against (before the convention
was applied), which is how we know it can.
"""

import ast
import dataclasses
import importlib
import inspect
import pathlib

import pytest

import geomotion

PACKAGE = pathlib.Path(geomotion.__file__).parent

PUBLIC_MODULES = [
    "spatial",
    "inertia",
    "dualquat",
    "tree",
    "lagrange",
    "constraints",
    "systems",
    "allocation",
    "contact",
    "control",
    "symmetry",
    "integrators",
    "models",
    "verification",
    "printing",
    "figures",
    "widgets",
    "errors",
]

#: Parameter and field names that the convention replaced (old name -> the one word now).
RETIRED_NAMES = {
    "qd": "v",
    "qdd": "a",
    "qd0": "v0",
    "vdot": "a",
    "max_iterations": "max_iter",
    "tol": "atol or rtol",
    "lam": "multiplier",
}

#: Private modules of the shared bottom layer, which every layer may import from.
SHARED_PRIVATE = {"_validate", "_linalg", "_numerics", "_threads", "_kernels", "_kernel_cache"}

#: Layers, lowest first; an import may only point to the same layer or one below.
LAYERS = [
    {
        "_validate",
        "_linalg",
        "_numerics",
        "_threads",
        "_kernels",
        "_kernel_cache",
        "errors",
        "printing",
    },
    {"spatial", "dualquat"},
    {"inertia"},
    {"lagrange", "symmetry", "tree"},
    {"constraints"},
    {"systems"},
    {"integrators", "allocation", "contact", "control"},
    {"models", "verification", "figures", "widgets"},
]
SIDE_BY_SIDE = {"integrators", "allocation", "contact", "control"}


def _public_objects():
    """(qualified name, object) for every public name defined in geomotion."""
    seen = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(f"geomotion.{module_name}")
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if getattr(obj, "__module__", "").startswith("geomotion") and (
                inspect.isfunction(obj) or inspect.isclass(obj)
            ):
                seen.setdefault(id(obj), (f"{module_name}.{name}", obj))
    return sorted(seen.values(), key=lambda item: item[0])


PUBLIC = _public_objects()
FUNCTIONS = [(name, obj) for name, obj in PUBLIC if inspect.isfunction(obj)]
CLASSES = [(name, obj) for name, obj in PUBLIC if inspect.isclass(obj)]
DATACLASSES = [(name, obj) for name, obj in CLASSES if dataclasses.is_dataclass(obj)]


def _signature_of(obj):
    return inspect.signature(obj)


def test_the_public_surface_is_found():
    assert len(FUNCTIONS) > 150 and len(DATACLASSES) > 20, (len(FUNCTIONS), len(DATACLASSES))


def test_every_parameter_with_a_default_is_keyword_only():
    """Options follow the state and are passed by name (``rtol=``, ``gravity=``, ``method=``)."""
    offenders = []
    for name, obj in FUNCTIONS + DATACLASSES:
        for parameter in _signature_of(obj).parameters.values():
            positional = parameter.kind in (
                parameter.POSITIONAL_ONLY,
                parameter.POSITIONAL_OR_KEYWORD,
            )
            if positional and parameter.default is not parameter.empty:
                offenders.append(f"{name}({parameter.name}=...)")
    assert not offenders, "positional parameters with defaults:\n" + "\n".join(offenders)


def test_no_positional_booleans():
    offenders = [
        f"{name}({parameter.name})"
        for name, obj in FUNCTIONS + DATACLASSES
        for parameter in _signature_of(obj).parameters.values()
        if isinstance(parameter.default, bool) and parameter.kind != parameter.KEYWORD_ONLY
    ]
    assert not offenders, "booleans that can be passed by position:\n" + "\n".join(offenders)


def test_one_word_per_quantity():
    offenders = []
    for name, obj in FUNCTIONS + DATACLASSES:
        for parameter in _signature_of(obj).parameters:
            if parameter in RETIRED_NAMES:
                offenders.append(f"{name}: {parameter} -> {RETIRED_NAMES[parameter]}")
    assert not offenders, "retired names still in use:\n" + "\n".join(offenders)


def test_every_public_callable_documents_parameters_and_returns():
    offenders = []
    for name, obj in FUNCTIONS:
        doc = inspect.getdoc(obj) or ""
        if _signature_of(obj).parameters and "Parameters\n----------" not in doc:
            offenders.append(f"{name}: no Parameters section")
        if "Returns\n-------" not in doc and "Yields\n------" not in doc:
            offenders.append(f"{name}: no Returns section")
    for name, obj in CLASSES:
        doc = inspect.getdoc(obj) or ""
        if not any(f"{title}\n{'-' * len(title)}" in doc for title in ("Parameters", "Attributes")):
            offenders.append(f"{name}: no Parameters or Attributes section")
    assert not offenders, "docstrings missing sections:\n" + "\n".join(offenders)


def test_named_results_do_not_unpack():
    """Several results come back as a frozen dataclass read by name, never as a tuple."""
    offenders = [
        name
        for name, obj in CLASSES
        if issubclass(obj, tuple) or (dataclasses.is_dataclass(obj) and hasattr(obj, "__iter__"))
    ]
    offenders += [name for name, obj in DATACLASSES if not obj.__dataclass_params__.frozen]
    assert not offenders, "results that unpack, or mutable dataclasses:\n" + "\n".join(offenders)


def test_no_tolerance_constants_in_public_modules():
    """Tolerances are per-call keyword arguments; a public module constant would be inert."""
    offenders = []
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(f"geomotion.{module_name}")
        for name in getattr(module, "__all__", []):
            value = getattr(module, name)
            if name.isupper() and name.endswith(("_RTOL", "_ATOL", "_TOL", "_STEP", "_FACTOR")):
                offenders.append(f"{module_name}.{name} = {value!r}")
    assert not offenders, "public tolerance constants:\n" + "\n".join(offenders)


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py"))


def _package_of(path):
    """The top-level unit of geomotion a file belongs to: 'tree', 'lagrange', '_validate'..."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0] if parts[0] != "__init__" else "geomotion"


def _imports(path):
    """(target unit, imported name or None, line) for every relative or geomotion import."""
    tree = ast.parse(path.read_text())
    here = path.relative_to(PACKAGE).parent.parts
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                target = list(base) + (node.module.split(".") if node.module else [])
            elif node.module and node.module.startswith("geomotion"):
                target = node.module.split(".")[1:]
            else:
                continue
            for alias in node.names:
                full = target + [alias.name]
                found.append((full[0] if full else "geomotion", full, node.lineno))
    return found


def _private_attributes(path, unit):
    """Uses like ``tree._check_model`` of a module imported from another package."""
    modules = {}
    for target_unit, full, _ in _imports(path):
        if target_unit not in SHARED_PRIVATE and target_unit != unit and len(full) == 1:
            modules[full[0]] = target_unit
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(
                f"{path.relative_to(PACKAGE)}:{node.lineno} uses {node.value.id}.{node.attr}"
            )
    return found


def test_no_private_name_is_imported_across_packages():
    offenders = []
    for path in _modules():
        unit = _package_of(path)
        for target_unit, full, line in _imports(path):
            private = [part for part in full if part.startswith("_") and not part.startswith("__")]
            if target_unit in SHARED_PRIVATE or target_unit == unit:
                continue
            if private:
                offenders.append(f"{path.relative_to(PACKAGE)}:{line} imports {'.'.join(full)}")
        offenders += _private_attributes(path, unit)
    assert not offenders, "private names imported across packages:\n" + "\n".join(offenders)


def test_imports_point_down_the_layers():
    rank = {unit: level for level, units in enumerate(LAYERS) for unit in units}
    offenders = []
    for path in _modules():
        unit = _package_of(path)
        if unit not in rank:
            continue
        for target_unit, _, line in _imports(path):
            if target_unit not in rank or target_unit == unit:
                continue
            upward = rank[target_unit] > rank[unit]
            sideways = unit in SIDE_BY_SIDE and target_unit in SIDE_BY_SIDE
            if upward or sideways:
                offenders.append(
                    f"{path.relative_to(PACKAGE)}:{line} ({unit}) imports {target_unit}"
                )
    assert not offenders, "imports against the layers:\n" + "\n".join(offenders)


@pytest.mark.parametrize("symmetry_module", ["lagrange", "symmetry"])
def test_metric_modules_import_no_tree(symmetry_module):
    paths = [PACKAGE / f"{symmetry_module}.py"] + sorted((PACKAGE / symmetry_module).glob("*.py"))
    offenders = [
        f"{path.name}:{line}"
        for path in paths
        if path.exists()
        for target_unit, _, line in _imports(path)
        if target_unit == "tree"
    ]
    assert not offenders, offenders
