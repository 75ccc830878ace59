"""VecMap's mapping framework as a scikit-learn estimator (:class:`Mapper`), its recipes and history."""
from __future__ import annotations

import logging
import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions

from .. import backend as xb
from ..display import Display, View
from ..embeddings import Embeddings
from ..errors import NotFittedError
from ..linalg import centred_scatter, eigh_desc, gram
from ..neighbors import VALID_RETRIEVALS, topk
from ..normalize import Normalizer, normalize
from ..postprocess import (AffineTransform, apply_transform, cross_covariance_svd, dewhitening_transform,
                           similarity_order_transform, whitening_transform)
from ..progress import progress_bar
from ._dictionaries import _matrix, _maybe_read, dictionary_indices, identical_dictionary, numeral_dictionary
from ._induction import induce_dictionary, unsupervised_dictionary
from ._muse import _muse_dictionary
from ._procrustes import _shared_space, procrustes
from ._selection import SELECTION_KEYS, BestRound, mean_cosine
from .geomm import geomm
from .rcsls import rcsls

logger = logging.getLogger("embgeo.crosslingual")

#: VecMap's recommended settings (``map_embeddings.py --supervised`` etc.) as Mapper parameters.
RECIPES = {
    "supervised": dict(normalize=("unit", "center", "unit"), whiten=True, src_reweight=0.5,
                       trg_reweight=0.5, src_dewhiten="src", trg_dewhiten="trg", mapping="advanced",
                       self_learning=False),
    "semi_supervised": dict(normalize=("unit", "center", "unit"), whiten=True, src_reweight=0.5,
                            trg_reweight=0.5, src_dewhiten="src", trg_dewhiten="trg", mapping="advanced",
                            self_learning=True, vocabulary_cutoff=20000, retrieval="csls", csls_knn=10),
    "identical": dict(init="identical", normalize=("unit", "center", "unit"), whiten=True,
                      src_reweight=0.5, trg_reweight=0.5, src_dewhiten="src", trg_dewhiten="trg",
                      mapping="advanced", self_learning=True, vocabulary_cutoff=20000, retrieval="csls",
                      csls_knn=10),
    # ACL 2017 (numeral seed, orthogonal, forward induction, no stochastic dropout)
    "acl2017": dict(init="numerals", mapping="orthogonal", normalize=("unit", "center"), whiten=False,
                    src_reweight=0.0, trg_reweight=0.0, src_dewhiten=None, trg_dewhiten=None,
                    self_learning=True, direction="forward", stochastic_initial=1.0, stochastic_interval=1),
    # ACL 2018 (--unsupervised, = --acl2018): similarity-distribution initialisation + self-learning
    "unsupervised": dict(init="unsupervised", unsupervised_vocab=4000, normalize=("unit", "center", "unit"),
                         whiten=True, src_reweight=0.5, trg_reweight=0.5, src_dewhiten="src",
                         trg_dewhiten="trg", mapping="advanced", self_learning=True,
                         vocabulary_cutoff=20000, retrieval="csls", csls_knn=10),
    # AAAI 2018 (--aaai2018): supervised multi-step mapping, target re-weighting only
    "aaai2018": dict(normalize=("unit", "center"), whiten=True, src_reweight=0.0, trg_reweight=1.0,
                     src_dewhiten="src", trg_dewhiten="trg", mapping="advanced", self_learning=False),
    # MUSE's supervised refinement (Conneau et al. 2018, Section 2.3), with the defaults of its
    # supervised.py: Procrustes on the raw rows (normalize_embeddings=""), n_refinement=5 rounds of
    # [CSLS (k = 10) mutual nearest neighbours ("S2T&T2S"), searched over the whole vocabularies
    # and cut to dico_max_rank=10000 afterwards -> Procrustes]: 6 Procrustes solves, 5 induced
    # dictionaries (see Mapper's ``refinement="muse"``)
    "muse": dict(normalize=(), whiten=False, src_reweight=0.0, trg_reweight=0.0, src_dewhiten=None,
                 trg_dewhiten=None, mapping="orthogonal", self_learning=True, refinement="muse",
                 direction="mutual", retrieval="csls", csls_knn=10, vocabulary_cutoff=10000, max_iter=5),
    # EMNLP 2016: orthogonal mapping of unit-length, centred embeddings
    "orthogonal": dict(mapping="orthogonal", normalize=("unit", "center"), whiten=False, src_reweight=0.0,
                       trg_reweight=0.0, src_dewhiten=None, trg_dewhiten=None, self_learning=False),
    # Joulin et al. 2018 (fastText's alignment/align.py): unit, centre, unit, then RCSLS from Procrustes
    "rcsls": dict(mapping="rcsls", normalize=("unit", "center", "unit"), whiten=False, src_reweight=0.0,
                  trg_reweight=0.0, src_dewhiten=None, trg_dewhiten=None, self_learning=False, retrieval="csls",
                  csls_knn=10),
    # GeoMM (Jawanpuria et al., TACL 2019) as its released geomm_results.sh runs it: --normalize unit
    # center, Riemannian CG for at most 150 iterations, CSLS (k = 10) retrieval in the latent space
    "geomm": dict(mapping="geomm", normalize=("unit", "center"), whiten=False, src_reweight=0.0, trg_reweight=0.0,
                  src_dewhiten=None, trg_dewhiten=None, self_learning=False, retrieval="csls", csls_knn=10),
}

RECIPES["acl2018"] = RECIPES["unsupervised"]

