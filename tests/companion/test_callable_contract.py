"""The one contract for functions a user passes in (geomotion._numerics.evaluate).

Independent of any module that uses it: a function is called at single points, then on the
whole stack, and the stacked result is used only when it matches the single-point calls;
otherwise the function is called once per point, and what it raises reaches the caller.
"""

import numpy as np
import pytest

from geomotion import _numerics, control

STACK = np.array([[0.1, 0.2], [0.3, -0.4], [1.5, 0.6], [-0.7, 0.8]])


def rotate(x):
    """A field written for one point: (x1, -x0)."""
    return np.array([x[1], -x[0]])


def test_a_field_written_for_one_point_is_evaluated_per_point():
    values = _numerics.evaluate(rotate, (STACK,), (2,), "X")
    np.testing.assert_array_equal(values, np.stack([STACK[:, 1], -STACK[:, 0]], axis=-1))
    # The example: a bracket of two such fields, at a stack of states.
    bracket = control.lie_bracket(rotate, lambda x: np.array([x[0], 0.0 * x[1]]), STACK)
    expected = np.stack(
        [control.lie_bracket(rotate, lambda x: np.array([x[0], 0.0]), x) for x in STACK]
    )
    np.testing.assert_allclose(bracket, expected, rtol=0, atol=1e-9)


def test_a_stacked_result_right_only_at_the_last_point_is_not_trusted():
    def right_only_at_the_last_point(x):
        x = np.asarray(x)
        if x.ndim == 1:
            return 2.0 * x
        wrong = 2.0 * x
        wrong[:-1] = 0.0
        return wrong

    values = _numerics.evaluate(right_only_at_the_last_point, (STACK,), (2,), "f")
    np.testing.assert_array_equal(values, 2.0 * STACK)


def test_every_returned_shape_is_checked_and_user_errors_pass_unchanged():
    with pytest.raises(ValueError, match=r"^f: expected a result of shape \(2,\) at one point"):
        _numerics.evaluate(lambda x: np.zeros(3), (STACK,), (2,), "f")

    class Mine(Exception):
        pass

    def fails_at_a_point(x):
        if x.ndim == 1 and x[0] > 1.0:
            raise Mine("the user's own error")
        if x.ndim > 1:
            raise TypeError("no stacks")
        return x

    with pytest.raises(Mine, match="the user's own error"):
        _numerics.evaluate(fails_at_a_point, (STACK,), (2,), "f")
    with pytest.raises(TypeError, match="^X: expected a callable"):
        control.lie_bracket(3.0, rotate, STACK[0])
