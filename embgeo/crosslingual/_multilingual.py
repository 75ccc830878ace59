"""Many languages in one space: pivot mappings and generalized Procrustes analysis (:class:`MultilingualMapper`)."""
from __future__ import annotations

import time
from collections import deque
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils._param_validation import Interval, StrOptions

from .. import backend as xb
from ..embeddings import Embeddings
from ..errors import NotFittedError
from ..linalg import centred_scatter, eigh_desc
from ..normalize import Normalizer, normalize
from ..postprocess import AffineTransform
from ..progress import progress_bar
from ..validation import collection_input_tags
from ._dictionaries import _matrix, _maybe_read, dictionary_indices
from ._mapper import Mapper
from ._stages import Mapping, Preprocessing
from ._muse import _muse_dictionary
from ._procrustes import procrustes


class MultilingualMapper(TransformerMixin, BaseEstimator):
    """N ≥ 3 monolingual spaces mapped into one shared space, from bilingual dictionaries.

    Two strategies:

    - ``"pivot"``: every language is mapped onto the space of one pivot language by a
      :class:`Mapper` (a clone of ``mapper``; orthogonal Procrustes by default). A language without
      a dictionary with the pivot is mapped onto a language that is already mapped (breadth-first
      over the dictionaries from the pivot), so the maps compose along dictionary paths: the
      answer MUSE's users are given (facebookresearch/MUSE issues 20, 143), done in one call.
    - ``"gpa"``: generalized Procrustes analysis (Kementchedjhieva, Ruder, Cotterell & Søgaard 2018,
      "Generalizing Procrustes Analysis for Better Bilingual Dictionary Induction", CoNLL, Section 3):
      every language i gets an orthogonal T_i, and the shared space is the *mean* of the aligned
      translations, G = (1/k) Σ_i E_i T_i; the algorithm alternates T_i = Procrustes(E_i → G) for
      every language and the new mean, until the objective Σ_i ‖E_i T_i − G‖² stops decreasing
      (their released code, ``generalized_procrustes`` in YovaKem/generalized-procrustes-MUSE, runs
      500 such iterations). It starts from one language's space (theirs: ``G = E_1``; here: the
      pivot's, the others aligned to it along the dictionaries). With ``self_learning=True`` it
      is refined as their ``supervised.py`` does: ``max_iter`` rounds of [induce a dictionary for
      every language pair given, by MUSE's ``build_dictionary`` (CSLS, mutual nearest neighbours
      among the ``vocabulary_cutoff`` most frequent words, :class:`Mapper`'s ``refinement="muse"``
      induction), then GPA again].

    Rows of GPA: the paper aligns tuples of translations, one word per language (their code joins
    the bilingual dictionaries on the source word). From bilingual dictionaries between any
    pairs, embgeo forms the tuples by joining pairs that share a word (``(en, dog)–(de, Hund)``
    and ``(de, Hund)–(fi, koira)`` make the tuple (dog, Hund, koira)), never two words of one
    language in a tuple (a pair that would is left out of the join); a tuple may miss languages,
    and its mean is then over the languages it has (GPA with missing rows, Gower 1975). With
    every dictionary keyed on one language and complete, these are their tuples.

    Parameters
    ----------
    strategy : {"pivot", "gpa"}
        How the languages meet (the glossary keeps ``method`` for the analogy solver).
    pivot : str or None
        The pivot language (default: the first language of ``spaces``); for ``"gpa"``, the
        language whose space starts the iteration.
    mapper : Mapper or None
        ``"pivot"``: the bilingual mapping cloned for every language (default
        ``Mapper(mapping=Mapping("orthogonal"))``); its :class:`Preprocessing` (normalisation, PCA,
        POSTPROC) is replaced by this estimator's (applied once per language). Its mapping must leave
        the target side alone (``Mapping`` kind ``"orthogonal"``, ``"unconstrained"``, ``"rcsls"``): a
        target transform would move the pivot's space with every language.
    normalize : sequence of str
        :mod:`embgeo.normalize` steps applied to every space first (default unit, center, unit).
    pca : int, "match" or None
        Reduce the spaces wider than k dimensions to their top-k principal components ("match":
        the narrowest space's dimension). ``"gpa"`` needs one dimension for every space.
    self_learning : bool
        ``"gpa"`` only: refine by induced dictionaries (see above).
    max_iter : int
        Refinement rounds (their ``n_refinement``; MUSE's default 5).
    gpa_max_iter : int
        GPA iterations at most (their code: 500).
    tol : float
        GPA stops when the objective decreases by less than ``tol`` times its value.
    retrieval : {"csls", "nn"}
        Induction criterion of the refinement (MUSE's ``dico_method``).
    csls_knn : int
    vocabulary_cutoff : int or None
        MUSE's ``dico_max_rank`` for the refinement (10000).
    memory_budget : int or None
    progress : bool or None

    Attributes
    ----------
    languages_ : list of str
    pivot_ : str
    transforms_ : dict of str → array (d_i', d)
        The linear map of each language into the shared space (after normalisation and PCA).
    n_features_ : dict of str → int
        Each language's input dimension.
    dictionary_coverage_ : dict of (str, str) → (int, int)
        Pairs of each dictionary with both words in the vocabularies, and pairs given.
    paths_ : dict of str → list of str
        ``"pivot"``: the languages each language is mapped through to reach the pivot.
    mappers_ : dict of str → Mapper
        ``"pivot"``: the fitted bilingual mapper of each non-pivot language (onto its parent).
    history_ : list of dict
        ``"gpa"``: one record per round (round 0: GPA on the given dictionaries): ``round``,
        ``objective`` (mean squared distance of a tuple's rows to their mean), ``gpa_iterations``,
        ``n_tuples``, ``seconds``.

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 10)).astype(np.float32)
    >>> rot = lambda: np.linalg.qr(rng.standard_normal((10, 10)))[0].astype(np.float32)
    >>> spaces = {lang: embgeo.Embeddings([f"{lang}{i}" for i in range(300)], X @ rot())
    ...           for lang in ("en", "de", "fi")}
    >>> dicts = {("en", "de"): [(f"en{i}", f"de{i}") for i in range(100)],
    ...          ("de", "fi"): [(f"de{i}", f"fi{i}") for i in range(100)]}
    >>> mm = MultilingualMapper("gpa", normalize=()).fit(spaces, dicts)
    >>> de, fi = mm.transform("de", spaces["de"]), mm.transform("fi", spaces["fi"])
    >>> bool(np.allclose(de.vectors, fi.vectors, atol=1e-4))
    True
    """

    _parameter_constraints: dict = {
        "strategy": [StrOptions({"pivot", "gpa"})],
        "pivot": [str, None],
        "mapper": [Mapper, None],
        "normalize": [str, tuple, list, None],
        "pca": [Interval(Integral, 1, None, closed="left"), StrOptions({"match"}), None],
        "self_learning": ["boolean"],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "gpa_max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "retrieval": [StrOptions({"csls", "nn"})],
        "csls_knn": [Interval(Integral, 1, None, closed="left")],
        "vocabulary_cutoff": [Interval(Integral, 1, None, closed="left"), None],
        "memory_budget": [Interval(Integral, 1, None, closed="left"), None],
        "progress": ["boolean", None],
    }

    def __init__(self, strategy="pivot", *, pivot=None, mapper=None, normalize=("unit", "center", "unit"), pca=None,
                 self_learning=False, max_iter=5, gpa_max_iter=500, tol=1e-7, retrieval="csls", csls_knn=10,
                 vocabulary_cutoff=10000, memory_budget=None, progress=None):
        self.strategy = strategy
        self.pivot = pivot
        self.mapper = mapper
        self.normalize = normalize
        self.pca = pca
        self.self_learning = self_learning
        self.max_iter = max_iter
        self.gpa_max_iter = gpa_max_iter
        self.tol = tol
        self.retrieval = retrieval
        self.csls_knn = csls_knn
        self.vocabulary_cutoff = vocabulary_cutoff
        self.memory_budget = memory_budget
        self.progress = progress

    def __sklearn_tags__(self):
        """A transformer whose input is a *dict* of spaces and a dict of dictionaries, not one 2-D array.

        ``input_tags.two_d_array`` is False, so scikit-learn's array checks cannot apply;
        ``tests/test_sklearn_conformance.py`` runs its API checks.
        """
        return collection_input_tags(super().__sklearn_tags__())

    # ------------------------------------------------------------------ fitting
    def fit(self, spaces, dictionaries, y=None) -> "MultilingualMapper":
        """Map every language of ``spaces`` into one space.

        Parameters
        ----------
        spaces : dict of str → Embeddings (or (n, d) arrays, then dictionaries are int row pairs)
            At least three languages; rows in frequency order.
        dictionaries : dict of (str, str) → word pairs, an int (m, 2) array of row pairs, or a path
            Bilingual dictionaries, each between two languages of ``spaces`` (either direction).
            Pairs with a word outside a vocabulary are skipped; a dictionary with none left is an
            error naming its coverage.
        y : None
            Ignored (scikit-learn API).

        Returns
        -------
        self
            The fitted mapper.

        Raises
        ------
        ValueError
            Fewer than three languages, no dictionaries, an unknown pivot, a dictionary with no
            usable pair, or a language no dictionary path links to the pivot (named).
        """
        self._validate_params()
        if not isinstance(spaces, dict) or len(spaces) < 3:
            got = f"{len(spaces)} languages" if isinstance(spaces, dict) else type(spaces).__name__
            raise ValueError("spaces must be a dict of at least three languages {language: Embeddings}; for two "
                             f"languages use Mapper (got {got})")
        if not isinstance(dictionaries, dict) or not dictionaries:
            raise ValueError("dictionaries must be a non-empty dict {(language_a, language_b): pairs}")
        langs = list(spaces)
        pivot = langs[0] if self.pivot is None else self.pivot
        if pivot not in spaces:
            raise ValueError(f"pivot {pivot!r} is not one of the languages {langs}")
        pairs = self._resolve_dictionaries(spaces, dictionaries)
        parent = _spanning_tree(langs, pivot, pairs)
        self.normalizers_: dict = {}
        X = {lang: self._preprocess(lang, _matrix(spaces[lang], lang), fit=True) for lang in langs}
        self._pca_fit(X)
        X = {lang: self._apply_pca(lang, X[lang]) for lang in langs}
        self.languages_, self.pivot_ = langs, pivot
        self.n_features_ = {lang: int(_matrix(spaces[lang], lang).shape[1]) for lang in langs}
        self.paths_ = {}
        for lang in langs:
            path, node = [lang], lang
            while parent[node] is not None:
                node = parent[node]
                path.append(node)
            self.paths_[lang] = path
        order = sorted(langs, key=lambda lang: len(self.paths_[lang]))  # breadth-first from the pivot
        if self.strategy == "pivot":
            self._fit_pivot(X, pairs, parent, order)
        else:
            dims = {lang: int(X[lang].shape[1]) for lang in langs}
            if len(set(dims.values())) > 1:
                raise ValueError(f"strategy='gpa' maps every language into one space and needs one dimension for all: "
                                 f"got {dims}; pass pca=k or pca='match' to reduce the wider spaces")
            self._fit_gpa(X, pairs, parent, order)
        return self

    def _resolve_dictionaries(self, spaces, dictionaries):
        """{(a, b): (rows_a, rows_b)}, with the coverage of each dictionary in ``dictionary_coverage_``."""
        out, cov = {}, {}
        for key, d in dictionaries.items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise ValueError(f"dictionary keys are (language_a, language_b) pairs, got {key!r}")
            a, b = key
            for lang in key:
                if lang not in spaces:
                    raise ValueError(f"dictionary {key!r} names language {lang!r}, which is not in spaces "
                                     f"({', '.join(map(str, spaces))})")
            if a == b:
                raise ValueError(f"dictionary {key!r} pairs a language with itself")
            d = _maybe_read(d)
            if not isinstance(d, np.ndarray):
                d = list(d)
            given = len(d)
            try:
                ra, rb = dictionary_indices(spaces[a], spaces[b], d)
            except ValueError as exc:
                raise ValueError(f"dictionary {a}-{b}: 0 of its {given} pairs have both words in the vocabularies "
                                 f"(coverage 0.0%): {exc}") from None
            cov[key] = (int(ra.shape[0]), int(given))
            out[key] = (ra, rb)
        self.dictionary_coverage_ = cov
        return out

    def _preprocess(self, lang, X, fit):
        if fit:
            nz = Normalizer(self.normalize)
            self.normalizers_[lang] = nz
            return nz.fit_transform(X)
        return self.normalizers_[lang].transform(X)

    def _pca_fit(self, X):
        self.pca_ = {}
        if self.pca is None:
            self.pca_ = {lang: None for lang in X}
            return
        k = min(int(M.shape[1]) for M in X.values()) if self.pca == "match" else int(self.pca)
        for lang, M in X.items():
            if k < M.shape[1]:
                C, mu = centred_scatter(M, lang)
                self.pca_[lang] = AffineTransform(eigh_desc(C)[1][:, :k], mu)
            else:
                self.pca_[lang] = None

    def _apply_pca(self, lang, X):
        t = self.pca_[lang]
        return X if t is None else t.apply(X)

    def _fit_pivot(self, X, pairs, parent, order):
        template = Mapper(mapping=Mapping("orthogonal")) if self.mapper is None else self.mapper
        self.transforms_ = {self.pivot_: np.eye(X[self.pivot_].shape[1])}
        self.mappers_ = {}
        mapped = {self.pivot_: X[self.pivot_]}
        for lang in progress_bar(order[1:], desc="pivot mappings", progress=self.progress, unit="language"):
            p = parent[lang]
            rl, rp = _pair_rows(pairs, lang, p)
            m = clone(template).set_params(preprocessing=Preprocessing(()))
            m.fit(X[lang], mapped[p], np.stack([rl, rp], axis=1))
            T = xb.to_numpy(m.tgt_transform_)
            if T.shape[0] != T.shape[1] or not np.allclose(T, np.eye(T.shape[0]), atol=1e-6):
                raise ValueError(f"strategy='pivot' needs a mapping that leaves the target side alone (orthogonal, "
                                 f"unconstrained, rcsls); Mapping({m.get_params()['mapping__kind']!r}) "
                                 "transformed the target too")
            self.mappers_[lang] = m
            self.transforms_[lang] = np.asarray(xb.to_numpy(m.src_transform_), dtype=np.float64)
            mapped[lang] = m.transform(X[lang])

    def _fit_gpa(self, X, pairs, parent, order):
        # The vocabularies stay in their own namespace (CuPy on the GPU): only the dictionary rows
        # and the d × d transforms come to the host, where GPA's small products run.
        def rows(lang, r):
            return np.asarray(xb.to_numpy(xb.take_rows(X[lang], r)), dtype=np.float64)

        # start: the pivot's space, each other language aligned to its (already aligned) parent
        T = {self.pivot_: np.eye(X[self.pivot_].shape[1])}
        for lang in order[1:]:
            rl, rp = _pair_rows(pairs, lang, parent[lang])
            T[lang] = procrustes(rows(lang, rl), rows(parent[lang], rp) @ T[parent[lang]])
        self.history_ = []
        rounds = int(self.max_iter) if self.self_learning else 0
        with progress_bar(total=rounds + 1, desc="GPA", progress=self.progress, unit="round") as bar:
            for rnd in range(rounds + 1):
                t0 = time.perf_counter()
                if rnd > 0:
                    pairs = self._induce(X, T, pairs)
                tuples = _tuples(self.languages_, pairs)
                E = {lang: rows(lang, r) for lang, (r, _) in tuples[0].items() if r.size}
                with xb.single_blas_thread():
                    # (n × d)ᵀ(n × d) products and d × d SVDs: BLAS threads only wait on each other
                    # (0.8 s against 0.02 s a Procrustes solve for 6.5k rows at load 20 on 2 cores)
                    T, objective, n_it = _gpa(E, T, tuples, int(self.gpa_max_iter), float(self.tol))
                self.history_.append({"round": rnd, "objective": objective, "gpa_iterations": n_it,
                                      "n_tuples": int(tuples[1]), "seconds": time.perf_counter() - t0})
                bar.update(1)
        self.transforms_ = T

    def _induce(self, X, T, pairs):
        """MUSE's ``build_dictionary`` (CSLS, mutual) for every language pair given, in the shared space."""
        def shared(lang):
            xp = xb.get_namespace(X[lang])
            return normalize(X[lang] @ xp.astype(xb.asarray(T[lang], like=X[lang]), X[lang].dtype), "unit")

        out = {}
        for a, b in pairs:
            A, B = shared(a), shared(b)
            d, _ = _muse_dictionary(A, B, "mutual", self.retrieval, int(self.csls_knn), self.vocabulary_cutoff,
                                    self.memory_budget)
            out[(a, b)] = (d[:, 0], d[:, 1])
        return out

    # ---------------------------------------------------------------- transform
    def _check_fitted(self):
        if not hasattr(self, "transforms_"):
            raise NotFittedError("this MultilingualMapper is not fitted yet; call fit(spaces, dictionaries) first")

    def transform(self, language, embeddings=None):
        """Map one language's vectors (Embeddings or an (n, d) array) into the shared space.

        The normalisation and PCA statistics fitted on that language's training space are reused,
        so transforming a few words equals transforming the vocabulary.

        Parameters
        ----------
        language : str
            One of the fitted languages (:attr:`languages_`).
        embeddings : Embeddings or array, shape (n, d)
            That language's vectors, of the dimension it was fitted on.

        Returns
        -------
        Embeddings or array
            The same kind as ``embeddings``, in the shared space.

        Raises
        ------
        NotFittedError
            The mapper is not fitted.
        TypeError
            ``embeddings`` is missing.
        ValueError
            An unknown language, or vectors of another dimension.

        See Also
        --------
        pair : two languages at once.
        """
        self._check_fitted()
        if embeddings is None:
            raise TypeError("transform(language, embeddings): give the language and its vectors")
        if not isinstance(language, str) or language not in self.transforms_:
            raise ValueError(f"unknown language {language!r}; fitted on {', '.join(self.languages_)}")
        X = xb.check_matrix(_matrix(embeddings, language), language)
        if X.shape[1] != self.n_features_[language]:
            raise ValueError(f"{language} vectors have dimension {X.shape[1]} but the mapper was fitted on "
                             f"{self.n_features_[language]}")
        Y = self._apply_pca(language, self._preprocess(language, X, fit=False))
        xp = xb.get_namespace(Y)
        Y = xp.astype(Y @ xp.astype(xb.asarray(self.transforms_[language], like=Y), Y.dtype), X.dtype)
        return embeddings.with_vectors(Y, check_finite=False) if isinstance(embeddings, Embeddings) else Y

    def pair(self, spaces, source, target):
        """Two languages in the shared space, any pair (two non-pivot languages included).

        ``(transform(source, spaces[source]), transform(target, spaces[target]))``. BLI of the pair
        is ``embgeo.evaluate.bli(*mm.pair(spaces, "de", "fi"), test, retrieval="csls")`` (the
        evaluation layer sits above this package, so the estimator does not call it itself).

        Parameters
        ----------
        spaces : dict of str → Embeddings or arrays
            The vectors of the languages (e.g. the dict given to :meth:`fit`).
        source, target : str
            The two languages.

        Returns
        -------
        source_mapped, target_mapped : Embeddings or arrays
            Both in the shared space, each the kind of its input.

        Raises
        ------
        KeyError
            A language missing from ``spaces``.
        ValueError
            A language the mapper was not fitted on.
        """
        return self.transform(source, spaces[source]), self.transform(target, spaces[target])


