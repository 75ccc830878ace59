"""Compiled loops (Numba on CPU; ``numba.cuda`` kernels on GPU, :mod:`embgeo.kernels.cuda`) and nothing else.

The mathematics that calls a kernel lives with its method (``embgeo/fuzzy.py``,
``embgeo/alpha/_model.py`` ...). Kernels compile with ``cache=True`` so only the first run in a fresh
environment pays the JIT cost. Import a kernel module only where it is used, so that
``import embgeo`` does not import Numba. :mod:`embgeo.kernels.cuda` imports ``numba.cuda`` (and is
tested under Numba's CUDA simulator where there is no GPU, ``NUMBA_ENABLE_CUDASIM=1``).
"""
