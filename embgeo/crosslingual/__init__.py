"""Cross-lingual embedding mappings: Procrustes, the VecMap pipeline, self-learning, retrieval.

Two monolingual spaces X (source, n_s × d_s) and Z (target, n_t × d_t) and a seed dictionary D of
word pairs are mapped into one space in which translations are nearest neighbours.

- :func:`procrustes`: the orthogonal map W = UVᵀ, UΣVᵀ = SVD(X_DᵀZ_D) (Xing et al. 2015;
  Smith et al. 2017; Conneau et al. 2018 eq. 2). With d_s ≠ d_t, W is semi-orthogonal (and, for
  d_s > d_t, an alignment optimum rather than a least-squares one).
- :class:`Mapper`: the multi-step framework of Artetxe, Labaka & Agirre (AAAI 2018, Section 3:
  normalisation, whitening, orthogonal mapping, re-weighting, de-whitening, dimensionality
  reduction) and their self-learning (ACL 2017; ACL 2018 Section 3.3: stochastic dictionary
  induction, frequency-based vocabulary cutoff, CSLS, bidirectional induction), with the option
  names and defaults of VecMap's ``map_embeddings.py`` (grouped by stage: :class:`Preprocessing`,
  :class:`Initialization`, :class:`Induction`, :class:`Mapping`, :class:`Selection`) and its
  recipes (including the fully unsupervised initialisation of ACL 2018, :func:`unsupervised_dictionary`) and MUSE's refinement;
  optional POSTPROC (Vulić, Korhonen & Glavaš, RepL4NLP 2020) on the raw spaces and PCA reduction
  of the larger space.
- :func:`induce_dictionary`: forward / backward / union / mutual nearest neighbours, NN or CSLS.
- :class:`MultilingualMapper`: N ≥ 3 languages in one space, by pivot mappings or generalized
  Procrustes analysis (Kementchedjhieva et al. 2018).
- :func:`mean_cosine`: MUSE's unsupervised model-selection criterion (Conneau et al. 2018,
  Section 3.5), recorded by :class:`Mapper` in its refinement rounds;
  ``Mapper(selection=Selection("best"))`` keeps the best round by it (or by validation P@1, or the objective).
- :func:`retrieve`: translation retrieval by NN, CSLS (Conneau et al. 2018, eq. 3), inverted
  softmax (Smith et al. 2017, eq. 4), raw dot product or inverted nearest neighbour (Dinu et al.
  2015; :func:`invnn_ranks` gives its exact gold ranks), blockwise over the full target vocabulary.

BLI evaluation (P@k, MRR, coverage) and the POSTPROC grid search live in
:mod:`embgeo.evaluate.lexicon`, the dictionary readers in :mod:`embgeo.data`.

The package's modules are private (``_dictionaries``, ``_procrustes``, ``_retrieval``,
``_induction``, ``_muse``, ``_mapper``, ``_stages``,
``_selection``, ``_multilingual``); their public names are imported here. RCSLS (Joulin et
al. 2018) is the public submodule :mod:`embgeo.crosslingual.rcsls`, GeoMM (Jawanpuria et al. 2019)
:mod:`embgeo.crosslingual.geomm`; both are also mappings of :class:`Mapper`.
"""
from __future__ import annotations

from ._dictionaries import dictionary_indices, identical_dictionary, numeral_dictionary
from ._induction import induce_dictionary, unsupervised_dictionary
from ._mapper import RECIPE_HELP, RECIPES, History, Mapper
from ._multilingual import MultilingualMapper
from ._procrustes import procrustes
from ._retrieval import invnn_ranks, retrieval_factors, retrieve
from ._selection import mean_cosine
from ._stages import Induction, Initialization, Mapping, Preprocessing, Selection

__all__ = ["procrustes", "Mapper", "History", "unsupervised_dictionary", "induce_dictionary", "retrieve", "retrieval_factors", "invnn_ranks",
           "dictionary_indices", "identical_dictionary", "numeral_dictionary",
           "RECIPES", "RECIPE_HELP", "MultilingualMapper", "mean_cosine",
           "Preprocessing", "Initialization", "Induction", "Mapping", "Selection"]
