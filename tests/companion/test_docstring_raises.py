"""The public dynamics functions of ``geomotion.tree`` raise what their docstrings promise.

Each function's numpydoc **Raises** section is parsed (an entry that reads "As
:func:`rnea`" is resolved to rnea's entries for the exception types it lists), and each
kind of bad input is mapped to the exception type whose entry describes it: a wrong model
type, a wrong shape, a batch that does not broadcast, a non-finite value, None, an
unknown ``f_ext_frame``.  The call is then made with exactly that fault and must raise
that type; where the entry says the message is "Naming the argument", the message must
open with the names of the call's own arguments, the faulty one among them.  A kind of
bad input that a docstring does not list at all fails too.
"""

import builtins
import inspect
import re

import numpy as np
import pytest

from geomotion import errors, models, tree

FUNCTIONS = {
    "rnea": tree.rnea,
    "aba": tree.aba,
    "crba": tree.crba,
    "bias_forces": tree.bias_forces,
    "coriolis_matrix": tree.coriolis_matrix,
}

#: Kinds of bad input, each with the words by which a Raises entry describes it.
KINDS = {
    "wrong model type": r"model type|not a Tree|``model`` is not",
    "wrong shape": r"shape|malformed|\(\.\.\., n[qv]?\) (?:array|configuration)",
    "non-broadcasting batch": r"broadcast",
    "non-finite value": r"non-finite|not a finite",
    "None": r"\bNone\b",
    "holding None": r"\bNone\b",
    "unknown f_ext_frame": r"f_ext_frame",
}

ARM = models.two_link_teaching_arm()


def _exception(name):
    """The exception class a Raises entry names (``geomotion.errors.X`` or a builtin)."""
    found = getattr(builtins, name.rsplit(".", 1)[-1], None) or getattr(
        errors, name.rsplit(".", 1)[-1], None
    )
    assert isinstance(found, type) and issubclass(found, BaseException), name
    return found


def raises_entries(name):
    """[(exception class, description)] of a function's Raises section, "As :func:`x`"
    resolved to x's entries for the same exception types."""
    doc = inspect.getdoc(FUNCTIONS[name])
    match = re.search(r"^Raises\n------\n(.*?)(?=^\w[\w ]*\n-{3,}\n|\Z)", doc, re.S | re.M)
    assert match, f"{name}: no Raises section"
    entries = []
    for header, body in re.findall(r"^(\S.*)\n((?:^[ \t]+.*\n?)*)", match.group(1), re.M):
        description = " ".join(body.split())
        types = [_exception(part.strip()) for part in header.split(",")]
        reference = re.match(r"As :func:`~?(?:geomotion\.tree\.)?(\w+)`", description)
        if reference:
            entries += [
                (kind, text) for kind, text in raises_entries(reference.group(1)) if kind in types
            ]
        else:
            entries += [(kind, description) for kind in types]
    return entries


def promised(name, kind):
    """The exception types whose entries describe this kind of bad input."""
    return {exception for exception, text in raises_entries(name) if re.search(KINDS[kind], text)}


def _names_the_argument(name, kind):
    return any(
        re.search(KINDS[kind], text) and text.startswith("Naming the argument")
        for _, text in raises_entries(name)
    )


def call_with(name, kind):
    """Call the function with one fault of the given kind; (call, the faulty argument)."""
    function = FUNCTIONS[name]
    parameters = inspect.signature(function).parameters
    states = [p for p in parameters if p in ("q", "v", "a", "tau")]
    good = {p: np.zeros(2) for p in states}
    bad_argument = "q"
    options = {}
    if kind == "wrong model type":
        model, bad_argument = "two-link arm", "model"
    else:
        model = ARM
    if kind == "wrong shape":
        good["q"] = np.zeros(3)
    elif kind == "non-broadcasting batch":
        good["q"], good["v"] = np.zeros((2, 2)), np.zeros((3, 2))
    elif kind == "non-finite value":
        good["q"] = np.array([np.nan, 0.0])
    elif kind == "None":
        good["q"] = None
    elif kind == "holding None":
        good["q"] = [None, 0.0]
    elif kind == "unknown f_ext_frame":
        options, bad_argument = {"f_ext_frame": "inertial"}, "f_ext_frame"
    return (lambda: function(model, *(good[p] for p in states), **options)), bad_argument