def _pair_rows(pairs, a, b):
    """Row pairs (rows of a, rows of b) of the dictionary between a and b, whichever its direction."""
    if (a, b) in pairs:
        return pairs[(a, b)]
    rb, ra = pairs[(b, a)]
    return ra, rb


def _spanning_tree(langs, pivot, pairs):
    """Breadth-first tree over the dictionaries from the pivot: {language: parent} (the pivot's is None).

    Raises a ValueError naming the languages that no dictionary path reaches.
    """
    adj = {lang: [] for lang in langs}
    for a, b in pairs:
        adj[a].append(b)
        adj[b].append(a)
    parent = {pivot: None}
    queue = deque([pivot])
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if v not in parent:
                parent[v] = u
                queue.append(v)
    lost = [lang for lang in langs if lang not in parent]
    if lost:
        given = ", ".join(f"{a}-{b}" for a, b in pairs)
        raise ValueError(f"no dictionary path links {', '.join(map(repr, lost))} to {pivot!r}: give a dictionary "
                         f"between {'it' if len(lost) == 1 else 'each of them'} and one of "
                         f"{', '.join(map(repr, parent))} (dictionaries given: {given})")
    return parent


def _tuples(langs, pairs):
    """Tuples of translations (one word per language at most) joined from bilingual pairs.

    Union-find over (language, row) nodes, in the order of the dictionaries and their pairs; a pair
    whose two tuples both hold a word of one language is left out. Returns
    ({language: (rows, tuple ids)}, number of tuples).
    """
    comp = {}     # node -> root node
    members = {}  # root -> {language: row}

    def find(x):
        while comp[x] != x:
            comp[x] = comp[comp[x]]
            x = comp[x]
        return x

    for (a, b), (ra, rb) in pairs.items():
        for i, j in zip(ra.tolist(), rb.tolist()):
            u, v = (a, i), (b, j)
            for n, lang, row in ((u, a, i), (v, b, j)):
                if n not in comp:
                    comp[n] = n
                    members[n] = {lang: row}
            x, y = find(u), find(v)
            if x == y or members[x].keys() & members[y].keys():
                continue
            if len(members[x]) < len(members[y]):
                x, y = y, x
            comp[y] = x
            members[x].update(members.pop(y))
    roots = [r for r, m in members.items() if len(m) >= 2]
    out = {lang: ([], []) for lang in langs}
    for t, r in enumerate(roots):
        for lang, row in members[r].items():
            out[lang][0].append(row)
            out[lang][1].append(t)
    return {lang: (np.asarray(r, dtype=np.int64), np.asarray(t, dtype=np.int64))
            for lang, (r, t) in out.items()}, len(roots)


