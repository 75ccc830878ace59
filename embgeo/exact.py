"""Deprecated alias of the local engine of :mod:`embgeo.neighbors` (kept for one release)."""
import warnings

from .blocking import DEFAULT_MEMORY_BUDGET, block_rows  # noqa: F401  (the public names it had)
from .linalg import inverse_norms  # noqa: F401
from .neighbors._exact import (  # noqa: F401
    check_csls_knn, csls_topk, knn_mean_similarity, prepared_topk, select_topk, self_topk, topk)
from .validation import mask_excluded  # noqa: F401

__all__ = ["topk", "knn_mean_similarity", "csls_topk", "self_topk", "select_topk", "mask_excluded", "block_rows",
           "inverse_norms", "prepared_topk", "check_csls_knn", "DEFAULT_MEMORY_BUDGET"]

warnings.warn("embgeo.exact is deprecated; import from embgeo.neighbors", DeprecationWarning, stacklevel=2)
