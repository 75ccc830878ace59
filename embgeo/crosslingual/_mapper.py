"""VecMap's mapping framework as a scikit-learn estimator (:class:`Mapper`), its recipes and history."""
from __future__ import annotations

import logging
import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils._param_validation import Interval, StrOptions

from .. import backend as xb
from ..display import Display, View, pyplot
from ..embeddings import Embeddings
from ..errors import NotFittedError
from ..linalg import centred_scatter, eigh_desc, gram
from ..neighbors import REDUCTION_METRICS, topk
from ..normalize import Normalizer, normalize
from ..postprocess import (AffineTransform, apply_transform, cross_covariance_svd, dewhitening_transform,
                           similarity_order_transform, whitening_transform)
from ..progress import progress_bar
from ._dictionaries import _matrix, _maybe_read, dictionary_indices, identical_dictionary, numeral_dictionary
from ._induction import induce_dictionary, unsupervised_dictionary
from ._muse import _muse_dictionary
from ._procrustes import _shared_space, procrustes
from ._selection import BestRound, mean_cosine
from ._stages import STAGES, Induction, Initialization, Mapping, Preprocessing
from .geomm import geomm
from .rcsls import rcsls

logger = logging.getLogger("embgeo.crosslingual")

#: VecMap's recommended settings (``map_embeddings.py --supervised`` etc.) as Mapper parameters; a stage
#: left out keeps its defaults (which are VecMap's ``--supervised``). :meth:`Mapper.from_recipe` clones them.
RECIPES: dict[str, dict] = {
    "supervised": {},   # the defaults of every stage: unit, center, unit; whiten, re-weight 0.5, de-whiten
    "semi_supervised": dict(self_learning=True, induction=Induction(retrieval="csls", vocabulary_cutoff=20000)),
    "identical": dict(initialization=Initialization("identical"), self_learning=True,
                      induction=Induction(retrieval="csls", vocabulary_cutoff=20000)),
    # ACL 2017 (numeral seed, orthogonal, forward induction, no stochastic dropout)
    "acl2017": dict(preprocessing=Preprocessing(("unit", "center")), initialization=Initialization("numerals"),
                    mapping=Mapping("orthogonal"), self_learning=True,
                    induction=Induction(direction="forward", stochastic_initial=1.0, stochastic_interval=1)),
    # ACL 2018 (--unsupervised, = --acl2018): similarity-distribution initialisation + self-learning
    "unsupervised": dict(initialization=Initialization("unsupervised", vocabulary=4000), self_learning=True,
                         induction=Induction(retrieval="csls", vocabulary_cutoff=20000)),
    # AAAI 2018 (--aaai2018): supervised multi-step mapping, target re-weighting only
    "aaai2018": dict(preprocessing=Preprocessing(("unit", "center")),
                     mapping=Mapping(src_reweight=0.0, trg_reweight=1.0)),
    # MUSE's supervised refinement (Conneau et al. 2018, Section 2.3), with the defaults of its
    # supervised.py: Procrustes on the raw rows (normalize_embeddings=""), n_refinement=5 rounds of
    # [CSLS (k = 10) mutual nearest neighbours ("S2T&T2S"), searched over the whole vocabularies
    # and cut to dico_max_rank=10000 afterwards -> Procrustes]: 6 Procrustes solves, 5 induced
    # dictionaries (see Mapper's ``refinement="muse"``)
    "muse": dict(preprocessing=Preprocessing(()), mapping=Mapping("orthogonal"), self_learning=True,
                 refinement="muse", max_iter=5,
                 induction=Induction(retrieval="csls", direction="mutual", vocabulary_cutoff=10000)),
    # EMNLP 2016: orthogonal mapping of unit-length, centred embeddings
    "orthogonal": dict(preprocessing=Preprocessing(("unit", "center")), mapping=Mapping("orthogonal")),
    # Joulin et al. 2018 (fastText's alignment/align.py): unit, centre, unit, then RCSLS from Procrustes
    "rcsls": dict(mapping=Mapping("rcsls"), induction=Induction(retrieval="csls")),
    # GeoMM (Jawanpuria et al., TACL 2019) as its released geomm_results.sh runs it: --normalize unit
    # center, Riemannian CG for at most 150 iterations, CSLS (k = 10) retrieval in the latent space
    "geomm": dict(preprocessing=Preprocessing(("unit", "center")), mapping=Mapping("geomm"),
                  induction=Induction(retrieval="csls")),
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

    Parameters
    ----------
    iterable : iterable of dict, optional
        The records, as :class:`list` takes them (``Mapper.fit`` appends one per iteration).
    """

    def __init__(self, iterable=()):
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
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib.axes.Axes
            The axes of the objective (the validation P@1, when recorded, on a twin axis).

        Raises
        ------
        ValueError
            No self-learning iteration was recorded (the Mapper was fitted without self-learning).
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("History.plot")
        from matplotlib.ticker import MaxNLocator
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
    self-learning method for fully unsupervised cross-lingual mappings", Section 3.3). The
    hyper-parameters are grouped by stage (:class:`Preprocessing`, :class:`Initialization`,
    :class:`Induction`, :class:`Mapping`, :class:`Selection`), whose parameter names and meanings
    follow VecMap's ``map_embeddings.py``; the defaults are its ``--supervised`` recipe (see
    :data:`RECIPES` and :meth:`from_recipe` for the others).

    Parameters
    ----------
    preprocessing : Preprocessing or None
        POSTPROC, the normalisation steps and PCA applied to each space (None: ``Preprocessing()``,
        unit, center, unit).
    initialization : Initialization or None
        Where the seed dictionary comes from (None: ``Initialization()``, the one given to :meth:`fit`).
    induction : Induction or None
        How self-learning induces dictionaries: retrieval, CSLS's k, direction, vocabulary cutoff,
        stochastic dropout (None: ``Induction()``, VecMap's defaults).
    mapping : Mapping or None
        The map learned from a dictionary: the multi-step framework with its whitening,
        re-weighting, de-whitening and dimensionality reduction, Procrustes, least squares, RCSLS
        or GeoMM (None: ``Mapping()``, the advanced mapping of VecMap's ``--supervised``).
    selection : Selection or None
        Which self-learning round is kept and what is recorded (None: ``Selection()``, the last round).
    self_learning : bool
        Iterate mapping and dictionary induction (ACL 2017/2018).
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
        for :class:`Induction`'s ``direction`` forward / backward / union / mutual, as sets →
        Procrustes on the (pre-processed, by default raw) rows]; no stochastic dropout, no
        convergence test; needs ``Mapping("orthogonal")``. By default embgeo keeps the *last*
        mapping; MUSE reloads the iteration with the best validation score
        (``save_best``/``reload_best``): ``Selection("best")`` does that.
    max_iter : int or None
        Safety bound on self-learning iterations (VecMap has none); with ``refinement="muse"``
        the number of induced dictionaries, MUSE's ``n_refinement`` (None: 5).
    tol : float
        Convergence: an improvement of the objective smaller than this does not count (VecMap's
        ``--threshold``).
    random_state : int, numpy.random.Generator or None
        Seed of the stochastic dictionary induction (VecMap ``--seed``, default 0), of RCSLS and GeoMM.
    memory_budget : int or None
        Bytes per block of similarity scores (memory is bounded by it, results do not depend on it).
    progress : bool or None
        Progress bar over self-learning iterations (None: only when they take long).
    verbose : bool
        Log one line per self-learning iteration at INFO level on the ``embgeo.crosslingual``
        logger (as VecMap's ``--verbose``; ``logging.basicConfig(level=logging.INFO)`` shows them);
        without it the lines go at DEBUG level.

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
        mapping over the whole vocabularies, :func:`mean_cosine`; see :class:`Selection`'s
        ``record_mean_cosine``), ``seconds``, and
        ``val_accuracy``, ``val_similarity``, ``val_coverage`` when a validation dictionary is given.
        Record i scores the mapping learned from the dictionary of round i − 1 (the seed for i = 1).
    best_iteration_ : int or None
        With ``Selection("best")``: the ``iteration`` of the kept record; None otherwise.
    n_iter_ : int
        Self-learning iterations run (0 without self-learning).
    singular_values_ : array
        σ of the (whitened) dictionary cross-covariance of the last mapping.

    See Also
    --------
    procrustes : The orthogonal map alone.
    MultilingualMapper : N ≥ 3 languages in one space.
    embgeo.evaluate.lexicon.bli : Scoring the mapped spaces.

    Notes
    -----
    All hyper-parameters but the first are keyword-only. ``fit`` checks them (scikit-learn's
    convention): the types and ranges each stage declares (scikit-learn's ``InvalidParameterError``,
    a ValueError naming the stage and the parameter), then the combinations VecMap refuses
    (de-whitening without whitening, ``dim_reduction`` outside the advanced mapping, MUSE's
    refinement without Procrustes). The stages are scikit-learn parameter containers:
    ``get_params(deep=True)`` lists ``induction__csls_knn`` and the like (a stage left None
    reports its defaults), ``set_params(induction__csls_knn=5)`` sets one value, and
    :func:`sklearn.base.clone` copies the stages with the Mapper.

    Different dimensionalities (e.g. English GloVe 50d → Finnish 300d): the orthogonal mapping
    becomes semi-orthogonal (see :func:`procrustes`); the advanced mapping uses the thin SVD, so
    both sides land in an r = min(d_s, d_t)-dimensional shared space (VecMap itself requires equal
    dimensions). Alternatively ``Preprocessing(pca="match")`` first reduces the wider space by PCA.

    References
    ----------
    .. [1] Artetxe, Labaka & Agirre (2018). Generalizing and improving bilingual word embedding
       mappings with a multi-step framework of linear transformations. AAAI.
       https://doi.org/10.1609/aaai.v32i1.11992
    .. [2] Artetxe, Labaka & Agirre (2018). A robust self-learning method for fully unsupervised
       cross-lingual mappings of word embeddings. ACL. https://doi.org/10.18653/v1/P18-1073

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 20)).astype(np.float32)
    >>> Q, _ = np.linalg.qr(rng.standard_normal((20, 20)))
    >>> src = embgeo.Embeddings([f"s{i}" for i in range(500)], X)
    >>> tgt = embgeo.Embeddings([f"t{i}" for i in range(500)], (X @ Q).astype(np.float32))
    >>> m = Mapper.from_recipe("orthogonal", preprocessing__normalize=())
    >>> m
    Mapper(mapping=Mapping(kind='orthogonal'),
           preprocessing=Preprocessing(normalize=()))
    >>> m = m.fit(src, tgt, [(f"s{i}", f"t{i}") for i in range(100)])
    >>> xs, zt = m.transform(src, tgt)
    >>> bool(np.allclose(xs.vectors, zt.vectors, atol=1e-4))
    True
    """

    _parameter_constraints: dict = {
        **{name: [cls, None] for name, cls in STAGES.items()},
        "self_learning": ["boolean"],
        "refinement": [StrOptions({"vecmap", "muse"})],
        "max_iter": [Interval(Integral, 0, None, closed="left"), None],
        "tol": [Interval(Real, None, None, closed="neither")],
        "random_state": [Interval(Integral, 0, None, closed="left"), np.random.Generator, None],
        "memory_budget": [Interval(Integral, 1, None, closed="left"), None],
        "progress": ["boolean", None],
        "verbose": ["boolean"],
    }

    def __init__(self, preprocessing=None, *, initialization=None, induction=None, mapping=None, selection=None,
                 self_learning=False, refinement="vecmap", max_iter=None, tol=1e-6, random_state=0,
                 memory_budget=None, progress=None, verbose=False):
        # the stages default to None, not to instances: scikit-learn wants immutable defaults, and a
        # shared default stage would be changed for every Mapper by one's set_params
        self.preprocessing = preprocessing
        self.initialization = initialization
        self.induction = induction
        self.mapping = mapping
        self.selection = selection
        self.self_learning = self_learning
        self.refinement = refinement
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.memory_budget = memory_budget
        self.progress = progress
        self.verbose = verbose

    def __sklearn_tags__(self):
        """What a Mapper is, for scikit-learn: a transformer fitted on two spaces.

        ``fit(src, tgt)``: ``src`` is X (a 2-D array, or Embeddings) and the target space ``tgt``
        plays y's part: required, 2-D, not labels. ``transform`` keeps the dtype of its input.
        scikit-learn's checks that pass 1-D labels as y therefore cannot apply (see
        ``tests/test_sklearn_conformance.py``, which runs the rest).

        Returns
        -------
        sklearn.utils.Tags
            The estimator's tags.
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
        (Jawanpuria et al. 2019: unit, center, then :func:`embgeo.crosslingual.geomm.geomm`).

        Parameters
        ----------
        name : str
            A key of :data:`RECIPES`.
        **overrides
            Mapper parameters that replace the recipe's: a whole stage (``induction=Induction(...)``),
            one value of a stage (``induction__csls_knn=5``, set on the recipe's stage), or a
            top-level parameter (``max_iter=3``), as :meth:`set_params` takes them.

        Returns
        -------
        Mapper
            Unfitted; its stages are copies, so changing them leaves :data:`RECIPES` as it is.

        Raises
        ------
        ValueError
            An unknown recipe, or an override that names no parameter.

        Examples
        --------
        >>> Mapper.from_recipe("semi_supervised", induction__vocabulary_cutoff=5000, max_iter=10)
        Mapper(induction=Induction(retrieval='csls', vocabulary_cutoff=5000),
               max_iter=10, self_learning=True)
        """
        try:
            params = RECIPES[name]
        except KeyError:
            raise ValueError(f"unknown recipe {name!r}; choose from {', '.join(RECIPES)}") from None
        return cls(**{k: clone(v) if k in STAGES else v for k, v in params.items()}).set_params(**overrides)

    # ----------------------------------------------------------------- stages
    def _stage(self, name: str):
        """The stage ``name`` as given, or the defaults of its class when it is None."""
        value = getattr(self, name)
        return STAGES[name]() if value is None else value

    def get_params(self, deep=True):
        """The hyper-parameters, and with ``deep`` each stage's as ``stage__param``.

        Parameters
        ----------
        deep : bool
            Also list the values inside the stages (``induction__csls_knn``, ...); a stage left
            None reports its class's defaults.

        Returns
        -------
        dict
            Parameter names mapped to their values.
        """
        out = super().get_params(deep=deep)
        if deep:
            for name, cls in STAGES.items():
                if getattr(self, name) is None:
                    out.update((f"{name}__{k}", v) for k, v in cls().get_params().items())
        return out

    def set_params(self, **params):
        """Set hyper-parameters: top-level ones, whole stages, or ``stage__param`` values.

        A stage left None becomes a fresh stage of its class with the value set, so a stage shared
        by no one else is ever changed.

        Parameters
        ----------
        **params
            ``max_iter=3``, ``induction=Induction(...)`` or ``induction__csls_knn=5``.

        Returns
        -------
        self
            The Mapper.

        Raises
        ------
        ValueError
            A name that is no parameter of the Mapper or of the stage.
        """
        params = dict(params)
        for stage in {k.partition("__")[0] for k in params if "__" in k} & STAGES.keys():
            if params.get(stage, getattr(self, stage)) is None:
                # materialise the defaults before setting one of them
                if stage in params:
                    params[stage] = STAGES[stage]()
                else:
                    setattr(self, stage, STAGES[stage]())
        return super().set_params(**params)

    # ----------------------------------------------------------------- validation
    def _validate_params(self):
        """Each declared type and range (scikit-learn's check), each stage's, then the combinations VecMap refuses."""
        super()._validate_params()
        for name in STAGES:
            self._stage(name).validate()
        if self.refinement == "muse" and self._stage("mapping").kind != "orthogonal":
            raise ValueError(f"refinement='muse' solves Procrustes: it needs Mapping('orthogonal'), "
                             f"not Mapping({self._stage('mapping').kind!r})")
        ind = self._stage("induction")
        if self.self_learning and ind.retrieval in REDUCTION_METRICS:
            if self.refinement == "muse":
                raise ValueError(f"refinement='muse' builds MUSE's dictionaries by 'nn' or 'csls', not "
                                 f"Induction(retrieval={ind.retrieval!r})")
            if ind.stochastic_initial < 1 and ind.direction != "mutual":
                raise ValueError(f"Induction(retrieval={ind.retrieval!r}) re-ranks by neighbourhood statistics, "
                                 "which stochastic dropout cannot zero pair by pair: pass "
                                 "Induction(..., stochastic_initial=1.0)")

    # ----------------------------------------------------------- preprocessing
    def _preprocess(self, X, side, fit):
        """POSTPROC → normalize → PCA, fitting the statistics when ``fit``.

        POSTPROC comes first, on the raw vectors, as in Vulić et al. (2020, Section 2: "a
        transformation ... applied before they undergo the series of standard normalisation and
        centering steps"), whose pipeline runs uncovec's ``post-process.py`` on the input files
        and then VecMap, which normalises.
        """
        pre = self._stage("preprocessing")
        if pre.postproc is not None:
            alpha = float(tuple(pre.postproc)[0 if side == "src" else 1])
            if fit:
                T = similarity_order_transform(X, alpha)
                setattr(self, f"{side}_postproc_", T)
            X = apply_transform(X, getattr(self, f"{side}_postproc_"))
        if fit:
            nz = Normalizer(pre.normalize)
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
        pre = self._stage("preprocessing")
        if pre.pca is None:
            return None
        if pre.pca == "match":
            return min(self._dims)
        return int(pre.pca)

    # ------------------------------------------------------------------- fitting
    def fit(self, src, tgt, seed_dictionary=None, *, validation=None) -> "Mapper":
        """Learn the mapping.

        Parameters
        ----------
        src, tgt : Embeddings (or arrays, then dictionaries are (m, 2) int row pairs)
            Rows in frequency order (the vocabulary cutoff keeps the first rows).
        seed_dictionary : word pairs, int (m, 2) array, or a path, optional
            Read with :func:`embgeo.data.read_dictionary` when a path; needed by
            ``Initialization("seed")``, ignored by the other seeds. Pairs with out-of-vocabulary
            words are skipped.
        validation : word pairs, array or path, optional
            Scored (NN P@1 and mean similarity of the best gold translation) at every
            self-learning iteration, as VecMap's ``--validation``; recorded in ``history_``.

        Returns
        -------
        self
            The fitted Mapper.
        """
        self._fit(src, tgt, seed_dictionary, validation)
        del self._fitted_inputs
        return self

    def _fit(self, src, tgt, seed_dictionary=None, validation=None):
        """fit without releasing the pre-processed matrices (kept for fit_transform)."""
        self._validate_params()
        pre, ini, ind, sel = (self._stage(name) for name in ("preprocessing", "initialization", "induction",
                                                             "selection"))
        retrieval, csls_knn = ind.retrieval, int(ind.csls_knn)
        if tgt is None:
            raise ValueError("Mapper requires y to be passed, but the target y is None: fit(src, tgt) needs the "
                             "target space tgt")
        X0, Z0 = _matrix(src, "src"), _matrix(tgt, "tgt")
        xb.get_namespace(X0, Z0)  # both sides must share one array library
        self._dims = (X0.shape[1], Z0.shape[1])
        if ini.dictionary == "identical":
            seed_dictionary = identical_dictionary(src, tgt)
        elif ini.dictionary == "numerals":
            seed_dictionary = numeral_dictionary(src, tgt)
        elif ini.dictionary == "seed" and seed_dictionary is None:
            raise ValueError("Initialization('seed') needs a seed_dictionary: fit(src, tgt, seed_dictionary)")
        if ini.dictionary != "unsupervised":
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
        if ini.dictionary == "unsupervised":
            pairs = unsupervised_dictionary(X, Z, vocabulary=ini.vocabulary, normalize=pre.normalize,
                                            direction=ind.direction, retrieval=retrieval, csls_knn=csls_knn,
                                            memory_budget=self.memory_budget)
            si, ti = pairs[:, 0], pairs[:, 1]
        self.history_ = History()
        self._best = BestRound(sel.criterion)
        self.n_iter_ = 0
        self.best_iteration_ = None
        if sel.keep == "best" and sel.criterion == "validation" and validation is None:
            raise ValueError("Selection(keep='best', criterion='validation') needs fit(..., validation=...)")
        if self.self_learning and self.refinement == "muse":
            si, ti = self._muse_refine(X, Z, si, ti, val, retrieval, csls_knn)
        elif self.self_learning:
            si, ti = self._self_learn(X, Z, si, ti, val, retrieval, csls_knn)
        if self.self_learning and sel.keep == "best":
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
        mp = self._stage("mapping")
        xp = xb.get_namespace(X)
        Xd, Zd = xb.take_rows(X, si), xb.take_rows(Z, ti)
        ds, dt = X.shape[1], Z.shape[1]
        f64 = xp.float64
        if mp.kind == "orthogonal":
            W = xp.astype(procrustes(Xd, Zd, check_finite=False), f64)
            self.src_transform_ = W
            self.tgt_transform_ = xp.eye(dt, dtype=f64)
            self.singular_values_ = xp.linalg.svdvals(gram(Xd, Zd))
        elif mp.kind == "rcsls":
            W = rcsls(xb.to_numpy(X), xb.to_numpy(Z), np.asarray(xb.to_numpy(si)),
                      np.asarray(xb.to_numpy(ti)), csls_knn=csls_knn, random_state=self.random_state,
                      progress=self.progress)
            self.src_transform_ = xp.asarray(np.asarray(W, dtype=np.float64))
            self.tgt_transform_ = xp.eye(dt, dtype=f64)
            self.singular_values_ = xp.linalg.svdvals(gram(Xd, Zd))
        elif mp.kind == "geomm":
            res = geomm(X, Z, si, ti, C=50.0 if mp.reg is None else float(mp.reg),
                        random_state=self.random_state, progress=self.progress)
            Tx, Tz = res.transforms()
            self.src_transform_, self.tgt_transform_ = xp.asarray(Tx), xp.asarray(Tz)
            self.B_ = xp.asarray(res.B)
            self.cost_history_ = res.cost_history
            self.singular_values_ = xp.linalg.svdvals(gram(Xd, Zd))
        elif mp.kind == "unconstrained":
            G = gram(Xd)
            W = xp.linalg.solve(G, gram(Xd, Zd))
            self.src_transform_ = W
            self.tgt_transform_ = xp.eye(dt, dtype=f64)
            self.singular_values_ = xp.linalg.svdvals(gram(Xd, Zd))
        else:
            # AAAI 2018 Section 3, composed from embgeo.postprocess: STEP 1 whitening on the
            # dictionary rows, STEP 2 orthogonal mapping (SVD of the whitened X_DᵀZ_D), STEP 3
            # re-weighting by σ^p, STEP 4 de-whitening Rᵀ(X_DᵀX_D)^(1/2)R
            if mp.whiten:
                try:
                    wx1, wz1 = whitening_transform(Xd), whitening_transform(Zd)
                except ValueError as exc:
                    raise ValueError(
                        f"cannot whiten: the dictionary's vectors do not span the space ({exc}); the "
                        f"dictionary has {len(set(np.asarray(si).tolist()))} distinct source and "
                        f"{len(set(np.asarray(ti).tolist()))} distinct target words for {ds}/{dt} "
                        "dimensions: use a larger dictionary, Mapping(whiten=False), or "
                        "Preprocessing(pca=...)") from None
            else:
                wx1, wz1 = xp.eye(ds, dtype=f64), xp.eye(dt, dtype=f64)
            U, s, Vt = cross_covariance_svd(apply_transform(Xd, wx1), apply_transform(Zd, wz1))
            wx2, wz2 = U, xp.matrix_transpose(Vt)
            Tx = wx1 @ wx2 * xp.reshape(s ** float(mp.src_reweight), (1, -1))
            Tz = wz1 @ wz2 * xp.reshape(s ** float(mp.trg_reweight), (1, -1))
            # de-whitening: Rᵀ(X_DᵀX_D)^(1/2)R with R = wx2 or wz2 (thin when d_s ≠ d_t);
            # Mapping.validate refuses it without whitening, as VecMap does
            rot = {"src": (Xd, wx2), "trg": (Zd, wz2)}
            if mp.src_dewhiten is not None:
                A, R = rot[mp.src_dewhiten]
                Tx = Tx @ (xp.matrix_transpose(R) @ dewhitening_transform(A) @ R)
            if mp.trg_dewhiten is not None:
                A, R = rot[mp.trg_dewhiten]
                Tz = Tz @ (xp.matrix_transpose(R) @ dewhitening_transform(A) @ R)
            self.src_transform_, self.tgt_transform_ = Tx, Tz
            self.singular_values_ = s
        if mp.dim_reduction:
            k = int(mp.dim_reduction)
            self.src_transform_ = self.src_transform_[:, :k]
            self.tgt_transform_ = self.tgt_transform_[:, :k]

    def _self_learn(self, X, Z, si, ti, val, retrieval, csls_knn):
        """VecMap's self-learning loop (ACL 2018, Algorithm/Section 3.3) with orthogonal mappings."""
        ind = self._stage("induction")
        ns = X.shape[0] if not ind.vocabulary_cutoff else min(X.shape[0], int(ind.vocabulary_cutoff))
        nt = Z.shape[0] if not ind.vocabulary_cutoff else min(Z.shape[0], int(ind.vocabulary_cutoff))
        Xc, Zc = X[:ns, ...], Z[:nt, ...]
        rng = np.random.default_rng(self.random_state)
        best_objective = -100.0
        it, last_improvement = 1, 0
        keep_prob = float(ind.stochastic_initial)
        end = False
        with progress_bar(total=self.max_iter, desc="self-learning", progress=self.progress, unit="iter") as bar:
            while True:
                t0 = time.perf_counter()
                if it - last_improvement > ind.stochastic_interval:
                    if keep_prob >= 1.0:
                        end = True
                    keep_prob = min(1.0, ind.stochastic_multiplier * keep_prob)
                    last_improvement = it
                if end or (self.max_iter is not None and it > int(self.max_iter)):
                    break
                with xb.single_blas_thread():
                    # a 50 × 50 problem: BLAS threads only wait on each other (0.7 s against
                    # 0.01 s for 40k dictionary rows on a loaded 2-core machine)
                    W = procrustes(xb.take_rows(X, si), xb.take_rows(Z, ti), check_finite=False)
                    A, B = _shared_space(Xc, Zc, W)
                pairs, objective = induce_dictionary(
                    A, B, direction=ind.direction, retrieval=retrieval,
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
        ind, sel = self._stage("induction"), self._stage("selection")
        rec = {"iteration": it, "objective": objective, "keep_prob": keep_prob,
               "dictionary_size": int(pairs.shape[0])}
        if val is not None:
            rec.update(self._score_validation(X, Z, W, val))
        if self._records_mean_cosine():
            A, B = _shared_space(X, Z, W)
            rec["mean_cosine"] = mean_cosine(A, B, csls_knn=int(ind.csls_knn),
                                             memory_budget=self.memory_budget)
        rec["seconds"] = time.perf_counter() - t0
        self.history_.append(rec)
        scored = self.__dict__.pop("_scored", None)
        if sel.keep == "best":
            self._best.offer(rec, *scored)
        logger.log(logging.INFO if self.verbose else logging.DEBUG, "%s", _format_record(rec))

    def _muse_refine(self, X, Z, si, ti, val, retrieval, csls_knn):
        """MUSE's refinement loop (``supervised.py``); the final Procrustes is :meth:`_final_mapping`."""
        ind = self._stage("induction")
        n_rounds = 5 if self.max_iter is None else int(self.max_iter)
        with progress_bar(total=n_rounds, desc="refinement", progress=self.progress, unit="iter") as bar:
            for it in range(1, n_rounds + 1):
                t0 = time.perf_counter()
                W = procrustes(xb.take_rows(X, si), xb.take_rows(Z, ti), check_finite=False)
                A, B = _shared_space(X, Z, W)
                # Trainer.build_dictionary: cosines of the mapped source and the target rows
                A, B = normalize(A, "unit"), normalize(B, "unit")
                pairs, objective = _muse_dictionary(A, B, ind.direction, retrieval, csls_knn,
                                                    ind.vocabulary_cutoff, self.memory_budget)
                self._scored = (si, ti)  # the dictionary whose mapping W this round scores
                si, ti = pairs[:, 0], pairs[:, 1]
                self._record(it, objective, 1.0, pairs, X, Z, W, val, t0)
                bar.update(1)
        self.n_iter_ = len(self.history_)
        return si, ti

    def _records_mean_cosine(self) -> bool:
        sel = self._stage("selection")
        if sel.record_mean_cosine is not None:
            return bool(sel.record_mean_cosine)
        return self.refinement == "muse" or (sel.keep == "best" and sel.criterion == "mean_cosine")

    def _keep_best(self, X, Z, si, ti, val, retrieval, csls_knn):
        """``Selection("best")``: score the final dictionary's mapping too, then return the best round's dictionary.

        The extra round is the loop's body once more (its induced dictionary only gives the
        objective), recorded with ``"final": True``; ``n_iter_`` still counts the loop's rounds.
        """
        ind = self._stage("induction")
        t0 = time.perf_counter()
        with xb.single_blas_thread():
            W = procrustes(xb.take_rows(X, si), xb.take_rows(Z, ti), check_finite=False)
        if self.refinement == "muse":
            A, B = _shared_space(X, Z, W)
            A, B = normalize(A, "unit"), normalize(B, "unit")
            pairs, objective = _muse_dictionary(A, B, ind.direction, retrieval, csls_knn,
                                                ind.vocabulary_cutoff, self.memory_budget)
        else:
            cut = [None if not ind.vocabulary_cutoff else int(ind.vocabulary_cutoff)] * 2
            A, B = _shared_space(X[:cut[0], ...], Z[:cut[1], ...], W)
            # deterministic (keep_prob 1): the loop ends at p = 1 unless max_iter stopped it
            pairs, objective = induce_dictionary(A, B, direction=ind.direction, retrieval=retrieval,
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
            Source vectors, any words (pre-processed with the statistics fitted on the training
            vocabulary).
        tgt : Embeddings or array (n, d_t), optional
            Target vectors, likewise.

        Returns
        -------
        Embeddings or array, or tuple
            The mapped source (same type as given), or a tuple (source, target) when ``tgt`` is
            given (scikit-learn's CCA convention).

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        ValueError
            A dimension other than the fitted one, or a non-finite value (naming the row).
        """
        self._check_fitted()
        out = self._apply(src, "src")
        if tgt is None:
            return out
        return out, self._apply(tgt, "tgt")

    def fit_transform(self, src, tgt, seed_dictionary=None, *, validation=None):
        """``fit(...)`` then ``transform(src, tgt)``, reusing the pre-processed training matrices.

        Parameters
        ----------
        src, tgt : Embeddings or arrays
            As :meth:`fit`.
        seed_dictionary : word pairs, int (m, 2) array, or a path, optional
            As :meth:`fit`.
        validation : word pairs, array or path, optional
            As :meth:`fit`.

        Returns
        -------
        tuple
            The mapped source and target (each of the type given), as ``transform(src, tgt)`` returns them.
        """
        self._fit(src, tgt, seed_dictionary, validation)
        X, Z = self.__dict__.pop("_fitted_inputs")
        return self._map(src, X, "src"), self._map(tgt, Z, "tgt")


def _format_record(rec):
    s = (f"iteration {rec['iteration']:4d}  objective {rec['objective']:.5f}  p {rec['keep_prob']:.2f}  "
         f"dictionary {rec['dictionary_size']}")
    if "val_accuracy" in rec:
        s += f"  val P@1 {100 * rec['val_accuracy']:.2f}%  val sim {rec['val_similarity']:.4f}"
    return s
