"""One BLAS thread for the small fits (a ladder's ratings, SFEM's polish).

numpy and scipy ship OpenBLAS, which starts a thread per core and hands it even the tiny vector
operations of L-BFGS-B and SLSQP on a handful of parameters. On a busy machine those threads wait
for each other: a ladder's 100 bootstrap fits of five agents took 10.7 s with two threads and
0.55 s with one (2 cores, loaded). The result is the same or better: one thread also sums in one
order, so the fit is reproducible bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Limit every loaded BLAS library to one thread while the block (or, used as a decorator,
    the function) runs."""
    from threadpoolctl import threadpool_limits  # lazy: only the fits need it

    with threadpool_limits(limits=1, user_api="blas"):
        yield