def _gpa(E, T, tuples, max_iter, tol):
    """Generalized Procrustes analysis (Kementchedjhieva et al. 2018, Section 3) over tuples with missing rows.

    Alternates G = the mean of each tuple's aligned rows and T_i = Procrustes(E_i → G) until the
    objective Σ_i ‖E_i T_i − G‖² (each language over its tuples) decreases by less than ``tol``
    times itself. Returns (T, objective per tuple row, iterations).
    """
    rows, n_t = tuples
    d = next(iter(T.values())).shape[1]
    # a language has at most one row in a tuple, so its tuple ids are distinct and G[ids] += ...
    # sums without np.add.at
    counts = np.zeros(n_t)
    for lang in E:
        counts[rows[lang][1]] += 1.0
    n_rows = float(counts.sum())
    prev, it = np.inf, 0
    for it in range(1, max_iter + 1):
        G = np.zeros((n_t, d))
        for lang, El in E.items():
            G[rows[lang][1]] += El @ T[lang]
        G /= counts[:, None]
        I = np.eye(d)
        for lang, El in E.items():
            # Procrustes(E_i → G) from the d × d product E_iᵀG alone: procrustes(I, M) is the
            # orthogonal W maximising tr(WᵀM) (no copy of the n × d rows per solve)
            T[lang] = procrustes(I, El.T @ G[rows[lang][1]], check_finite=False)
        obj = sum(float(np.sum((El @ T[lang] - G[rows[lang][1]]) ** 2)) for lang, El in E.items()) / n_rows
        if prev - obj <= tol * max(obj, 1e-300):
            break
        prev = obj
    return T, obj, it