def _applies(name, kind):
    parameters = inspect.signature(FUNCTIONS[name]).parameters
    if kind == "non-broadcasting batch":
        return "v" in parameters  # two state arguments to disagree
    if kind == "unknown f_ext_frame":
        return "f_ext_frame" in parameters
    return True


CASES = [(name, kind) for name in FUNCTIONS for kind in KINDS if _applies(name, kind)]


def test_the_docstrings_are_parsed():
    """rnea's own entries, and aba's 'As rnea' resolved to them."""
    assert [kind for kind, _ in raises_entries("rnea")] == [
        ValueError,
        TypeError,
        FloatingPointError,
    ]
    assert raises_entries("aba") == raises_entries("rnea")
    assert promised("rnea", "unknown f_ext_frame") == {ValueError}
    assert promised("rnea", "None") == {TypeError}
    assert promised("crba", "wrong shape") == {ValueError}
    assert len(CASES) == 7 + 7 + 5 + 7 + 6


@pytest.mark.parametrize(("name", "kind"), CASES, ids=[f"{name}-{kind}" for name, kind in CASES])
def test_a_bad_input_raises_the_documented_exception(name, kind):
    types = promised(name, kind)
    assert types, f"{name}: its Raises section lists no exception for {kind}"
    assert len(types) == 1, f"{name}: {kind} is listed under {sorted(t.__name__ for t in types)}"
    (expected,) = types
    call, _ = call_with(name, kind)
    with pytest.raises(Exception) as caught:
        call()
    assert type(caught.value) is expected, (
        f"{name} with a {kind}: the docstring promises {expected.__name__}, the call raised "
        f"{type(caught.value).__name__}: {caught.value}"
    )


NAMED = [case for case in CASES if _names_the_argument(*case)]


@pytest.mark.parametrize(("name", "kind"), NAMED, ids=[f"{name}-{kind}" for name, kind in NAMED])
def test_the_message_names_the_argument(name, kind):
    """'Naming the argument': the message opens with argument names of this call, the
    faulty one among them."""
    call, bad_argument = call_with(name, kind)
    with pytest.raises(Exception) as caught:
        call()
    named = str(caught.value).split(":", 1)[0].split(", ")
    parameters = set(inspect.signature(FUNCTIONS[name]).parameters)
    assert bad_argument in named and set(named) <= parameters, (named, str(caught.value))


@pytest.mark.parametrize(
    ("call", "names"),
    [
        (lambda q, v: tree.rnea(ARM, q, v, np.zeros(2)), "q, v, a"),
        (lambda q, v: tree.aba(ARM, q, v, np.zeros(2)), "q, v, tau"),
        (lambda q, v: tree.bias_forces(ARM, q, v), "q, v"),
        (lambda q, v: tree.coriolis_matrix(ARM, q, v), "q, v"),
        (lambda q, v: tree.rnea(ARM, q, v, 0 * v, f_ext=np.zeros((2, 6))), "q, v, a, f_ext"),
        (lambda q, v: tree.bias_forces(ARM, q, v, gravity=[0, -9.81, 0]), "q, v, gravity"),
        (
            lambda q, v: tree.aba(ARM, q, v, 0 * v, f_ext=np.zeros((2, 6)), gravity=[0, 0, -1]),
            "q, v, tau, f_ext, gravity",
        ),
    ],
    ids=["rnea", "aba", "bias_forces", "coriolis_matrix", "f_ext", "gravity", "both"],
)
def test_a_batch_that_does_not_broadcast_names_the_call_s_own_arguments(call, names):
    """The arrays the call was given, in its order, f_ext and gravity when given."""
    with pytest.raises(ValueError, match=rf"^{names}: expected leading \(batch\) shapes that "):
        call(np.zeros((2, 2)), np.zeros((3, 2)))
