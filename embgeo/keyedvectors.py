"""``embgeo.KeyedVectors``: gensim's ``KeyedVectors`` running embgeo's engines.

How it relates to :class:`~embgeo.embeddings.Embeddings` (see ``docs/gensim.md``):

* :class:`KeyedVectors` *is* a gensim ``KeyedVectors`` (a subclass): the mutable storage
  (``index_to_key``, ``key_to_index``, ``vectors``, ``expandos``), the preallocate-then-fill protocol
  that gensim's own loaders use, ``save``/``load`` pickles and every method's semantics and
  defaults (e.g. ``restrict_vocab=300000`` in ``evaluate_word_pairs``) are gensim's, so code and
  files move between the two unchanged. gensim's own test file passes against it.
* The query and evaluation methods run embgeo's code on a cached Embeddings view of the rows
  (built on the first query, dropped on mutation): ``most_similar`` (and so ``similar_by_word``,
  ``similar_by_key``, ``similar_by_vector``) is :meth:`Embeddings.most_similar`,
  ``evaluate_word_analogies`` is the batched 3CosAdd of :func:`embgeo.evaluate.analogy.analogy`,
  ``evaluate_word_pairs`` is :func:`embgeo.evaluate.word_similarity`, and ``most_similar_cosmul``,
  ``distances`` (and so ``closer_than``, ``rank``) use the cached inverse row norms. Like gensim,
  which keeps only ``norms``, the view holds n numbers, never a unit-length copy of ``vectors``.
  Each falls back to gensim's own code for the options embgeo does not implement (listed in its
  docstring).
* embgeo also changes: ``load_word2vec_format`` parses with embgeo's compiled text parser when
  gensim's options allow it (bit-identical vectors, several times faster), an unknown key raises
  :class:`~embgeo.errors.UnknownWordError` (a KeyError, so gensim's ``except KeyError`` still
  works), and ``load`` returns this class for files gensim saved.
* :class:`~embgeo.embeddings.Embeddings` is the immutable value that embgeo's algorithms take.
  ``kv.to_embeddings()`` shares the vectors (no copy); ``KeyedVectors.from_embeddings(e)`` (or
  ``e.to_gensim()``) copies them, because a KeyedVectors may be edited in place.
"""
from __future__ import annotations

import logging
import os
from numbers import Integral
from typing import NamedTuple

import numpy as np
from gensim.models.keyedvectors import KeyedVectors as GensimKeyedVectors

from .errors import UnknownWordError

__all__ = ["KeyedVectors", "Correlation"]

logger = logging.getLogger(__name__)

#: Above this ``topn``, ``most_similar`` sorts all scores as gensim does instead of embgeo's top-k.
_LONG_TOPN = 2048


