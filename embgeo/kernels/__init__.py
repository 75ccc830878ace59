"""Compiled loops (Numba on CPU; ``numba.cuda`` kernels on GPU, :mod:`embgeo.kernels.cuda`) and nothing else.

The mathematics that calls a kernel lives with its method (``embgeo/fuzzy.py``,
``embgeo/alpha/_model.py`` ...). Kernels compile with ``cache=True`` so only the first run in a fresh
environment pays the JIT cost. Import a kernel module only where it is used, so that
``import embgeo`` does not import Numba. :mod:`embgeo.kernels.cuda` imports ``numba.cuda`` (and is
tested under Numba's CUDA simulator where there is no GPU, ``NUMBA_ENABLE_CUDASIM=1``).

Numba compiles a kernel once per distinct tuple of argument *types*, and an array's read-only flag
is part of its type: a kernel called with the read-only vectors of an
:class:`~embgeo.embeddings.Embeddings` and with a writeable array compiles twice, and each compile
costs seconds in a fresh environment. :func:`readonly` gives every array a kernel only reads one
type, whoever calls it.
"""
from __future__ import annotations

import numpy as np

__all__ = ["readonly"]


def readonly(a):
    """``a`` as a read-only NumPy array: a view (no copy) when it is writeable, ``a`` itself otherwise.

    For every array a Numba kernel only reads: read-only and writeable callers then share one compiled
    specialization (the flag is part of the array's Numba type). Arrays of other libraries (no such flag)
    are returned as they are. This module imports no Numba, so ``embgeo.embeddings`` uses it too.
    """
    if isinstance(a, np.ndarray) and a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a
