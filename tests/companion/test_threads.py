"""Importing geomotion leaves one BLAS thread, unless the environment chose a number."""

import json
import os
import subprocess
import sys

import pytest

from geomotion import _threads

REPORT = (
    "import json, threadpoolctl, geomotion; "
    "print(json.dumps([i['num_threads'] for i in threadpoolctl.threadpool_info() "
    "if i['user_api'] == 'blas']))"
)


def blas_threads_after_import(**chosen):
    """BLAS thread counts in a fresh interpreter that imported geomotion."""
    env = {k: v for k, v in os.environ.items() if k not in _threads.THREAD_VARIABLES}
    env.update(chosen)
    result = subprocess.run(
        [sys.executable, "-c", REPORT], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def test_import_limits_blas_to_one_thread():
    counts = blas_threads_after_import()
    assert counts, "no BLAS library found: numpy and scipy load OpenBLAS"
    assert counts == [1] * len(counts)


@pytest.mark.parametrize("variable", ["OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"])
def test_a_thread_count_in_the_environment_is_kept(variable):
    counts = blas_threads_after_import(**{variable: "2"})
    assert counts == [2] * len(counts)
