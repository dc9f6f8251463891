"""One BLAS thread for geomotion's small matrices, unless the user chose a number.

geomotion's arrays are a few rows wide: a step of a constrained simulation solves a
2 x 2 or 7 x 7 system, a hundred times a second of motion.  OpenBLAS splits even these
over all cores, and on a small shared machine its threads spend the time waiting for
one another.  Measured on a loaded 2-core machine: the chapter-2 Baumgarte run (200 steps
of a 2 x 2 constrained system) took 3.38 s with OpenBLAS's default two threads and
0.20-0.33 s with one; the whole chapter-2 notebook 37-41 s instead of 23-27 s.
"""

import os

import threadpoolctl

#: Environment variables by which a user or a Makefile sets the BLAS thread count.
THREAD_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "GOTO_NUM_THREADS",
)


def limit_blas_threads():
    """Limit the BLAS libraries loaded so far to one thread, unless the environment sets one.

    Applies to the whole process (``threadpoolctl.threadpool_limits``): BLAS libraries
    loaded later keep their own setting.  Nothing is changed when any variable of
    :data:`THREAD_VARIABLES` is set to a non-empty value.

    Returns
    -------
    threadpoolctl.threadpool_limits or None
        The limiter (its ``restore_original_limits()`` undoes it), or None when the
        environment chose.
    """
    if any(os.environ.get(name) for name in THREAD_VARIABLES):
        return None
    return threadpoolctl.threadpool_limits(limits=1, user_api="blas")
