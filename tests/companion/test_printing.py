"""tidy: values for printing lose rounding dust and the sign of zero, nothing else."""

import numpy as np
import pytest

from geomotion.printing import tidy


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