class KeyedVectors(GensimKeyedVectors):
    """gensim's ``KeyedVectors``, importable as ``from embgeo import KeyedVectors``.

    Parameters
    ----------
    vector_size : int
        Dimension of the vectors.
    count : int, default 0
        Rows to preallocate (gensim's loaders fill them with ``add_vector``).
    dtype : NumPy dtype, default float32
        The vectors' dtype.
    mapfile_path : str, optional
        Unused, as in gensim.

    Notes
    -----
    Every gensim method is available with gensim's behaviour. ``most_similar``,
    ``most_similar_cosmul``, ``n_similarity``, ``distances``, ``evaluate_word_analogies`` and
    ``evaluate_word_pairs`` are embgeo's code (and through them ``similar_by_word``,
    ``similar_by_key``, ``similar_by_vector``, ``closer_than`` and ``rank``); the others
    (``similarity``, ``doesnt_match``, ``relative_cosine_similarity``, ``get_mean_vector``,
    ``vectors_for_all``, ``wmdistance``, ...) are gensim's. The embgeo methods work on an
    :class:`~embgeo.embeddings.Embeddings` view of the rows, built once (word index, then the
    inverse row norms: n numbers, no copy of ``vectors``) and rebuilt after ``add_vector(s)``, ``kv[key] = v``,
    ``fill_norms(force=True)`` or ``unit_normalize_all``. After writing into ``kv.vectors``
    directly, call ``kv.fill_norms(force=True)`` before similarity queries, as in gensim.

    Examples
    --------
    >>> import numpy as np
    >>> from embgeo import KeyedVectors
    >>> kv = KeyedVectors(3)
    >>> kv.add_vectors(["cat", "dog", "car"], np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 0, 1]]))
    >>> kv.most_similar("cat", topn=1)[0][0]
    'dog'
    >>> kv["cow"] = np.array([0.8, 0.2, 0.0])
    >>> kv.index_to_key
    ['cat', 'dog', 'car', 'cow']
    >>> e = kv.to_embeddings()
    >>> e.most_similar("cat", topn=2) == kv.most_similar("cat", topn=2)
    True
    """

    def __init__(self, vector_size, count=0, dtype=np.float32, mapfile_path=None):
        super().__init__(vector_size, count=count, dtype=dtype, mapfile_path=mapfile_path)

    def get_index(self, key, default=None):
        """Row of ``key`` (an int below ``len(self)`` that is not a key is its own row).

        Parameters
        ----------
        key : str or int
            A key, or a row number.
        default : int, optional
            Returned when ``key`` is absent.

        Returns
        -------
        int
            The row.

        Raises
        ------
        UnknownWordError
            ``key`` is absent and no ``default`` is given (a KeyError, as gensim raises).
        """
        val = self.key_to_index.get(key, -1)
        if val >= 0:
            return val
        if isinstance(key, (int, np.integer)) and 0 <= key < len(self.index_to_key):
            return key
        if default is not None:
            return default
        raise UnknownWordError(key)

    # ----------------------------------------------------------------- mutation
    def add_vector(self, key, vector):
        """gensim's ``add_vector``; cached norms and the embgeo view are dropped.

        gensim keeps its norms, stale; embgeo recomputes them on the next query.

        Parameters
        ----------
        key : str
            The new key (an existing key's vector is replaced).
        vector : array of shape (vector_size,)
            Its vector.

        Returns
        -------
        int
            The key's row.
        """
        self._forget()
        return super().add_vector(key, vector)

    def add_vectors(self, keys, weights, extras=None, replace=False):
        """gensim's ``add_vectors`` (and so ``kv[keys] = weights``); cached norms are dropped.

        gensim keeps its cached norms here, so a query after ``kv["word"] = v`` divides by the old
        norms (or fails on the new length); embgeo recomputes them, and its cached
        :class:`~embgeo.embeddings.Embeddings` view, on the next query.

        Parameters
        ----------
        keys : list of str
            The keys to add.
        weights : array of shape (len(keys), vector_size)
            Their vectors, one row per key.
        extras : dict of str to array, optional
            Per-key attributes (as ``{"count": counts}``), stored with ``set_vecattr``.
        replace : bool, default False
            Overwrite the vectors of keys already present (otherwise they are left as they are).
        """
        self._forget()
        super().add_vectors(keys, weights, extras=extras, replace=replace)

    def fill_norms(self, force=False):
        """gensim's ``fill_norms``; with ``force=True`` the cached embgeo view is rebuilt too.

        Call ``kv.fill_norms(force=True)`` after writing into ``kv.vectors`` directly, as in gensim.

        Parameters
        ----------
        force : bool, default False
            Recompute the norms (and the view) even when they are cached.
        """
        if force:
            self.__dict__.pop("_embgeo_view", None)
        super().fill_norms(force=force)

    def unit_normalize_all(self):
        """gensim's ``unit_normalize_all`` (scales ``vectors`` in place); the view is rebuilt."""
        self.__dict__.pop("_embgeo_view", None)
        super().unit_normalize_all()

    def _forget(self):
        self.norms = None
        self.__dict__.pop("_embgeo_view", None)

    def __getstate__(self):
        # the view is a cache: never pickled by save(), rebuilt after load()
        state = self.__dict__.copy()
        state.pop("_embgeo_view", None)
        return state

    # ------------------------------------------------------------ embgeo view
    def _view(self):
        """The cached :class:`~embgeo.embeddings.Embeddings` view of the rows, or None.

        Built once (the word index, and on the first query the inverse row norms) and reused while
        ``vectors``, ``index_to_key`` and ``key_to_index`` are the same objects of the same sizes;
        mutation through gensim's methods, ``fill_norms(force=True)`` and ``unit_normalize_all``
        drop it. None (the caller then runs gensim's code) when the rows are not an
        Embeddings: no keys, a key that is not a str, unfilled preallocated rows, NaN or inf,
        a dtype other than float32/float64, or a ``key_to_index`` that disagrees with ``index_to_key``.
        """
        vec, words, index = self.vectors, self.index_to_key, self.key_to_index
        n = len(words)
        stamp = (vec, words, index, n, getattr(vec, "shape", None))
        cached = self.__dict__.get("_embgeo_view")
        if cached is not None and len(cached[0]) == len(stamp) and all(
                a is b if k < 3 else a == b for k, (a, b) in enumerate(zip(cached[0], stamp))):
            return cached[1]
        view = self._build_view(vec, words, index, n)
        self.__dict__["_embgeo_view"] = (stamp, view, {})
        return view

    @staticmethod
    def _build_view(vec, words, index, n):
        from .embeddings import Embeddings

        if (n == 0 or not isinstance(vec, np.ndarray) or vec.ndim != 2 or vec.shape[0] < n
                or vec.dtype not in (np.dtype(np.float32), np.dtype(np.float64)) or len(index) != n
                or not all(type(w) is str and index.get(w) == i for i, w in enumerate(words))):
            return None
        try:
            return Embeddings(words, vec[:n])
        except ValueError:
            return None

    def _restricted_keys(self, view, restrict_vocab, case_insensitive):
        """gensim's ``ok_vocab`` of the evaluations: key (upper-cased) -> first row among the first
        ``restrict_vocab`` rows; cached with the view."""
        n_r = len(view) if restrict_vocab is None else max(0, min(int(restrict_vocab), len(view)))
        memo = self.__dict__["_embgeo_view"][2]
        got = memo.get((n_r, bool(case_insensitive)))
        if got is None:
            words = view.words[:n_r]
            if case_insensitive:  # built backwards, so the first row of a key is the one kept
                got = dict(zip(reversed([w.upper() for w in words]), range(n_r - 1, -1, -1)))
            else:
                got = dict(zip(words, range(n_r)))
            memo.clear()  # one restriction at a time: a dict per call pattern is enough
            memo[(n_r, bool(case_insensitive))] = got
        return n_r, got

    # ----------------------------------------------------------------- queries
    def most_similar(self, positive=None, negative=None, topn=10, clip_start=0, clip_end=None,
                     restrict_vocab=None, indexer=None):
        """gensim's ``most_similar``, computed by :meth:`embgeo.Embeddings.most_similar`.

        The semantics and defaults are gensim's (weighted mean of unit vectors, raw vectors as
        given, ``(key, weight)`` tuples, ``topn=None``, ``clip_start``/``clip_end``,
        ``restrict_vocab``); the engine scales one GEMV by cached inverse row norms and selects
        with embgeo's top-k, so a query does not divide the whole matrix by its norms as gensim's does.
        ``similar_by_word``, ``similar_by_key`` and ``similar_by_vector`` call this method.

        Falls back to gensim's own code for an ``indexer`` (e.g. ``AnnoyIndexer``), for
        ``topn`` above 2048 (gensim's full sort is faster there than embgeo's top-k), and when the
        keys and vectors are not an :class:`~embgeo.embeddings.Embeddings` (non-str keys,
        unfilled preallocated rows, NaN/inf rows, float16 vectors).

        Differences: ties go to the lower row, and an all-zero row scores 0 (gensim: NaN).

        Parameters
        ----------
        positive, negative : str, int, vector, (key, weight) tuple, or a list of them, optional
            The entries added to and subtracted from the query.
        topn : int or None, default 10
            How many keys; None gives the cosines to every row of the clipped range as an array.
        clip_start : int, default 0
            First row searched.
        clip_end : int, optional
            End (exclusive) of the rows searched; None means all rows.
        restrict_vocab : int, optional
            Search rows ``0:restrict_vocab`` only (overrides ``clip_start`` and ``clip_end``).
        indexer : object with ``most_similar(vector, topn)``, optional
            An approximate index (e.g. gensim's ``AnnoyIndexer``); gensim's code runs it.

        Returns
        -------
        list of (str, float), or numpy.ndarray when ``topn`` is None
            Keys and cosines, best first.

        Raises
        ------
        UnknownWordError
            A key is absent (a KeyError, as gensim raises).
        ValueError
            No positive or negative entry.

        See Also
        --------
        embgeo.neighbors.most_similar : The implementation.
        most_similar_cosmul : The multiplicative objective.
        """
        # embgeo's top-k engine is built for small k (its cost grows faster than k): a long list
        # is gensim's full sort
        long = isinstance(topn, Integral) and topn > _LONG_TOPN
        view = self._view() if indexer is None and not long else None
        if view is None:
            return super().most_similar(positive, negative, topn=topn, clip_start=clip_start,
                                        clip_end=clip_end, restrict_vocab=restrict_vocab, indexer=indexer)
        return view.most_similar(positive, negative, topn=topn, clip_start=clip_start, clip_end=clip_end,
                                 restrict_vocab=restrict_vocab)

    def most_similar_cosmul(self, positive=None, negative=None, topn=10, restrict_vocab=None):
        """gensim's ``most_similar_cosmul`` (Levy & Goldberg 2014, eq. 4, cosines shifted to [0, 1]
        by their footnote 7, ε = 1e-6 as in gensim) with embgeo's cached inverse row norms.

        Words enter as unit vectors and raw vectors as given, as in gensim; like gensim's,
        ``restrict_vocab`` is accepted and ignored. Falls back to gensim's code for an integer
        row, a ``(key, weight)`` tuple or rows that are not an Embeddings (see :meth:`most_similar`).

        Parameters
        ----------
        positive, negative : str, vector, or a list of them, optional
            The words whose shifted cosines multiply the numerator and the denominator.
        topn : int or None, default 10
            How many keys; None gives the score of every row as an array.
        restrict_vocab : int, optional
            Ignored, as in gensim.

        Returns
        -------
        list of (str, float), or numpy.ndarray when ``topn`` is None
            Keys and 3CosMul scores, best first (input words excluded).

        Raises
        ------
        ValueError
            No positive entry.

        References
        ----------
        O. Levy and Y. Goldberg, "Linguistic regularities in sparse and explicit word
        representations", CoNLL 2014, eq. 4.
        """
        view = self._view()
        pos, neg = _as_list(positive), _as_list(negative)
        if view is None or not all(isinstance(t, (str, np.ndarray)) for t in pos + neg):
            return super().most_similar_cosmul(positive, negative, topn=topn, restrict_vocab=restrict_vocab)
        if isinstance(topn, Integral) and topn < 1:
            return []
        if not pos:
            raise ValueError("cannot compute similarity with no input")
        from .linalg import cached_inverse_norms

        V, inv = view.vectors, cached_inverse_norms(view)
        rows = {view.index(t) for t in pos + neg if isinstance(t, str)}

        def shifted(t):
            # cosines as gensim's unit rows give them, from the raw rows and their inverse norms
            q = V[view.index(t)] * inv[view.index(t)] if isinstance(t, str) else t
            return (1 + (V @ q) * inv) / 2

        num = np.prod([shifted(t) for t in pos], axis=0)
        den = np.prod([shifted(t) for t in neg], axis=0) if neg else 1.0
        dists = num / (den + 0.000001)
        if not topn:
            return dists
        return _top(dists, int(topn), rows, view.words)

    def n_similarity(self, ws1, ws2):
        """gensim's ``n_similarity``: the cosine of the means of the raw vectors of two key lists.

        Keys absent from the vocabulary are ignored, as in gensim. Falls back to gensim's code for
        anything but lists of str keys (ints, vectors) or rows that are not an Embeddings.

        Parameters
        ----------
        ws1, ws2 : list of str
            The two key lists (non-empty).

        Returns
        -------
        float
            The cosine of the two mean vectors.

        Raises
        ------
        ZeroDivisionError
            A list is empty (gensim's error).
        """
        if not (len(ws1) and len(ws2)):
            raise ZeroDivisionError("At least one of the passed list is empty.")
        view = self._view()
        if view is None or not all(isinstance(w, str) for w in list(ws1) + list(ws2)):
            return super().n_similarity(ws1, ws2)
        means = []
        for ws in (ws1, ws2):
            idx = view.indices(list(ws), oov="skip")
            m = view.vectors[idx].mean(axis=0) if idx.size else np.zeros(view.dim, view.dtype)
            nrm = np.linalg.norm(m)
            means.append(m / nrm if nrm else m)
        return np.dot(means[0], means[1])

    def distances(self, word_or_vector, other_words=()):
        """gensim's ``distances``: 1 − cosine from a key or vector to ``other_words`` (default: every row).

        Uses embgeo's cached inverse row norms where gensim recomputes every row's norm on each call.
        Falls back to gensim's code when the rows are not an Embeddings. ``closer_than`` and
        ``rank`` call this method. Difference: an all-zero row is at distance 1 (gensim: NaN).

        Parameters
        ----------
        word_or_vector : str, int or array of shape (vector_size,)
            The key (or row) or vector measured from.
        other_words : sequence of str, optional
            The keys measured to; empty (the default) means every row.

        Returns
        -------
        numpy.ndarray of shape (len(other_words),) or (n_keys,)
            Cosine distances.
        """
        view = self._view()
        if view is None:
            return super().distances(word_or_vector, other_words)
        if isinstance(word_or_vector, (str, int, np.integer)):
            v = self.vectors[self.get_index(word_or_vector)]
        else:
            v = np.asarray(word_or_vector)
        from .linalg import cached_inverse_norms

        V, inv = view.vectors, cached_inverse_norms(view)
        if other_words is not None and len(other_words):
            rows = [self.get_index(w) for w in other_words]
            V, inv = V[rows], inv[rows]
        with np.errstate(invalid="ignore", divide="ignore"):  # a zero query is NaN, as in gensim
            return 1 - (V @ v) * inv / np.linalg.norm(v)

    # -------------------------------------------------------------- evaluation
    def evaluate_word_analogies(self, analogies, restrict_vocab=300000, case_insensitive=True,
                                dummy4unknown=False, similarity_function="most_similar"):
        """gensim's ``evaluate_word_analogies``, answered by embgeo's batched 3CosAdd.

        The file is read as gensim reads it (``: section`` headers, lines that are not 4 words
        skipped), questions are covered when their 4 words are among the first ``restrict_vocab``
        rows (upper-cased with ``case_insensitive``, a key then meaning its first row), and the
        answer is the 3CosAdd nearest word excluding the question words (and their case variants):
        :func:`embgeo.evaluate.analogy.analogy`, one GEMM per batch of questions, where gensim runs
        one ``most_similar`` per question.

        Parameters
        ----------
        analogies : str or path-like
            A file in the word2vec ``questions-words.txt`` format.
        restrict_vocab : int, default 300000
            Only the first ``restrict_vocab`` rows are candidates and cover questions.
        case_insensitive : bool, default True
            Compare upper-cased words (a key then means its first row).
        dummy4unknown : bool, default False
            Count uncovered questions as incorrect in the score (instead of leaving them out).
        similarity_function : str, default "most_similar"
            Ignored, as in gensim.

        Returns
        -------
        score : float
            Correct / evaluated (uncovered questions count as incorrect with ``dummy4unknown``).
        sections : list of dict
            gensim's: ``{"section", "correct", "incorrect"}`` per section (4-tuples, upper-cased
            with ``case_insensitive``), then ``"Total accuracy"``.

        Raises
        ------
        ValueError
            A question before any section header (gensim's error).

        Notes
        -----
        Falls back to gensim's code when the rows are not an Embeddings (see
        :meth:`most_similar`), for fewer than 4 candidate words, or for a file without questions.
        ``similarity_function`` is ignored, as in gensim. gensim excludes case variants of the
        question words among its top 5 only; embgeo excludes them all.
        """
        from gensim import utils as gutils

        from .data import AnalogyQuestions
        from .evaluate.analogy import analogy

        view = self._view()
        n_r = len(self.index_to_key) if restrict_vocab is None else min(int(restrict_vocab), len(self))
        if view is None or n_r < 4:
            return super().evaluate_word_analogies(analogies, restrict_vocab, case_insensitive, dummy4unknown,
                                                   similarity_function)
        names, parts = [], []
        with gutils.open(analogies, "rb") as fin:
            for line_no, raw in enumerate(fin):
                line = gutils.to_unicode(raw)
                if line.startswith(": "):
                    names.append(line.lstrip(": ").strip())
                    parts.append([])
                    continue
                if not names:
                    raise ValueError("Missing section header before line #%i in %s" % (line_no, analogies))
                words = line.split()
                if len(words) != 4:
                    logger.info("Skipping invalid line #%i in %s", line_no, analogies)
                    continue
                parts[-1].append([w.upper() for w in words] if case_insensitive else words)
        if not any(parts):
            return super().evaluate_word_analogies(analogies, restrict_vocab, case_insensitive, dummy4unknown,
                                                   similarity_function)
        # sections keyed by position: gensim keeps two sections of the same name apart
        questions = AnalogyQuestions({str(k): np.array(p, dtype=str).reshape(-1, 4) for k, p in enumerate(parts)},
                                     name=str(analogies))
        res = analogy(view, questions, "3cosadd", restrict_vocab=n_r, case_insensitive=case_insensitive,
                      progress=False)
        pred, words = res.predictions, view.words
        sections, k = [], 0
        oov = 0
        for name, qs in zip(names, parts):
            sec = {"section": name, "correct": [], "incorrect": []}
            for q in qs:
                quad, p = tuple(q), int(pred[k])
                k += 1
                if p < 0:
                    oov += 1
                    if dummy4unknown:
                        sec["incorrect"].append(quad)
                    continue
                got = words[p].upper() if case_insensitive else words[p]
                sec["correct" if got == quad[3] else "incorrect"].append(quad)
            sections.append(sec)
        total = {"section": "Total accuracy",
                 "correct": [q for s in sections for q in s["correct"]],
                 "incorrect": [q for s in sections for q in s["incorrect"]]}
        logger.info("Quadruplets with out-of-vocabulary words: %.1f%%", float(oov) / k * 100)
        score = self._log_evaluate_word_analogies(total)
        sections.append(total)
        return score, sections

    def evaluate_word_pairs(self, pairs, delimiter="\t", encoding="utf8", restrict_vocab=300000,
                            case_insensitive=True, dummy4unknown=False):
        """gensim's ``evaluate_word_pairs``, scored by :func:`embgeo.evaluate.word_similarity`.

        The file is read as gensim reads it (``delimiter``-separated ``word word score`` lines,
        ``#`` comments and invalid lines skipped); a word counts when it is among the first
        ``restrict_vocab`` rows (upper-cased with ``case_insensitive``, a key then meaning its first
        row); pairs with an unknown word are skipped, or scored 0 with ``dummy4unknown`` (embgeo's
        ``oov="zero"``).

        Parameters
        ----------
        pairs : str or path-like
            A file of ``word word score`` lines (WordSim-353's layout).
        delimiter : str, default tab
            The field separator.
        encoding : str, default "utf8"
            The file's encoding.
        restrict_vocab : int, default 300000
            Only the first ``restrict_vocab`` rows count as known.
        case_insensitive : bool, default True
            Compare upper-cased words.
        dummy4unknown : bool, default False
            Score pairs with an unknown word 0 instead of skipping them.

        Returns
        -------
        pearson, spearman : (statistic, pvalue) named tuples
            As scipy's ``pearsonr`` and ``spearmanr`` (``.statistic``, ``.pvalue``, ``[0]``, ``[1]``;
            ``.correlation`` too), where gensim returns scipy's result objects.
        oov_ratio : float
            Percentage of pairs with an unknown word.

        Notes
        -----
        Falls back to gensim's code when the rows are not an Embeddings (see :meth:`most_similar`)
        and when fewer than 3 pairs are covered (gensim then still correlates).
        """
        from gensim import utils as gutils

        from .data import WordPairs
        from .evaluate.similarity import word_similarity

        view = self._view()
        if view is None:
            return super().evaluate_word_pairs(pairs, delimiter, encoding, restrict_vocab, case_insensitive,
                                               dummy4unknown)
        _, ok_vocab = self._restricted_keys(view, restrict_vocab, case_insensitive)
        w1, w2, gold = [], [], []
        oov = 0
        with gutils.open(pairs, encoding=encoding) as fin:
            for line_no, line in enumerate(fin):
                if not line or line.startswith("#"):
                    continue
                try:
                    a, b, sim = [w.upper() for w in line.split(delimiter)] if case_insensitive \
                        else line.split(delimiter)
                    sim = float(sim)
                except (ValueError, TypeError):
                    logger.info("Skipping invalid line #%d in %s", line_no, pairs)
                    continue
                if a not in ok_vocab or b not in ok_vocab:
                    oov += 1
                    if not dummy4unknown:
                        continue
                w1.append(a)
                w2.append(b)
                gold.append(sim)
        if len(gold) - (0 if not dummy4unknown else oov) < 3:
            return super().evaluate_word_pairs(pairs, delimiter, encoding, restrict_vocab, case_insensitive,
                                               dummy4unknown)
        res = word_similarity(_RestrictedKeys(view, ok_vocab), WordPairs(w1, w2, gold, name=str(pairs)),
                              lowercase=False, oov="zero" if dummy4unknown else "skip")
        oov_ratio = float(oov) / (len(gold) if dummy4unknown else len(gold) + oov) * 100  # gensim's rounding
        pearson = Correlation(res.pearson, res.pearson_pvalue)
        spearman = Correlation(res.spearman, res.spearman_pvalue)
        self.log_evaluate_word_pairs(pearson, spearman, oov_ratio, pairs)
        return pearson, spearman, oov_ratio

    # ------------------------------------------------------------------ loading
    @classmethod
    def load_word2vec_format(cls, fname, fvocab=None, binary=False, encoding="utf8", unicode_errors="strict",
                             limit=None, datatype=np.float32, no_header=False):
        """Load a word2vec text or binary file, as gensim's ``load_word2vec_format``.

        With gensim's default options (no ``fvocab``, UTF-8, ``unicode_errors="strict"``, a
        header line, float32 or float64) embgeo's compiled parser reads the file; the vectors are
        bit-identical to gensim's and, as gensim does without a vocabulary file, each word gets
        the made-up ``count`` ``len(kv) - row``. Every other combination, and any file embgeo's
        parser refuses (e.g. a duplicate word, which gensim skips with a warning), goes through
        gensim's own loader, so the result and the errors are gensim's.

        Parameters
        ----------
        fname : str or path
            The file (gzipped or not).
        fvocab : str, optional
            A ``word count`` file: counts become the ``"count"`` attribute.
        binary : bool, default False
            The word2vec binary format (else text).
        encoding : str, default "utf8"
            The words' encoding.
        unicode_errors : {"strict", "replace", "ignore"}, default "strict"
        limit : int, optional
            Read at most this many vectors.
        datatype : NumPy dtype, default float32
            The vectors' dtype in memory.
        no_header : bool, default False
            The text file has no ``n_words dim`` first line (text only).

        Returns
        -------
        KeyedVectors
        """
        fast = (fvocab is None and not no_header and unicode_errors == "strict"
                and str(encoding).lower().replace("-", "").replace("_", "") == "utf8"
                and np.dtype(datatype) in (np.dtype(np.float32), np.dtype(np.float64))
                and (limit is None or int(limit) > 0)
                and os.path.isfile(fname) and not str(fname).endswith((".bz2", ".xz", ".zst")))
        if fast:
            from .io import FormatError, load

            try:
                e = load(fname, limit=limit, dtype=np.dtype(datatype).name,
                         format="word2vec_binary" if binary else "word2vec", progress=False)
            except FormatError:
                pass  # gensim accepts some files embgeo refuses; let gensim decide
            else:
                kv = cls._adopt(list(e.words), _owned_writable(e.vectors))
                n = len(kv.index_to_key)
                kv.expandos["count"] = np.arange(n, 0, -1, dtype=np.int64)
                kv.add_lifecycle_event(
                    "load_word2vec_format",
                    msg=f"loaded {kv.vectors.shape} matrix of type {kv.vectors.dtype} from {fname}",
                    binary=binary, encoding=encoding,
                )
                return kv
        return super().load_word2vec_format(
            fname, fvocab=fvocab, binary=binary, encoding=encoding, unicode_errors=unicode_errors,
            limit=limit, datatype=datatype, no_header=no_header,
        )

    @classmethod
    def load(cls, fname, mmap=None):
        """Load a KeyedVectors pickled by ``save`` (embgeo's or gensim's, old versions included).

        A plain gensim ``KeyedVectors`` comes back as this class; other gensim objects (a whole
        ``Word2Vec`` model, ``FastTextKeyedVectors``) come back as they are.

        Parameters
        ----------
        fname : str or path-like
            The file written by ``save``.
        mmap : {None, "r", "r+"}, optional
            Memory-map the large arrays (as :func:`numpy.load`'s ``mmap_mode``).

        Returns
        -------
        KeyedVectors or the gensim object stored
            What the file holds.

        Warnings
        --------
        The file is a pickle: loading it runs whatever code the file names, as gensim's own
        ``load`` does. Load only files you trust as you would trust a program; vectors from
        elsewhere are safe to read in the word2vec formats (:meth:`load_word2vec_format`).
        """
        obj = super().load(fname, mmap=mmap)
        if type(obj) is GensimKeyedVectors:
            new = cls.__new__(cls)
            new.__dict__.update(obj.__dict__)
            obj = new
        return obj

    # ------------------------------------------------------------- Embeddings
    @classmethod
    def _adopt(cls, words, vectors):
        kv = cls(vectors.shape[1], 0, dtype=vectors.dtype)
        kv.index_to_key = words
        kv.key_to_index = {w: i for i, w in enumerate(words)}
        kv.vectors = vectors
        kv.next_index = len(words)
        return kv

    @classmethod
    def from_embeddings(cls, e) -> "KeyedVectors":
        """A KeyedVectors holding a copy of ``e``'s words, vectors (on CPU) and counts.

        Parameters
        ----------
        e : Embeddings
            The embeddings copied.

        Returns
        -------
        KeyedVectors
            A mutable copy (counts as the ``"count"`` attribute).

        See Also
        --------
        to_embeddings : The way back.

        Examples
        --------
        >>> import numpy as np
        >>> from embgeo import Embeddings, KeyedVectors
        >>> kv = KeyedVectors.from_embeddings(Embeddings(["a", "b"], np.eye(2), counts=[7, 3]))
        >>> int(kv.get_vecattr("b", "count")), kv.vectors.flags.writeable
        (3, True)
        """
        from . import backend as xb

        kv = cls._adopt(list(e.words), np.array(xb.to_numpy(e.vectors), copy=True))
        if e.counts is not None:
            kv.expandos["count"] = np.asarray(e.counts, dtype=np.int64).copy()
        return kv

    def to_embeddings(self, copy: bool = False):
        """An :class:`~embgeo.embeddings.Embeddings` of the current words, vectors and counts.

        Parameters
        ----------
        copy : bool, default False
            Without a copy the Embeddings shares this object's vector memory (read-only on its
            side): it assumes the rows do not change, so do not edit this KeyedVectors in place
            while you use it, or pass ``copy=True``. Adding keys replaces ``kv.vectors`` with a new
            array and leaves an earlier Embeddings untouched.

        Returns
        -------
        Embeddings
            The words, vectors and counts (``"count"`` attribute) of the filled rows.

        Raises
        ------
        ValueError
            Preallocated rows not yet filled, or what :class:`Embeddings` refuses (NaN, ...).

        Examples
        --------
        >>> import numpy as np
        >>> kv = KeyedVectors(2)
        >>> kv.add_vectors(["a", "b"], np.eye(2))
        >>> e = kv.to_embeddings()
        >>> e.words, np.shares_memory(e.vectors, kv.vectors), e.vectors.flags.writeable
        (['a', 'b'], True, False)
        """
        from .embeddings import Embeddings

        n = len(self.index_to_key)
        if self.next_index < n and any(k is None for k in self.index_to_key[self.next_index:]):
            raise ValueError(f"only {self.next_index} of the {n} preallocated rows hold a key")
        vectors = self.vectors[:n]
        counts = None
        c = self.expandos.get("count")
        if c is not None and len(c) == n and c.dtype.kind in "iuf":
            counts = c.copy()
        return Embeddings(self.index_to_key, np.array(vectors, copy=True) if copy else vectors, counts)