#: One line per recipe, for ``--help`` of ``python -m embgeo map`` and ``bli`` (the one table of them).
RECIPE_HELP = {
    "supervised": "VecMap --supervised: unit, center, unit; whiten, orthogonal map, re-weight 0.5, de-whiten "
                  "(AAAI 2018); needs --train",
    "semi_supervised": "the supervised steps + VecMap's self-learning from the --train seed (CSLS, cutoff 20k; "
                       "ACL 2018)",
    "identical": "the semi-supervised recipe seeded by identically spelled words (no --train)",
    "acl2017": "orthogonal self-learning from a numeral seed (Artetxe et al. ACL 2017; no --train)",
    "unsupervised": "fully unsupervised: similarity-distribution seed, then stochastic self-learning "
                    "(ACL 2018; no --train)",
    "acl2018": "= unsupervised",
    "aaai2018": "VecMap --aaai2018: unit, center; whiten, orthogonal map, target re-weighting 1, de-whiten; "
                "needs --train",
    "muse": "MUSE's supervised refinement: Procrustes on the raw vectors, 5 rounds of CSLS mutual-NN "
            "dictionaries (Conneau et al. 2018); needs --train",
    "orthogonal": "Procrustes on unit, centred vectors (Artetxe et al. EMNLP 2016); needs --train",
    "rcsls": "RCSLS loss from the Procrustes start on unit, centred, unit vectors (Joulin et al. 2018); "
             "needs --train",
    "geomm": "GeoMM: rotations U, V and a metric B on unit, centred vectors, Riemannian CG (Jawanpuria et al. "
             "TACL 2019); needs --train",
}


class History(Display, list):
    """Self-learning records (one dict per iteration) of :attr:`Mapper.history_`, with a plot.

    A list: ``history[i]["objective"]`` and so on; in a notebook it renders as a table.

    Parameters
    ----------
    iterable : iterable of dict, optional
        The records: ``"iteration"``, ``"objective"`` and, when recorded, ``"mean_cosine"`` and
        ``"val_accuracy"``.
    """

    def __init__(self, iterable=(), /):
        # list's own signature, spelled out so that documentation tools see the parameter
        super().__init__(iterable)

    def _view(self) -> View:
        columns = list(dict.fromkeys(k for r in self for k in r)) or ["iteration"]
        notes = [] if self else ["no self-learning iteration was recorded (self_learning=False?)"]
        return View(f"History: {len(self)} self-learning iterations", [[r.get(c) for c in columns] for r in self],
                    columns=columns, notes=notes)

    def plot(self, ax=None):
        """Objective and, when recorded, MUSE's mean cosine and validation P@1 per iteration.

        Needs matplotlib (``pip install embgeo[plot]``).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; None: a new figure.

        Returns
        -------
        matplotlib.axes.Axes
            The axes of the objective (validation P@1 is on a twin axis).

        Raises
        ------
        ImportError
            matplotlib is not installed.
        ValueError
            No iteration was recorded (self-learning did not run).
        """
        try:
            import matplotlib.pyplot as plt
            from matplotlib.ticker import MaxNLocator
        except ImportError:
            raise ImportError("History.plot needs matplotlib: pip install 'embgeo[plot]'") from None
        if not self:
            raise ValueError("no self-learning iteration to plot: self-learning did not run (the Mapper was fitted "
                             "with self_learning=False, one mapping from the seed dictionary); fit with "
                             "self_learning=True, or a recipe that uses it, to record one row per iteration")
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        it = [r["iteration"] for r in self]
        ax.plot(it, [r["objective"] for r in self], color="C0", label="objective")
        if all("mean_cosine" in r for r in self):
            # MUSE's unsupervised criterion, on the same cosine scale as the objective
            ax.plot(it, [r["mean_cosine"] for r in self], color="C2", linestyle="--", label="mean cosine (MUSE)")
            ax.legend(loc="lower left")
        ax.set_xlabel("iteration")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # iterations are counted, never 2.5
        ax.set_ylabel("objective (mean best similarity)", color="C0")
        if "val_accuracy" in self[0]:
            ax2 = ax.twinx()
            ax2.plot(it, [100 * r["val_accuracy"] for r in self], color="C1", label="validation P@1")
            ax2.set_ylabel("validation P@1 (%)", color="C1")
        ax.set_title("self-learning")
        return ax


