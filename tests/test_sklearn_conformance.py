"""scikit-learn's estimator checks on embgeo's estimators (issue 28, item 6).

Both estimators declare what they are through ``__sklearn_tags__``:

* :class:`~embgeo.crosslingual.Mapper` is a transformer fitted on two spaces: ``fit(src, tgt)``
  with ``src`` as X and the target space ``tgt`` as a required, multi-output (2-D) y. Configured
  so that it needs no seed dictionary (``Initialization("unsupervised")``), it runs scikit-learn's whole
  check suite; :data:`MAPPER_EXPECTED_FAILURES` lists, with the reason, each check that cannot
  apply to it.
* :class:`~embgeo.meta.GeometricMetaEmbedding` is an unsupervised transformer whose input is a
  *list* of aligned sources, not one 2-D array (``input_tags.two_d_array`` is False), so
  scikit-learn runs none of its array checks on it; :data:`GME_API_CHECKS` runs the checks of
  the estimator API that do not fit on one array, and the tests below check its fitted state.
"""
import numpy as np
import pytest
from sklearn.base import is_regressor
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import (
    check_do_not_raise_errors_in_init_or_set_params, check_estimator_cloneable, check_estimator_repr,
    check_estimator_tags_renamed, check_get_params_invariance, check_mixin_order, check_no_attributes_set_in_init,
    check_parameters_default_constructible, check_set_params, check_transformers_unfitted, check_valid_tag_types,
    parametrize_with_checks)

from embgeo.crosslingual import Induction, Initialization, Mapper, Mapping, MultilingualMapper, Preprocessing
from embgeo.meta import GeometricMetaEmbedding

#: Checks that cannot apply to a Mapper, and why.
_ONE_D_Y = ("passes a 1-D label vector as y; the target space tgt is a 2-D matrix (these transformer "
            "checks do not reshape y for a multi-output-only estimator)")
MAPPER_EXPECTED_FAILURES = {
    "check_fit_score_takes_y": "fit's second argument is the target space, named tgt (VecMap's and MUSE's name), "
                               "not y",
    "check_complex_data": _ONE_D_Y,
    "check_transformer_general": _ONE_D_Y,
    "check_transformer_preserve_dtypes": _ONE_D_Y,
    "check_transformer_n_iter": _ONE_D_Y,
    "check_estimators_empty_data_messages": "embgeo's message names the argument and shape ('src is empty "
                                            "(shape (12, 0))'), not scikit-learn's wording",
    "check_fit2d_predict1d": "embgeo's message says 'src must be 2-D (n_words, dim)', not 'Reshape your data'",
    "check_transformer_data_not_an_array": "embgeo takes NumPy, CuPy or array-API arrays (or Embeddings), not "
                                           "arbitrary array-likes",
}


def _seedless_mapper():
    """A Mapper that fits on two arrays alone (fully unsupervised initialisation, plain Procrustes)."""
    return Mapper(Preprocessing(()), initialization=Initialization("unsupervised"), mapping=Mapping("orthogonal"),
                  progress=False)


@parametrize_with_checks([_seedless_mapper()], expected_failed_checks=lambda est: MAPPER_EXPECTED_FAILURES)
def test_mapper_passes_every_scikit_learn_check_that_applies(estimator, check):
    check(estimator)


def test_mapper_declares_a_transformer_with_a_required_two_d_target():
    tags = get_tags(Mapper())
    assert tags.transformer_tags is not None and tags.target_tags.required
    assert tags.target_tags.multi_output and not tags.target_tags.single_output
    assert tags.estimator_type is None and not is_regressor(Mapper())


GME_API_CHECKS = [check_estimator_cloneable, check_estimator_tags_renamed, check_valid_tag_types,
                  check_estimator_repr, check_no_attributes_set_in_init, check_mixin_order,
                  check_do_not_raise_errors_in_init_or_set_params, check_parameters_default_constructible,
                  check_get_params_invariance, check_set_params, check_transformers_unfitted]


@pytest.mark.parametrize("check", GME_API_CHECKS, ids=lambda c: c.__name__)
def test_meta_embedding_passes_the_scikit_learn_api_checks(check):
    check("GeometricMetaEmbedding", GeometricMetaEmbedding(progress=False))


def test_meta_embedding_declares_list_input_and_counts_its_features(rng):
    tags = get_tags(GeometricMetaEmbedding())
    assert not tags.input_tags.two_d_array and tags.transformer_tags is not None
    assert not tags.target_tags.required
    X, Z = rng.standard_normal((80, 4)), rng.standard_normal((80, 6))
    gme = GeometricMetaEmbedding(max_iter=5, progress=False)
    assert gme.fit([X, Z]) is gme
    assert gme.n_features_in_ == 10 and gme.source_dims_ == [4, 6]
    for dtype in (np.float32, np.float64):  # transformer_tags.preserves_dtype
        assert gme.transform([X.astype(dtype), Z.astype(dtype)]).dtype == dtype


# ------------------------------------------------------------ today's scikit-learn conventions
@pytest.mark.parametrize("cls, first", [(Mapper, Preprocessing(("unit",))), (GeometricMetaEmbedding, 1.0)])
def test_hyper_parameters_after_the_first_are_keyword_only(cls, first):
    cls(first)
    with pytest.raises(TypeError, match="positional"):
        cls(first, True)


@pytest.mark.parametrize("cls, bad", [(Induction, dict(direction="sideways")), (Mapper, dict(max_iter=-1)),
                                      (Induction, dict(stochastic_initial=0.0)), (Mapper, dict(verbose="yes")),
                                      (Mapper, dict(induction="csls")),
                                      (GeometricMetaEmbedding, dict(tol=-1.0)),
                                      (GeometricMetaEmbedding, dict(init="pca"))])
def test_parameters_are_validated_from_the_declared_constraints(cls, bad):
    from sklearn.utils._param_validation import InvalidParameterError

    name = next(iter(bad))
    assert name in cls._parameter_constraints
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of {cls.__name__}"):
        (cls(**bad) if cls is not Induction else Mapper(induction=cls(**bad)))._validate_params()


def test_mapper_verbose_logs_each_iteration_and_prints_nothing(rng, caplog, capsys):
    import logging

    X = rng.standard_normal((120, 5)).astype(np.float32)
    Z = X @ np.linalg.qr(rng.standard_normal((5, 5)))[0].astype(np.float32)
    seed = np.stack([np.arange(40), np.arange(40)], axis=1)
    kw = dict(self_learning=True, max_iter=2, induction=Induction(stochastic_initial=1.0), progress=False)
    with caplog.at_level(logging.INFO, logger="embgeo.crosslingual"):
        Mapper(verbose=True, **kw).fit(X, Z, seed)
    lines = [r for r in caplog.records if r.name == "embgeo.crosslingual" and r.levelno == logging.INFO]
    assert len(lines) == 2 and "objective" in lines[0].getMessage()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="embgeo.crosslingual"):
        Mapper(**kw).fit(X, Z, seed)
    assert not [r for r in caplog.records if r.levelno >= logging.INFO]
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("check", GME_API_CHECKS, ids=lambda c: c.__name__)
def test_multilingual_mapper_passes_the_scikit_learn_api_checks(check):
    # like GeometricMetaEmbedding, its input is not one 2-D array (a dict of spaces and of dictionaries)
    check("MultilingualMapper", MultilingualMapper(progress=False))


def test_multilingual_mapper_declares_dict_input():
    tags = get_tags(MultilingualMapper())
    assert not tags.input_tags.two_d_array and tags.transformer_tags is not None and not tags.target_tags.required
