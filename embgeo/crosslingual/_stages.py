"""The stages of :class:`~embgeo.crosslingual.Mapper`: its hyper-parameters grouped as VecMap's pipeline runs them.

Each stage is a scikit-learn parameter container (a :class:`~sklearn.base.BaseEstimator` with no
``fit``): ``Mapper.get_params(deep=True)`` lists ``induction__csls_knn`` and the like,
``set_params(induction__csls_knn=5)`` and :func:`sklearn.base.clone` work through it, and, by
scikit-learn's convention, the values are validated when the Mapper is fitted, with errors that
name the stage and the parameter.
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions

from ..neighbors import VALID_RETRIEVALS
from ._selection import SELECTION_KEYS


class _Stage(BaseEstimator):
    """A group of Mapper hyper-parameters; ``validate`` runs at ``Mapper.fit``."""

    def validate(self):
        """Check the values (scikit-learn's ``InvalidParameterError``, a ValueError, names stage and parameter).

        ``Mapper.fit`` calls it: first the types and ranges the stage declares, then the
        combinations its method refuses (each stage's Notes say which).

        Returns
        -------
        self
            The stage, checked.

        Raises
        ------
        ValueError
            A value outside its declared range, or a combination the method refuses.
        """
        self._validate_params()
        self._check_combinations()
        return self

    def _check_combinations(self):
        """The stage's checks beyond one value's type and range (none by default)."""

    def _fail(self, message: str):
        raise ValueError(f"{type(self).__name__}: {message}")


class Preprocessing(_Stage):
    """What :class:`Mapper` does to each space before mapping: POSTPROC, then normalisation, then PCA.

    Parameters
    ----------
    normalize : sequence of str
        VecMap's ``--normalize`` steps (:mod:`embgeo.normalize`), default unit, center, unit;
        ``()`` keeps the raw vectors (MUSE's recipe).
    postproc : (float, float) or None
        POSTPROC (Vulić et al. 2020, Section 2): similarity-order transform X Q Δ^α of each side
        (:func:`embgeo.postprocess.similarity_order`) with (αs, αt); the paper's values are
        (−0.25, 0.15). Applied to the raw vectors, *before* ``normalize``, as the paper's
        pipeline (uncovec's ``post-process.py``, then VecMap) does.
    pca : int, "match" or None
        Reduce the space(s) wider than k dimensions to their top-k principal components before
        mapping; ``"match"`` reduces the wider space to the narrower one's dimension.

    See Also
    --------
    Mapper : The estimator whose ``preprocessing`` this is.
    embgeo.normalize.Normalizer : The normalisation steps.

    Notes
    -----
    :meth:`validate` refuses a ``postproc`` that is not two finite numbers.

    Examples
    --------
    >>> from embgeo.crosslingual import Mapper, Preprocessing
    >>> Mapper(Preprocessing(("unit", "center"), pca="match")).get_params()["preprocessing__pca"]
    'match'
    """

    _parameter_constraints: dict = {
        "normalize": [str, tuple, list, None],
        "postproc": [tuple, list, np.ndarray, None],
        "pca": [Interval(Integral, 1, None, closed="left"), StrOptions({"match"}), None],
    }

    def __init__(self, normalize=("unit", "center", "unit"), *, postproc=None, pca=None):
        self.normalize = normalize
        self.postproc = postproc
        self.pca = pca

    def _check_combinations(self):
        pp = self.postproc
        if pp is not None and not (len(pp) == 2 and all(isinstance(a, (Real, np.floating)) and np.isfinite(a)
                                                        for a in pp)):
            self._fail(f"postproc must be a pair of finite numbers (alpha_src, alpha_tgt), got {pp!r}")


class Initialization(_Stage):
    """Where :class:`Mapper`'s seed dictionary comes from.

    Parameters
    ----------
    dictionary : {"seed", "identical", "numerals", "unsupervised"}
        The one given to :meth:`Mapper.fit`, identically spelled words, Latin numerals (Artetxe et
        al. ACL 2017), or the fully unsupervised initialisation of Artetxe et al. (ACL 2018,
        Section 3.2; :func:`~embgeo.crosslingual.unsupervised_dictionary`, which induces with the
        Mapper's :class:`Induction` ``direction``, ``retrieval`` and ``csls_knn``).
    vocabulary : int or None
        Words (the first rows) compared by the unsupervised initialisation; VecMap's
        ``--unsupervised_vocab`` (its recipe: 4000). Its memory is O(n²). Other seeds ignore it.

    See Also
    --------
    Mapper : The estimator whose ``initialization`` this is.

    Examples
    --------
    >>> from embgeo.crosslingual import Initialization, Mapper
    >>> Mapper(initialization=Initialization("identical")).get_params()["initialization__dictionary"]
    'identical'
    """

    _parameter_constraints: dict = {
        "dictionary": [StrOptions({"seed", "identical", "numerals", "unsupervised"})],
        "vocabulary": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, dictionary="seed", *, vocabulary=None):
        self.dictionary = dictionary
        self.vocabulary = vocabulary


class Induction(_Stage):
    """How :class:`Mapper`'s self-learning induces a dictionary from the current mapping.

    Artetxe et al. (ACL 2018, Section 3.3): nearest neighbours or CSLS among the most frequent
    words, in one or both directions, with stochastic dictionary induction (each similarity kept
    with probability p, p multiplied when the objective stalls).

    Parameters
    ----------
    retrieval : {"nn", "csls", "mp", "mp-gauss", "ls", "cdm", "dsl"}
        The induction criterion (:data:`embgeo.neighbors.VALID_RETRIEVALS` ``["induction"]``):
        plain nearest neighbours (the default), CSLS (VecMap's ``--csls``) or a hubness reduction
        (:func:`embgeo.neighbors.reduction_topk`; deterministic only: ``stochastic_initial=1.0``
        unless ``direction="mutual"``, and not with ``refinement="muse"``).
    csls_knn : int
        K of CSLS (VecMap's ``--csls K``; default 10), at least 1, for ``retrieval="csls"`` (and the
        reductions' neighbourhoods), the unsupervised initialisation, the RCSLS loss
        (``Mapping("rcsls")``) and MUSE's mean-cosine criterion.
    direction : {"union", "forward", "backward", "mutual"}
        Induction direction ("mutual" is an embgeo addition: mutual NNs only, found without
        stochastic dropout, which would make the two directions disagree).
    vocabulary_cutoff : int or None
        Induce among the k most frequent words (rows) only (VecMap's ``--vocabulary_cutoff``;
        MUSE's ``dico_max_rank`` with ``refinement="muse"``).
    stochastic_initial : float
        The keep probability p of the first iteration, in (0, 1] (VecMap's default 0.1).
    stochastic_multiplier : float
        The keep probability p is multiplied by this (capped at 1) after ``stochastic_interval`` iterations without
        improvement; must exceed 1 when ``stochastic_initial < 1``.
    stochastic_interval : int
        Iterations without improvement before p grows; self-learning stops when that happens at p = 1.

    See Also
    --------
    Mapper : The estimator whose ``induction`` this is.
    embgeo.crosslingual.induce_dictionary : The induction itself.

    Notes
    -----
    :meth:`validate` refuses ``stochastic_multiplier <= 1`` with ``stochastic_initial < 1``: p would
    never reach 1, the only point where self-learning stops.

    Examples
    --------
    >>> from embgeo.crosslingual import Induction, Mapper
    >>> m = Mapper(induction=Induction(retrieval="csls")).set_params(induction__csls_knn=5)
    >>> m.induction
    Induction(csls_knn=5, retrieval='csls')
    """

    _parameter_constraints: dict = {
        "retrieval": [StrOptions(set(VALID_RETRIEVALS["induction"]))],
        "csls_knn": [Interval(Integral, 1, None, closed="left")],
        "direction": [StrOptions({"union", "forward", "backward", "mutual"})],
        "vocabulary_cutoff": [Interval(Integral, 0, None, closed="left"), None],
        "stochastic_initial": [Interval(Real, 0, 1, closed="right")],
        "stochastic_multiplier": [Interval(Real, None, None, closed="neither")],
        "stochastic_interval": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, retrieval="nn", *, csls_knn=10, direction="union", vocabulary_cutoff=None,
                 stochastic_initial=0.1, stochastic_multiplier=2.0, stochastic_interval=50):
        self.retrieval = retrieval
        self.csls_knn = csls_knn
        self.direction = direction
        self.vocabulary_cutoff = vocabulary_cutoff
        self.stochastic_initial = stochastic_initial
        self.stochastic_multiplier = stochastic_multiplier
        self.stochastic_interval = stochastic_interval

    def _check_combinations(self):
        if self.stochastic_initial < 1 and not self.stochastic_multiplier > 1:
            # keep_prob would never reach 1, the only point where self-learning stops
            self._fail(f"stochastic_multiplier must be > 1 when stochastic_initial < 1 (got "
                       f"{self.stochastic_multiplier} with stochastic_initial {self.stochastic_initial}): "
                       "the keep probability would never reach 1")


class Mapping(_Stage):
    """The linear map :class:`Mapper` learns from a dictionary.

    The multi-step framework of Artetxe, Labaka & Agirre (AAAI 2018, Section 3) by default:
    STEP 1 whitening, STEP 2 orthogonal mapping, STEP 3 re-weighting, STEP 4 de-whitening,
    STEP 5 dimensionality reduction; or one of the single-step mappings.

    Parameters
    ----------
    kind : {"advanced", "orthogonal", "unconstrained", "rcsls", "geomm"}
        The full multi-step mapping (VecMap's default); a single orthogonal (Procrustes) map of the
        source (VecMap's ``-c``); least squares W = (X_DᵀX_D)⁻¹X_DᵀZ_D (``-u``, Mikolov et al.
        2013); the relaxed CSLS loss of Joulin et al. (2018) optimised from the Procrustes solution
        (:func:`embgeo.crosslingual.rcsls.rcsls`, with :class:`Induction`'s ``csls_knn`` and the
        Mapper's ``random_state``); or GeoMM (Jawanpuria et al., TACL 2019;
        :func:`embgeo.crosslingual.geomm.geomm`): source rows map to ``x U B^½`` and target rows to
        ``z V B^½``, U and V orthogonal and B positive definite, learned on the dictionary with
        ``reg`` (sets the Mapper's ``B_`` and ``cost_history_``).
    whiten : bool
        STEP 1 (advanced only): whiten each side with (X_DᵀX_D)^(−1/2) computed on the dictionary rows.
    src_reweight : float
        STEP 3 (advanced only): scale the mapped source dimensions by σᵢ^p, σ the singular values
        of the whitened X_DᵀZ_D.
    trg_reweight : float
        STEP 3 for the target side.
    src_dewhiten : {"src", "trg", None}
        STEP 4 (advanced only): restore the variance of the source or the target side in the mapped
        source; needs ``whiten`` (VecMap refuses it otherwise).
    trg_dewhiten : {"src", "trg", None}
        STEP 4 for the mapped target.
    dim_reduction : int or None
        STEP 5 (advanced only): keep the first k mapped dimensions.
    reg : float or None
        The weight C of ``‖B‖²_F`` for ``kind="geomm"`` (None: 50, the released code's
        ``--l2_reg 1e2``, which is 2C). The best C depends on the pair: on GloVe 50d → floret 300d
        (en-fi) C = 500 beat 50 by 1.9 (CSLS) and 3.5 (NN) P@1 on average over five dictionary
        splits, and 5 or 5000 scored below both (docs/crosslingual.md, "How sure is the ranking");
        tune it on held-out training pairs. Other kinds ignore it.

    See Also
    --------
    Mapper : The estimator whose ``mapping`` this is.
    embgeo.crosslingual.procrustes : The orthogonal map.

    Notes
    -----
    :meth:`validate` refuses what VecMap refuses: de-whitening without whitening in the advanced
    mapping ("De-whitening requires whitening first"), and ``dim_reduction`` with another kind.

    Examples
    --------
    >>> from embgeo.crosslingual import Mapper, Mapping
    >>> Mapper(mapping=Mapping(src_reweight=0.0, trg_reweight=1.0))    # VecMap's --aaai2018 re-weighting
    Mapper(mapping=Mapping(src_reweight=0.0, trg_reweight=1.0))
    """

    _parameter_constraints: dict = {
        "kind": [StrOptions({"advanced", "orthogonal", "unconstrained", "rcsls", "geomm"})],
        "whiten": ["boolean"],
        "src_reweight": [Interval(Real, None, None, closed="neither")],
        "trg_reweight": [Interval(Real, None, None, closed="neither")],
        "src_dewhiten": [StrOptions({"src", "trg"}), None],
        "trg_dewhiten": [StrOptions({"src", "trg"}), None],
        "dim_reduction": [Interval(Integral, 0, None, closed="left"), None],
        "reg": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(self, kind="advanced", *, whiten=True, src_reweight=0.5, trg_reweight=0.5, src_dewhiten="src",
                 trg_dewhiten="trg", dim_reduction=None, reg=None):
        self.kind = kind
        self.whiten = whiten
        self.src_reweight = src_reweight
        self.trg_reweight = trg_reweight
        self.src_dewhiten = src_dewhiten
        self.trg_dewhiten = trg_dewhiten
        self.dim_reduction = dim_reduction
        self.reg = reg

    def _check_combinations(self):
        if self.kind == "advanced" and (self.src_dewhiten is not None or self.trg_dewhiten is not None) \
                and not self.whiten:
            # map_embeddings.py: "ERROR: De-whitening requires whitening first"
            self._fail("de-whitening requires whitening first: set whiten=True or src_dewhiten=None, "
                       "trg_dewhiten=None")
        if self.dim_reduction and self.kind != "advanced":
            # VecMap applies --dim_reduction (STEP 5) in its advanced mapping only
            self._fail(f"dim_reduction applies to kind='advanced' only, not {self.kind!r}")


class Selection(_Stage):
    """Which self-learning round gives :class:`Mapper`'s final mapping, and what each round records.

    Parameters
    ----------
    keep : {"last", "best"}
        The last round (the default, VecMap's), or the one that scores best by ``criterion``, as
        MUSE's ``save_best``/``reload_best`` do (a round replaces the kept one only when strictly
        better). With ``"best"`` the final dictionary is scored too (one more ``history_`` record,
        ``"final": True``, whose induced dictionary is not used), so every candidate mapping of
        the loop is compared, as MUSE scores its rounds 0 … n_refinement. The kept round's
        dictionary is mapped by the full pipeline.
    criterion : {"mean_cosine", "validation", "objective"}
        The criterion of ``keep="best"`` (higher is better): MUSE's unsupervised criterion
        (:func:`~embgeo.crosslingual.mean_cosine`, recorded in every round; MUSE's
        ``mean_cosine-csls_knn_10-S2T-10000``), the validation P@1 (``val_accuracy``; needs
        ``fit(validation=...)``; nearest neighbours by cosine with ``refinement="muse"``, as
        MUSE's evaluation, by the raw dot product of the normalised spaces otherwise, as VecMap's
        ``--validation``), or the loop's objective.
    record_mean_cosine : bool or None
        Record ``mean_cosine`` in ``history_``. None (default): in every round of MUSE's
        refinement, and of VecMap's loop when ``keep="best", criterion="mean_cosine"``; True:
        every round of either loop. Its r_S pass runs over the whole vocabularies (the cost of
        one CSLS retrieval: ≈ 12 s for 200k × 30k words), several times a VecMap iteration among
        the ``vocabulary_cutoff`` words, whose hundreds of rounds it would slow down.

    See Also
    --------
    Mapper : The estimator whose ``selection`` this is.
    embgeo.crosslingual.mean_cosine : MUSE's criterion.

    Notes
    -----
    :meth:`validate` refuses ``record_mean_cosine=False`` with ``keep="best", criterion="mean_cosine"``.

    Examples
    --------
    >>> from embgeo.crosslingual import Mapper, Selection
    >>> Mapper.from_recipe("muse", selection=Selection("best", criterion="validation")).selection
    Selection(criterion='validation', keep='best')
    """

    _parameter_constraints: dict = {
        "keep": [StrOptions({"last", "best"})],
        "criterion": [StrOptions(set(SELECTION_KEYS))],
        "record_mean_cosine": ["boolean", None],
    }

    def __init__(self, keep="last", *, criterion="mean_cosine", record_mean_cosine=None):
        self.keep = keep
        self.criterion = criterion
        self.record_mean_cosine = record_mean_cosine

    def _check_combinations(self):
        if self.keep == "best" and self.criterion == "mean_cosine" and self.record_mean_cosine is False:
            self._fail("keep='best' with criterion='mean_cosine' needs record_mean_cosine (not False)")


#: Mapper's stage parameters and the class of each (None in a Mapper stands for the class's defaults)
STAGES = {"preprocessing": Preprocessing, "initialization": Initialization, "induction": Induction,
          "mapping": Mapping, "selection": Selection}