# ------------------------------------------------------------------------------------ Mapper
class Mapper(TransformerMixin, BaseEstimator):
    """VecMap's cross-lingual mapping framework as a scikit-learn estimator.

    Implements the steps of Artetxe, Labaka & Agirre (AAAI 2018, "Generalizing and improving
    bilingual word embedding mappings with a multi-step framework of linear transformations",
    Section 3) and the self-learning of Artetxe et al. (ACL 2017; ACL 2018, "A robust
    self-learning method for fully unsupervised cross-lingual mappings", Section 3.3). Parameter
    names and meanings follow VecMap's ``map_embeddings.py``; the defaults are its ``--supervised``
    recipe (see :data:`RECIPES` and :meth:`from_recipe` for the others).

    Parameters
    ----------
    normalize : sequence of str
        VecMap's ``--normalize`` steps (:mod:`embgeo.normalize`), default unit, center, unit.
    whiten : bool
        Step 1: whiten each side with (X_DᵀX_D)^(−1/2) computed on the dictionary rows.
    src_reweight, trg_reweight : float
        Step 3: scale the mapped dimensions by σᵢ^p, the singular values of the whitened X_DᵀZ_D.
    src_dewhiten, trg_dewhiten : {"src", "trg", None}
        Step 4: restore the variance of the source or target side.
    dim_reduction : int or None
        Step 5: keep the first k mapped dimensions.
    mapping : {"advanced", "orthogonal", "unconstrained", "rcsls"}
        The full multi-step mapping (VecMap's default), a single orthogonal (Procrustes) map of
        the source (``-c``), least squares W = (X_DᵀX_D)⁻¹X_DᵀZ_D (``-u``, Mikolov et al. 2013),
        or the relaxed CSLS loss of Joulin et al. (2018) optimised from the Procrustes solution
        (:func:`embgeo.crosslingual.rcsls.rcsls` with ``csls_knn`` and ``random_state``; recipe ``"rcsls"``).
        ``"geomm"``: GeoMM (Jawanpuria et al., TACL 2019; :func:`embgeo.crosslingual.geomm.geomm`):
        source rows map to ``x U B^½`` and target rows to ``z V B^½``, U and V orthogonal and B
        positive definite, learned on the dictionary with ``reg`` and ``random_state``; recipe
        ``"geomm"``. Sets ``B_`` (the Mahalanobis metric B of the latent space) and ``cost_history_``.
    init : {"seed", "identical", "numerals", "unsupervised"}
        Seed dictionary: the one given to :meth:`fit`, identical strings, Latin numerals, or
        the fully unsupervised initialisation of Artetxe et al. (ACL 2018, Section 3.2;
        :func:`unsupervised_dictionary`).
    unsupervised_vocab : int or None
        Words (the first rows) compared by the unsupervised initialisation; VecMap's
        ``--unsupervised_vocab`` (its recipe: 4000). Its memory is O(n²).
    self_learning : bool
        Iterate mapping and dictionary induction (ACL 2017/2018).
    vocabulary_cutoff : int or None
        Induce dictionaries among the k most frequent words (rows) only.
    direction : {"union", "forward", "backward", "mutual"}
        Dictionary induction direction ("mutual" is an embgeo addition: mutual NNs only, found
        without stochastic dropout, which would make the two directions disagree).
    retrieval : {"nn", "csls"}
        The dictionary induction criterion (:data:`embgeo.neighbors.VALID_RETRIEVALS`
        ``["induction"]``): plain nearest neighbours ("nn", the default) or CSLS (VecMap's
        ``--csls``).
    csls_knn : int
        K of CSLS (VecMap's ``--csls K``; default 10), at least 1, for ``retrieval="csls"``, the
        RCSLS loss and the mean-cosine selection criterion.
    tol : float
        Convergence: an improvement of the objective smaller than this does not count (VecMap's
        ``--threshold``).
    stochastic_initial, stochastic_multiplier, stochastic_interval : float, float, int
        Keep probability p starts at ``stochastic_initial`` and is multiplied (capped at 1) after
        ``stochastic_interval`` iterations without improvement; learning stops when that happens
        at p = 1.
    max_iter : int or None
        Safety bound on self-learning iterations (VecMap has none); with ``refinement="muse"``
        the number of induced dictionaries, MUSE's ``n_refinement`` (default 5).
    refinement : {"vecmap", "muse"}
        The self-learning loop. ``"vecmap"``: VecMap's (induction among the ``vocabulary_cutoff``
        first rows of both sides, on the normalised vectors, stochastic dropout, stop on
        convergence). ``"muse"``: MUSE's ``supervised.py`` loop (embgeo's reading of its code,
        ``src/trainer.py`` and ``src/dico_builder.py``): ``max_iter`` rounds of [map with the
        current W, unit-normalise the mapped source and the target rows (``build_dictionary``),
        CSLS terms over the *whole* vocabularies, each of the first ``vocabulary_cutoff`` rows
        takes its argmax over the *whole* other side, pairs whose other index exceeds
        ``vocabulary_cutoff`` are dropped (MUSE keeps ``max(pair) <= dico_max_rank``, so the
        other side reaches row ``vocabulary_cutoff`` itself), then S2T / T2S / S2T|T2S / S2T&T2S
        for ``direction`` forward / backward / union / mutual, as sets → Procrustes on the
        (pre-processed, by default raw) rows]; no stochastic dropout, no convergence test.
        By default embgeo keeps the *last* mapping; MUSE reloads the iteration with the best
        validation score (``save_best``/``reload_best``): ``keep="best"`` does that, by
        ``selection``.
    postproc : (float, float) or None
        POSTPROC (Vulić et al. 2020, Section 2): similarity-order transform X Q Δ^α of each side
        (:func:`embgeo.postprocess.similarity_order`) with (αs, αt); the paper's values are
        (−0.25, 0.15). Applied to the raw vectors, *before* ``normalize``, as the paper's
        pipeline (uncovec's ``post-process.py``, then VecMap) does.
    pca : int, "match" or None
        Reduce the space(s) wider than k dimensions to their top-k principal components before
        mapping; "match" reduces the wider space to the narrower one's dimension.
    memory_budget : int or None
        Bytes per block of similarity scores (memory is bounded by it, results do not depend on it).
    random_state : int or None
        Seed of the stochastic dictionary induction (VecMap ``--seed``, default 0).
    progress : bool or None
        Progress bar over self-learning iterations.
    reg : float or None
        The weight C of ``‖B‖²_F`` for ``mapping="geomm"`` (None: 50, the released code's
        ``--l2_reg 1e2``, which is 2C). The best C depends on the pair: on GloVe 50d → floret 300d
        (en-fi) C = 500 beat 50 by 1.9 (CSLS) and 3.5 (NN) P@1 on average over five dictionary splits,
        and 5 or 5000 scored below both (docs/crosslingual.md, "How sure is the ranking"); tune it on
        held-out training pairs. Other mappings ignore it.
    verbose : bool
        Log one line per self-learning iteration at INFO level on the ``embgeo.crosslingual``
        logger (as VecMap's ``--verbose``; ``logging.basicConfig(level=logging.INFO)`` shows them);
        without it the lines go at DEBUG level.
    keep : {"last", "best"}
        Which self-learning round gives the final mapping: the last (the default, VecMap's), or the
        one that scores best by ``selection``, as MUSE's ``save_best``/``reload_best`` do (a round
        replaces the kept one only when strictly better). With ``"best"`` the final dictionary is
        scored too (one more ``history_`` record, ``"final": True``, whose induced dictionary is
        not used), so every candidate mapping of the loop is compared, as MUSE scores its rounds
        0 … n_refinement. The kept round's dictionary is mapped by the full pipeline.
    selection : {"mean_cosine", "validation", "objective"}
        The criterion of ``keep="best"`` (higher is better): MUSE's unsupervised criterion
        (:func:`mean_cosine`, recorded in every round; MUSE's ``mean_cosine-csls_knn_10-S2T-10000``),
        the validation P@1 (``val_accuracy``; needs ``fit(validation=...)``; nearest neighbours by
        cosine with ``refinement="muse"``, as MUSE's evaluation, by the raw dot product of the
        normalised spaces otherwise, as VecMap's ``--validation``), or the loop's objective.
    record_mean_cosine : bool or None
        Record ``mean_cosine`` in ``history_``. None (default): in every round of MUSE's refinement,
        and of VecMap's loop when ``keep="best", selection="mean_cosine"``; True: every round of
        either loop. Its r_S pass runs over the whole vocabularies (the cost of one CSLS
        retrieval: ≈ 12 s for 200k × 30k words), several times a VecMap iteration among the
        ``vocabulary_cutoff`` words, whose hundreds of rounds it would slow down.

    Attributes
    ----------
    n_features_in_ : int
        The source dimension d_s: the number of features (columns) of ``fit``'s ``src``, as
        scikit-learn defines it.
    n_target_features_ : int
        The target dimension d_t (the columns of ``fit``'s ``tgt``).
    src_transform_, tgt_transform_ : arrays (d_s', m), (d_t', m)
        Linear maps applied after normalisation, POSTPROC and PCA.
    dictionary_ : int array (n, 2)
        The dictionary the final mapping was fitted on (row pairs).
    history_ : History (a list of dict)
        One record per self-learning iteration (``history_.plot()`` draws them): ``iteration``,
        ``objective``, ``keep_prob``, ``dictionary_size``, ``mean_cosine`` (MUSE's unsupervised criterion of the round's
        mapping over the whole vocabularies, :func:`mean_cosine`; see ``record_mean_cosine``), ``seconds``, and
        ``val_accuracy``, ``val_similarity``, ``val_coverage`` when a validation dictionary is given.
        Record i scores the mapping learned from the dictionary of round i − 1 (the seed for i = 1).
    best_iteration_ : int or None
        With ``keep="best"``: the ``iteration`` of the kept record; None otherwise.
    n_iter_ : int
    singular_values_ : array
        σ of the (whitened) dictionary cross-covariance of the last mapping.

    Notes
    -----
    All hyper-parameters but the first are keyword-only; :attr:`_parameter_constraints` declares
    their types and ranges, checked by ``fit`` (scikit-learn's ``InvalidParameterError``, a
    ValueError), together with the combinations VecMap refuses (de-whitening without whitening,
    ``dim_reduction`` outside the advanced mapping, MUSE's refinement without Procrustes).

    Different dimensionalities (e.g. English GloVe 50d → Finnish 300d): the orthogonal mapping
    becomes semi-orthogonal (see :func:`procrustes`); the advanced mapping uses the thin SVD, so
    both sides land in an r = min(d_s, d_t)-dimensional shared space (VecMap itself requires equal
    dimensions). Alternatively ``pca="match"`` first reduces the wider space by PCA.

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 20)).astype(np.float32)
    >>> Q, _ = np.linalg.qr(rng.standard_normal((20, 20)))
    >>> src = embgeo.Embeddings([f"s{i}" for i in range(500)], X)
    >>> tgt = embgeo.Embeddings([f"t{i}" for i in range(500)], (X @ Q).astype(np.float32))
    >>> m = Mapper.from_recipe("orthogonal", normalize=()).fit(src, tgt, [(f"s{i}", f"t{i}") for i in range(100)])
    >>> xs, zt = m.transform(src, tgt)
    >>> bool(np.allclose(xs.vectors, zt.vectors, atol=1e-4))
    True
    """

    _parameter_constraints: dict = {
        "normalize": [str, tuple, list, None],
        "whiten": ["boolean"],
        "src_reweight": [Interval(Real, None, None, closed="neither")],
        "trg_reweight": [Interval(Real, None, None, closed="neither")],
        "src_dewhiten": [StrOptions({"src", "trg"}), None],
        "trg_dewhiten": [StrOptions({"src", "trg"}), None],
        "dim_reduction": [Interval(Integral, 0, None, closed="left"), None],
        "mapping": [StrOptions({"advanced", "orthogonal", "unconstrained", "rcsls", "geomm"})],
        "init": [StrOptions({"seed", "identical", "numerals", "unsupervised"})],
        "unsupervised_vocab": [Interval(Integral, 1, None, closed="left"), None],
        "self_learning": ["boolean"],
        "vocabulary_cutoff": [Interval(Integral, 0, None, closed="left"), None],
        "direction": [StrOptions({"union", "forward", "backward", "mutual"})],
        "retrieval": [StrOptions(set(VALID_RETRIEVALS["induction"]))],
        "csls_knn": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, None, None, closed="neither")],
        "stochastic_initial": [Interval(Real, 0, 1, closed="right")],
        "stochastic_multiplier": [Interval(Real, None, None, closed="neither")],
        "stochastic_interval": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left"), None],
        "refinement": [StrOptions({"vecmap", "muse"})],
        "postproc": [tuple, list, np.ndarray, None],
        "pca": [Interval(Integral, 1, None, closed="left"), StrOptions({"match"}), None],
        "memory_budget": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": [Interval(Integral, 0, None, closed="left"), np.random.Generator, None],
        "progress": ["boolean", None],
        "verbose": ["boolean"],
        "reg": [Interval(Real, 0, None, closed="left"), None],
        "keep": [StrOptions({"last", "best"})],
        "selection": [StrOptions(set(SELECTION_KEYS))],
        "record_mean_cosine": ["boolean", None],
    }

    def __init__(self, normalize=("unit", "center", "unit"), *, whiten=True, src_reweight=0.5,
                 trg_reweight=0.5, src_dewhiten="src", trg_dewhiten="trg", dim_reduction=None,
                 mapping="advanced", init="seed", unsupervised_vocab=None, self_learning=False,
                 vocabulary_cutoff=None, direction="union", retrieval="nn", csls_knn=10, tol=1e-6,
                 stochastic_initial=0.1, stochastic_multiplier=2.0, stochastic_interval=50, max_iter=None,
                 postproc=None, pca=None, memory_budget=None, random_state=0, progress=None,
                 verbose=False, refinement="vecmap",
                 reg=None, keep="last", selection="mean_cosine", record_mean_cosine=None):
        self.normalize = normalize
        self.whiten = whiten
        self.src_reweight = src_reweight
        self.trg_reweight = trg_reweight
        self.src_dewhiten = src_dewhiten
        self.trg_dewhiten = trg_dewhiten
        self.dim_reduction = dim_reduction
        self.mapping = mapping
        self.init = init
        self.unsupervised_vocab = unsupervised_vocab
        self.self_learning = self_learning
        self.vocabulary_cutoff = vocabulary_cutoff
        self.direction = direction
        self.retrieval = retrieval
        self.csls_knn = csls_knn
        self.tol = tol
        self.stochastic_initial = stochastic_initial
        self.stochastic_multiplier = stochastic_multiplier
        self.stochastic_interval = stochastic_interval
        self.max_iter = max_iter
        self.postproc = postproc
        self.pca = pca
        self.memory_budget = memory_budget
        self.random_state = random_state
        self.progress = progress
        self.verbose = verbose
        self.refinement = refinement
        self.reg = reg
        self.keep = keep
        self.selection = selection
        self.record_mean_cosine = record_mean_cosine

    def __sklearn_tags__(self):
        """What a Mapper is, for scikit-learn: a transformer fitted on two spaces.

        ``fit(src, tgt)``: ``src`` is X (a 2-D array, or Embeddings) and the target space ``tgt``
        plays y's part: required, 2-D, not labels. ``transform`` keeps the dtype of its input.
        scikit-learn's checks that pass 1-D labels as y therefore cannot apply (see
        ``tests/test_sklearn_conformance.py``, which runs the rest).
        """
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True   # y (tgt) is a matrix: one column per target dimension
        tags.target_tags.single_output = False
        tags.transformer_tags.preserves_dtype = ["float32", "float64"]
        tags.input_tags.allow_nan = False
        return tags

    @classmethod
    def from_recipe(cls, name: str, **overrides) -> "Mapper":
        """A Mapper with one of the recommended settings of :data:`RECIPES`.

        VecMap's ``"supervised"``, ``"semi_supervised"``, ``"identical"``, ``"unsupervised"``
        (= ``"acl2018"``), ``"aaai2018"``, ``"acl2017"`` and ``"orthogonal"`` (``--emnlp2016``),
        MUSE's supervised refinement ``"muse"``, fastText's ``"rcsls"`` and GeoMM's ``"geomm"``
        (Jawanpuria et al. 2019: unit, center, then :func:`embgeo.crosslingual.geomm.geomm`);
        ``overrides`` replace single parameters.
        """
        try:
            params = dict(RECIPES[name])
        except KeyError:
            raise ValueError(f"unknown recipe {name!r}; choose from {', '.join(RECIPES)}") from None
        params.update(overrides)
        return cls(**params)

    # ----------------------------------------------------------------- validation
    def _validate_params(self):
        """:attr:`_parameter_constraints` (scikit-learn's check), then the combinations VecMap refuses."""
        super()._validate_params()
        if self.postproc is not None:
            pp = self.postproc
            if not (len(pp) == 2 and all(isinstance(a, (Real, np.floating)) and np.isfinite(a) for a in pp)):
                raise ValueError(f"postproc must be a pair of finite numbers (alpha_src, alpha_tgt), got {pp!r}")
        if (self.src_dewhiten is not None or self.trg_dewhiten is not None) and not self.whiten:
            # map_embeddings.py: "ERROR: De-whitening requires whitening first"
            raise ValueError("de-whitening requires whitening first: set whiten=True or "
                             "src_dewhiten=None, trg_dewhiten=None")
        if self.dim_reduction and self.mapping != "advanced":
            # VecMap applies --dim_reduction (STEP 5) in its advanced mapping only
            raise ValueError(f"dim_reduction applies to mapping='advanced' only, not {self.mapping!r}")
        if self.refinement == "muse" and self.mapping != "orthogonal":
            raise ValueError(f"refinement='muse' solves Procrustes: it needs mapping='orthogonal', "
                             f"not {self.mapping!r}")
        if self.stochastic_initial < 1 and not self.stochastic_multiplier > 1:
            # keep_prob would never reach 1, the only point where self-learning stops
            raise ValueError(f"stochastic_multiplier must be > 1 when stochastic_initial < 1 "
                             f"(got {self.stochastic_multiplier} with stochastic_initial "
                             f"{self.stochastic_initial}): the keep probability would never reach 1")

    # ----------------------------------------------------------- preprocessing
    def _preprocess(self, X, side, fit):
        """POSTPROC → normalize → PCA, fitting the statistics when ``fit``.

        POSTPROC comes first, on the raw vectors, as in Vulić et al. (2020, Section 2: "a
        transformation ... applied before they undergo the series of standard normalisation and
        centering steps"), whose pipeline runs uncovec's ``post-process.py`` on the input files
        and then VecMap, which normalises.
        """
        if self.postproc is not None:
            alpha = float(tuple(self.postproc)[0 if side == "src" else 1])
            if fit:
                T = similarity_order_transform(X, alpha)
                setattr(self, f"{side}_postproc_", T)
            X = apply_transform(X, getattr(self, f"{side}_postproc_"))
        if fit:
            nz = Normalizer(self.normalize)
            X = nz.fit_transform(X)
            setattr(self, f"{side}_normalizer_", nz)
        else:
            X = getattr(self, f"{side}_normalizer_").transform(X)
        if fit:
            k = self._pca_dim(side)
            t = None
            if k is not None and k < X.shape[1]:
                # the top-k principal axes of the centred vocabulary (embgeo.pca's definition)
                C, mu = centred_scatter(X, side)
                t = AffineTransform(eigh_desc(C)[1][:, :k], mu)
            setattr(self, f"{side}_pca_", t)
        t = getattr(self, f"{side}_pca_")
        return X if t is None else t.apply(X)

    def _pca_dim(self, side):
        if self.pca is None:
            return None
        if self.pca == "match":
            return min(self._dims)
        return int(self.pca)

    # ------------------------------------------------------------------- fitting
    def fit(self, src, tgt, seed_dictionary=None, *, validation=None) -> "Mapper":
        """Learn the mapping.

        Parameters
        ----------
        src, tgt : Embeddings (or arrays, then dictionaries are (m, 2) int row pairs)
            Rows in frequency order (the vocabulary cutoff keeps the first rows).
        seed_dictionary : word pairs, int (m, 2) array, or a path (read with
            :func:`embgeo.data.read_dictionary`); ignored for ``init`` "identical"/"numerals".
            Pairs with out-of-vocabulary words are skipped.
        validation : word pairs, array or path, optional
            Scored (NN P@1 and mean similarity of the best gold translation) at every
            self-learning iteration, as VecMap's ``--validation``; recorded in ``history_``.

        Returns
        -------
        self
        """
        self._fit(src, tgt, seed_dictionary, validation)
        del self._fitted_inputs
        return self

    def _fit(self, src, tgt, seed_dictionary=None, validation=None):
        """fit without releasing the pre-processed matrices (kept for fit_transform)."""
        self._validate_params()
        retrieval, csls_knn = self.retrieval, int(self.csls_knn)
        if tgt is None:
            raise ValueError("Mapper requires y to be passed, but the target y is None: fit(src, tgt) needs the "
                             "target space tgt")
        X0, Z0 = _matrix(src, "src"), _matrix(tgt, "tgt")
        xb.get_namespace(X0, Z0)  # both sides must share one array library
        self._dims = (X0.shape[1], Z0.shape[1])
        if self.init == "identical":
            seed_dictionary = identical_dictionary(src, tgt)
        elif self.init == "numerals":
            seed_dictionary = numeral_dictionary(src, tgt)
        elif self.init == "seed" and seed_dictionary is None:
            raise ValueError("init='seed' needs a seed_dictionary")
        if self.init != "unsupervised":
            si, ti = dictionary_indices(src, tgt, _maybe_read(seed_dictionary))
        val = None
        if validation is not None:
            validation = _maybe_read(validation)
            if not isinstance(validation, np.ndarray):
                validation = list(validation)
            vs, vt = dictionary_indices(src, tgt, validation)
            val = {}
            for a, b in zip(vs.tolist(), vt.tolist()):
                val.setdefault(a, set()).add(b)
            # coverage is relative to the distinct validation source words, OOV ones included
            self._val_total = len({p[0] for p in validation}) if isinstance(validation, list) else len(val)
        X = self._preprocess(X0, "src", fit=True)
        Z = self._preprocess(Z0, "tgt", fit=True)
        if self.init == "unsupervised":
            pairs = unsupervised_dictionary(X, Z, vocabulary=self.unsupervised_vocab, normalize=self.normalize,
                                            direction=self.direction, retrieval=retrieval, csls_knn=csls_knn,
                                            memory_budget=self.memory_budget)
            si, ti = pairs[:, 0], pairs[:, 1]
        self.history_ = History()
        self._best = BestRound(self.selection)
        self.n_iter_ = 0
        self.best_iteration_ = None
        if self.keep == "best" and self.selection == "validation" and validation is None:
            raise ValueError("keep='best' with selection='validation' needs fit(..., validation=...)")
        if self.keep == "best" and self.selection == "mean_cosine" and self.record_mean_cosine is False:
            raise ValueError("keep='best' with selection='mean_cosine' needs record_mean_cosine (not False)")
        if self.self_learning and self.refinement == "muse":
            si, ti = self._muse_refine(X, Z, si, ti, val, retrieval, csls_knn)
        elif self.self_learning:
            si, ti = self._self_learn(X, Z, si, ti, val, retrieval, csls_knn)
        if self.self_learning and self.keep == "best":
            si, ti = self._keep_best(X, Z, si, ti, val, retrieval, csls_knn)
        self.__dict__.pop("_best", None)
        with xb.single_blas_thread():
            # d × d work on the dictionary rows: BLAS threads only wait on each other
            self._final_mapping(X, Z, si, ti, csls_knn)
        self.dictionary_ = np.stack([si, ti], axis=1)
        self.n_features_in_ = int(X0.shape[1])         # scikit-learn's: the features of fit's X (source)
        self.n_target_features_ = int(Z0.shape[1])
        self._fitted_inputs = (X, Z)  # fit_transform maps them; fit drops them
        return self

    def _final_mapping(self, X, Z, si, ti, csls_knn):
        xp = xb.get_namespace(X)
        Xd, Zd = xb.take_rows(X, si), xb.take_rows(Z, ti)
        ds, dt = X.shape[1], Z.shape[1]
        f64 = xp.float64
        if self.mapping == "orthogonal":
            W = xp.astype(procrustes(Xd, Zd, check_finite=False), f64)
            self.src_transform_ = W
            self.tgt_transform_ = xp.eye(dt, dtype=f64)
            self.singular_values_ = xp.linalg.svdvals(gram(Xd, Zd))
        elif self.mapping == "rcsls":
            W = rcsls(xb.to_numpy(X), xb.to_numpy(Z), np.asarray(xb.to_numpy(si)),
                      np.asarray(xb.to_numpy(ti)), csls_knn=csls_knn, random_state=self.random_state,
                      progress=self.progress)
            self.src_transform_ = xp.asarray(np.asarray(W, dtype=np.float64))
            self.tgt_transform_ = xp.eye(dt, dtype=f64)
            self.singular_values_ = xp.linalg.svdvals(gram(Xd, Zd))
        elif self.mapping == "geomm":
            res = geomm(X, Z, si, ti, C=50.0 if self.reg is None else float(self.reg),
                        random_state=self.random_state, progress=self.progress)
            Tx, Tz = res.transforms()
            self.src_transform_, self.tgt_transform_ = xp.asarray(Tx), xp.asarray(Tz)
            self.B_ = xp.asarray(res.B)
            self.cost_history_ = res.cost_history
            self.singular_values_ = xp.linalg.svdvals(gram(Xd, Zd))
        elif self.mapping == "unconstrained":
            G = gram(Xd)
            W = xp.linalg.solve(G, gram(Xd, Zd))
            self.src_transform_ = W
            self.tgt_transform_ = xp.eye(dt, dtype=f64)
            self.singular_values_ = xp.linalg.svdvals(gram(Xd, Zd))
        else:
            # AAAI 2018 Section 3, composed from embgeo.postprocess: STEP 1 whitening on the
            # dictionary rows, STEP 2 orthogonal mapping (SVD of the whitened X_DᵀZ_D), STEP 3
            # re-weighting by σ^p, STEP 4 de-whitening Rᵀ(X_DᵀX_D)^(1/2)R
            if self.whiten:
                try:
                    wx1, wz1 = whitening_transform(Xd), whitening_transform(Zd)
                except ValueError as exc:
                    raise ValueError(
                        f"cannot whiten: the dictionary's vectors do not span the space ({exc}); the "
                        f"dictionary has {len(set(np.asarray(si).tolist()))} distinct source and "
                        f"{len(set(np.asarray(ti).tolist()))} distinct target words for {ds}/{dt} "
                        "dimensions: use a larger dictionary, whiten=False, or pca") from None
            else:
                wx1, wz1 = xp.eye(ds, dtype=f64), xp.eye(dt, dtype=f64)
            U, s, Vt = cross_covariance_svd(apply_transform(Xd, wx1), apply_transform(Zd, wz1))
            wx2, wz2 = U, xp.matrix_transpose(Vt)
            Tx = wx1 @ wx2 * xp.reshape(s ** float(self.src_reweight), (1, -1))
            Tz = wz1 @ wz2 * xp.reshape(s ** float(self.trg_reweight), (1, -1))
            # de-whitening: Rᵀ(X_DᵀX_D)^(1/2)R with R = wx2 or wz2 (thin when d_s ≠ d_t);
            # _validate_params refuses it without whitening, as VecMap does
            rot = {"src": (Xd, wx2), "trg": (Zd, wz2)}
            if self.src_dewhiten is not None:
                A, R = rot[self.src_dewhiten]
                Tx = Tx @ (xp.matrix_transpose(R) @ dewhitening_transform(A) @ R)
            if self.trg_dewhiten is not None:
                A, R = rot[self.trg_dewhiten]
                Tz = Tz @ (xp.matrix_transpose(R) @ dewhitening_transform(A) @ R)
            self.src_transform_, self.tgt_transform_ = Tx, Tz
            self.singular_values_ = s
        if self.dim_reduction:
            k = int(self.dim_reduction)
            self.src_transform_ = self.src_transform_[:, :k]
            self.tgt_transform_ = self.tgt_transform_[:, :k]

    def _self_learn(self, X, Z, si, ti, val, retrieval, csls_knn):
        """VecMap's self-learning loop (ACL 2018, Algorithm/Section 3.3) with orthogonal mappings."""
        ns = X.shape[0] if not self.vocabulary_cutoff else min(X.shape[0], int(self.vocabulary_cutoff))
        nt = Z.shape[0] if not self.vocabulary_cutoff else min(Z.shape[0], int(self.vocabulary_cutoff))
        Xc, Zc = X[:ns, ...], Z[:nt, ...]
        rng = np.random.default_rng(self.random_state)
        best_objective = -100.0
        it, last_improvement = 1, 0
        keep_prob = float(self.stochastic_initial)
        end = False
        with progress_bar(total=self.max_iter, desc="self-learning", progress=self.progress, unit="iter") as bar:
            while True:
                t0 = time.perf_counter()
                if it - last_improvement > self.stochastic_interval:
                    if keep_prob >= 1.0:
                        end = True
                    keep_prob = min(1.0, self.stochastic_multiplier * keep_prob)
                    last_improvement = it
                if end or (self.max_iter is not None and it > int(self.max_iter)):
                    break
                with xb.single_blas_thread():
                    # a 50 × 50 problem: BLAS threads only wait on each other (0.7 s against
                    # 0.01 s for 40k dictionary rows on a loaded 2-core machine)
                    W = procrustes(xb.take_rows(X, si), xb.take_rows(Z, ti), check_finite=False)
                    A, B = _shared_space(Xc, Zc, W)
                pairs, objective = induce_dictionary(
                    A, B, direction=self.direction, retrieval=retrieval,
                    csls_knn=csls_knn, keep_prob=keep_prob,
                    random_state=rng, memory_budget=self.memory_budget, return_objective=True)
                self._scored = (si, ti)  # the dictionary whose mapping W this round scores
                si, ti = pairs[:, 0], pairs[:, 1]
                if objective - best_objective >= self.tol:
                    last_improvement = it
                    best_objective = objective
                self._record(it, objective, keep_prob, pairs, X, Z, W, val, t0)
                bar.update(1)
                bar.set_postfix(objective=f"{objective:.4f}", p=keep_prob)
                it += 1
        self.n_iter_ = len(self.history_)
        return si, ti

    def _record(self, it, objective, keep_prob, pairs, X, Z, W, val, t0) -> None:
        """One row of ``history_`` (logged at INFO level with ``verbose``, DEBUG otherwise)."""
        rec = {"iteration": it, "objective": objective, "keep_prob": keep_prob,
               "dictionary_size": int(pairs.shape[0])}
        if val is not None:
            rec.update(self._score_validation(X, Z, W, val))
        if self._records_mean_cosine():
            A, B = _shared_space(X, Z, W)
            rec["mean_cosine"] = mean_cosine(A, B, csls_knn=int(self.csls_knn),
                                             memory_budget=self.memory_budget)
        rec["seconds"] = time.perf_counter() - t0
        self.history_.append(rec)
        scored = self.__dict__.pop("_scored", None)
        if self.keep == "best":
            self._best.offer(rec, *scored)
        logger.log(logging.INFO if self.verbose else logging.DEBUG, "%s", _format_record(rec))

    def _muse_refine(self, X, Z, si, ti, val, retrieval, csls_knn):
        """MUSE's refinement loop (``supervised.py``); the final Procrustes is :meth:`_final_mapping`."""
        n_rounds = 5 if self.max_iter is None else int(self.max_iter)
        with progress_bar(total=n_rounds, desc="refinement", progress=self.progress, unit="iter") as bar:
            for it in range(1, n_rounds + 1):
                t0 = time.perf_counter()
                W = procrustes(xb.take_rows(X, si), xb.take_rows(Z, ti), check_finite=False)
                A, B = _shared_space(X, Z, W)
                # Trainer.build_dictionary: cosines of the mapped source and the target rows
                A, B = normalize(A, "unit"), normalize(B, "unit")
                pairs, objective = _muse_dictionary(A, B, self.direction, retrieval, csls_knn,
                                                    self.vocabulary_cutoff, self.memory_budget)
                self._scored = (si, ti)  # the dictionary whose mapping W this round scores
                si, ti = pairs[:, 0], pairs[:, 1]
                self._record(it, objective, 1.0, pairs, X, Z, W, val, t0)
                bar.update(1)
        self.n_iter_ = len(self.history_)
        return si, ti

    def _records_mean_cosine(self) -> bool:
        if self.record_mean_cosine is not None:
            return bool(self.record_mean_cosine)
        return self.refinement == "muse" or (self.keep == "best" and self.selection == "mean_cosine")

    def _keep_best(self, X, Z, si, ti, val, retrieval, csls_knn):
        """``keep="best"``: score the final dictionary's mapping too, then return the best round's dictionary.

        The extra round is the loop's body once more (its induced dictionary only gives the
        objective), recorded with ``"final": True``; ``n_iter_`` still counts the loop's rounds.
        """
        t0 = time.perf_counter()
        with xb.single_blas_thread():
            W = procrustes(xb.take_rows(X, si), xb.take_rows(Z, ti), check_finite=False)
        if self.refinement == "muse":
            A, B = _shared_space(X, Z, W)
            A, B = normalize(A, "unit"), normalize(B, "unit")
            pairs, objective = _muse_dictionary(A, B, self.direction, retrieval, csls_knn,
                                                self.vocabulary_cutoff, self.memory_budget)
        else:
            cut = [None if not self.vocabulary_cutoff else int(self.vocabulary_cutoff)] * 2
            A, B = _shared_space(X[:cut[0], ...], Z[:cut[1], ...], W)
            # deterministic (keep_prob 1): the loop ends at p = 1 unless max_iter stopped it
            pairs, objective = induce_dictionary(A, B, direction=self.direction, retrieval=retrieval,
                                                 csls_knn=csls_knn, memory_budget=self.memory_budget,
                                                 return_objective=True)
        self._scored = (si, ti)
        self._record(len(self.history_) + 1, objective, 1.0, pairs, X, Z, W, val, t0)
        self.history_[-1]["final"] = True
        best = self.__dict__.pop("_best")
        self.best_iteration_ = best.iteration
        return best.dictionary

    def _score_validation(self, X, Z, W, val):
        """NN accuracy and mean best-gold similarity of the validation dictionary under mapping W.

        VecMap's ``--validation`` scores raw dot products of its normalised, mapped spaces; MUSE's
        evaluation (``get_word_translation_accuracy``) unit-normalises both sides first, and its
        recipe keeps the raw vectors, whose norms would otherwise rank the targets.
        """
        cosine = self.refinement == "muse"
        src_rows = np.fromiter(val.keys(), dtype=np.int64)
        Q, Zs = _shared_space(xb.take_rows(X, src_rows), Z, W)
        scores, idx = topk(Q, Zs, 1, metric="cosine" if cosine else "dot", memory_budget=self.memory_budget,
                           progress=False)
        nn = xb.to_numpy(idx)[:, 0]
        acc = float(np.mean([nn[i] in val[s] for i, s in enumerate(src_rows.tolist())]))
        sims = []
        Qn = xb.to_numpy(Q).astype(np.float64)
        if cosine:
            Qn = normalize(Qn, "unit")
        for i, s in enumerate(src_rows.tolist()):
            G = xb.to_numpy(xb.take_rows(Zs, np.fromiter(val[s], dtype=np.int64))).astype(np.float64)
            if cosine:
                G = normalize(G, "unit")
            sims.append(float(np.max(G @ Qn[i])))
        cov = len(val) / max(1, getattr(self, "_val_total", len(val)))
        return {"val_accuracy": acc, "val_similarity": float(np.mean(sims)), "val_coverage": cov}

    # ---------------------------------------------------------------- transform
    def _check_fitted(self):
        if not hasattr(self, "src_transform_"):
            raise NotFittedError("this Mapper is not fitted yet; call fit(src, tgt, seed_dictionary) first")

    def _apply(self, e, side):
        # fit refuses NaN/inf (its statistics would be NaN); so must transform, whose rows would
        # silently become NaN (Embeddings made with check_finite=False are not checked by _matrix)
        vec = xb.check_matrix(_matrix(e, side), side)
        dim = self.n_features_in_ if side == "src" else self.n_target_features_
        if vec.shape[1] != dim:
            # scikit-learn's wording in parentheses (its checks look for it)
            raise ValueError(f"{side} has dimension {vec.shape[1]} but the mapper was fitted on {dim} "
                             f"(X has {vec.shape[1]} features, but Mapper is expecting {dim} features as input)")
        return self._map(e, self._preprocess(vec, side, fit=False), side)

    def _map(self, e, X, side):
        xp = xb.get_namespace(X)
        T = getattr(self, f"{side}_transform_")
        Y = xp.astype(X @ xp.astype(xb.asarray(T, like=X), X.dtype), X.dtype)
        return e.with_vectors(Y, check_finite=False) if isinstance(e, Embeddings) else Y

    def transform(self, src, tgt=None):
        """Map source vectors (and, if given, target vectors) into the shared space.

        Parameters
        ----------
        src : Embeddings or array (n, d_s)
        tgt : Embeddings or array (n, d_t), optional

        Returns
        -------
        The mapped source (same type as given), or a tuple (source, target) when ``tgt`` is given
        (scikit-learn's CCA convention). Normalisation reuses the statistics fitted on the
        training vocabularies.
        """
        self._check_fitted()
        out = self._apply(src, "src")
        if tgt is None:
            return out
        return out, self._apply(tgt, "tgt")

    def fit_transform(self, src, tgt, seed_dictionary=None, *, validation=None):
        """``fit(...)`` then ``transform(src, tgt)``, reusing the pre-processed training matrices."""
        self._fit(src, tgt, seed_dictionary, validation)
        X, Z = self.__dict__.pop("_fitted_inputs")
        return self._map(src, X, "src"), self._map(tgt, Z, "tgt")


def _format_record(rec):
    s = (f"iteration {rec['iteration']:4d}  objective {rec['objective']:.5f}  p {rec['keep_prob']:.2f}  "
         f"dictionary {rec['dictionary_size']}")
    if "val_accuracy" in rec:
        s += f"  val P@1 {100 * rec['val_accuracy']:.2f}%  val sim {rec['val_similarity']:.4f}"
    return s