class Correlation(NamedTuple):
    """A correlation and its two-sided p-value, indexable as scipy's results are (``r[0]``, ``r[1]``).

    Parameters
    ----------
    statistic : float
        The correlation coefficient.
    pvalue : float
        Its two-sided p-value.
    """

    statistic: float
    pvalue: float

    @property
    def correlation(self) -> float:
        """scipy's older name of ``statistic``."""
        return self.statistic


class _RestrictedKeys:
    """The keys as gensim's evaluations see them (restricted, maybe upper-cased): the model protocol
    of :func:`embgeo.evaluate.word_similarity`, scored on the rows of an Embeddings."""

    def __init__(self, view, keys):
        self.view, self.keys = view, keys

    def __contains__(self, key):
        return key in self.keys

    def similarity_pairs(self, words1, words2, measure=None):
        w = self.view.words
        return self.view.similarity_pairs([w[self.keys[a]] for a in words1], [w[self.keys[b]] for b in words2],
                                          measure=measure)


def _as_list(value):
    """gensim's reading of a single key or vector as a one-entry list."""
    if value is None:
        return []
    if isinstance(value, (str, int, np.integer)) or (isinstance(value, np.ndarray) and value.ndim == 1):
        return [value]
    if isinstance(value, np.ndarray) and value.ndim == 2:
        return list(value)
    return list(value)


def _top(scores, topn, exclude, words):
    """The ``topn`` best (word, score) pairs, best first, ties to the lower row, ``exclude`` rows left out."""
    k = min(topn + len(exclude), scores.shape[0])
    cand = np.argpartition(-scores, k - 1)[:k] if k < scores.shape[0] else np.arange(scores.shape[0])
    cand = cand[np.lexsort((cand, -scores[cand]))]
    return [(words[i], float(scores[i])) for i in cand.tolist() if i not in exclude][:topn]


def _owned_writable(a: np.ndarray) -> np.ndarray:
    """The writable array behind a read-only view that we alone hold (no copy), else a copy."""
    base = a.base
    if (type(base) is np.ndarray and base.flags.writeable and base.flags.owndata
            and base.shape == a.shape and base.dtype == a.dtype and base.ctypes.data == a.ctypes.data):
        return base
    return np.array(a, copy=True)
