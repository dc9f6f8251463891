"""tidy: values for printing lose rounding dust and the sign of zero, nothing else."""

import numpy as np
import pytest

from geomotion.printing import assert_below, assert_close, tidy


def test_negative_zeros_and_dust_print_as_zero():
    # A context, not set_printoptions(): with no arguments that resets nothing, and the
    # notebooks' print options would leak into every later test (the doctests noticed).
    with np.printoptions(precision=4, suppress=True):
        assert str(np.array([-0.0, -1e-17, 2.0])) == "[-0. -0.  2.]"  # what tidy prevents
        assert str(tidy([-0.0, -1e-17, 2.0])) == "[0. 0. 2.]"


def test_scalars_come_back_as_floats_and_format_with_the_given_decimals():
    assert tidy(-0.0) == 0.0 and isinstance(tidy(-0.0), float)
    assert str(tidy(-0.0)) == "0.0"
    assert f"{tidy(-3e-5, decimals=4):.4f}" == "0.0000"
    assert f"{-3e-5:.4f}" == "-0.0000"  # without tidy


@pytest.mark.parametrize("value", [-0.25, 1e-9, -123.456789, 3.0])
def test_other_values_are_only_rounded(value):
    assert tidy(value) == round(value, 12)
    assert tidy(value, decimals=2) == round(value, 2)


def test_shape_is_kept():
    values = np.arange(6.0).reshape(2, 3) - 2.0
    out = tidy(values * -0.0)
    assert out.shape == (2, 3) and not np.signbit(out).any()
    np.testing.assert_array_equal(tidy(values), values)


# ---------------------------------------------------------------------------
# Checks that print what they assert
# ---------------------------------------------------------------------------


def test_a_bound_prints_the_bound_not_the_rounding(capsys):
    for residual in (2.4e-15, 1.3e-15, -7e-16):  # what two machines compute
        assert_below("largest |G - G(null space)|", [0.0, residual], 1e-12)
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["largest |G - G(null space)| < 1e-12"] * 3


@pytest.mark.parametrize("value", [3e-12, np.nan, [1e-15, np.inf]])
def test_a_bound_fails_above_it_and_on_nan(value, capsys):
    with pytest.raises(AssertionError, match=r"^residual: .* is not below 1e-12"):
        assert_below("residual", value, 1e-12)
    assert capsys.readouterr().out == ""  # nothing printed for a failed check


def test_a_bound_must_be_a_positive_number():
    for bound in (0.0, -1e-12, [1e-12, 1e-12]):
        with pytest.raises(ValueError, match="^bound: expected a positive number"):
            assert_below("residual", 0.0, bound)


def test_a_close_value_prints_the_expected_digits_and_the_tolerance(capsys):
    assert_close("speed", 40.6312, 40.6, atol=0.05, unit="m/s")
    assert_close("speed", 40.5788, 40.6, atol=0.05, unit="m/s")  # the other side
    assert_close("M", [[0.91750000001, 0.2175]], [[0.9175, 0.2175]], atol=1e-9, decimals=4)
    assert_close("share", 0.874, 0.87, rtol=0.01)
    assert_close("zero", -1e-17, 0.0, atol=1e-12)
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "speed: 40.6 m/s (± 0.05)",
        "speed: 40.6 m/s (± 0.05)",
        "M: [[0.9175, 0.2175]] (± 1e-09)",
        "share: 0.87 (± 1 %)",
        "zero: 0 (± 1e-12)",
    ]


@pytest.mark.parametrize(
    ("value", "tolerance"),
    [(40.66, {"atol": 0.05}), (np.nan, {"atol": 1.0}), (44.0, {"rtol": 0.05})],
)
def test_a_close_value_fails_outside_its_tolerance(value, tolerance):
    with pytest.raises(AssertionError, match=r"^speed: computed .* is not within"):
        assert_close("speed", value, 40.6, **tolerance)


def test_a_close_value_needs_a_tolerance():
    for tolerance in ({}, {"atol": -1.0}, {"atol": 0.0, "rtol": 0.0}):
        with pytest.raises(ValueError, match="^atol, rtol: expected non-negative tolerances"):
            assert_close("speed", 40.6, 40.6, **tolerance)
