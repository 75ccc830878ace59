"""Geometry diagnostics of embedding spaces: hubness, isotropy, approximate-search recall, isomorphism, semantic change.

Each measure is vocabulary-wide, blocked under ``memory_budget`` and built on embgeo's engines
(the exact search of :mod:`embgeo.neighbors`, the Gram matrices of :mod:`embgeo.linalg`); each
result has ``.plot()``.

* :func:`hubness`: the k-occurrence distribution N_k, its skewness, hub occupancy, antihub rate
  and Robin Hood index (Radovanović et al. 2010; Feldbauer et al. 2018), for any retrieval rule.
* :func:`isotropy` and :func:`isotropy_table`: IsoScore and IsoScore* (Rudman et al. 2022;
  Rudman & Eickhoff 2024; :func:`isoscore` alone in one pass; :func:`isotropy_bands` by frequency
  band, :func:`isotropy_clusters` within k-means clusters), partition-function isotropy (Mu & Viswanath
  2018), mean cosine, top-D variance share and effective rank (Roy & Vetterli 2007), before and
  after each post-processing.
* :func:`recall`: recall@k of a FAISS HNSW / IVF index against the exact lists, with build and
  query time (a :class:`~embgeo.neighbors.faiss_index.RecallResult`, the type of
  :meth:`FaissIndex.recall <embgeo.neighbors.faiss_index.FaissIndex.recall>`).
* :func:`isomorphism`: how alike two spaces are (eigenvector similarity, relational similarity,
  eigenvalue divergence, condition numbers, a Gromov–Hausdorff proxy) → :class:`IsomorphismResult`.
* :func:`align_same_language`: two spaces of one language aligned on their shared words, the words
  ranked by displacement and neighbourhood change (Hamilton et al. 2016) → :class:`SemanticChangeResult`.
* :func:`similarity`: how alike two spaces of any dimensions are on their shared words (linear CKA,
  mutual k-NN, RSA), calibrated against a permutation null → :class:`SpaceSimilarityResult`.
"""
from ._change import CHANGE_MEASURES, SemanticChangeResult, align_same_language
from ._hubness import HubnessResult, hubness
from ._isomorphism import ISOMORPHISM_MEASURES, ConditionNumbers, IsomorphismResult, isomorphism
from ._isotropy import (TRANSFORMS, IsotropyResult, IsotropyTable, isoscore, isoscore_of_covariance, isotropy,
                        isotropy_bands, isotropy_clusters, isotropy_table)
from ._recall import recall
from ._similarity import SIMILARITY_MEASURES, SpaceSimilarityResult, similarity

__all__ = ["hubness", "HubnessResult", "isotropy", "isotropy_table", "IsotropyResult", "IsotropyTable",
           "isoscore", "isoscore_of_covariance", "isotropy_bands", "isotropy_clusters",
           "TRANSFORMS", "recall",
           "isomorphism", "IsomorphismResult", "ConditionNumbers", "ISOMORPHISM_MEASURES",
           "align_same_language", "SemanticChangeResult", "CHANGE_MEASURES",
           "similarity", "SpaceSimilarityResult", "SIMILARITY_MEASURES"]
