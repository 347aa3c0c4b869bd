"""scikit-learn conventions of every estimator: the CRF tagger, the window SVM tagger,
the CRF sequence model and the POS tagger.

scikit-learn's ``estimator_checks`` that do not fit are run as they are. Those that
fit (``check_estimators_overwrite_params``, ``check_dont_overwrite_parameters``,
``check_fit_check_is_fitted``, ``check_estimators_pickle``, ``check_fit2d_*``…) build
numeric ``X``/``y`` with ``make_blobs`` and the like, which none of these estimators
takes (their samples are documents, sentences of attribute strings, or tagged
sentences): :func:`test_fit_sets_only_learned_attributes_and_leaves_params_alone`
does what the first three check, on each estimator's own kind of sample.
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import fields

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import estimator_checks
from sklearn.utils.validation import check_is_fitted

from deid_crf.config import CRFConfig, POSConfig, SVMConfig, from_params
from deid_crf.models import DeidTagger, WindowSVMTagger
from deid_crf.models.crf import CRFModel
from deid_crf.resources.pos import PosTagger
from deid_crf.resources.pos_data import TaggedSentence
from deid_crf.text.document import Document
from deid_crf.text.tokenizer import tokenize

ESTIMATORS = [
    DeidTagger(max_iterations=5),
    WindowSVMTagger(n_features=2**12),
    CRFModel(max_iterations=5),
    PosTagger(n_features=2**12),
]
IDS = [type(e).__name__ for e in ESTIMATORS]
TAGGERS = [e for e in ESTIMATORS if isinstance(e, (DeidTagger, WindowSVMTagger))]

# The checks of sklearn.utils.estimator_checks that need no numeric data.
SKLEARN_CHECKS = [
    estimator_checks.check_estimator_cloneable,
    estimator_checks.check_estimator_repr,
    estimator_checks.check_no_attributes_set_in_init,
    estimator_checks.check_get_params_invariance,
    estimator_checks.check_set_params,
    estimator_checks.check_parameters_default_constructible,
    estimator_checks.check_do_not_raise_errors_in_init_or_set_params,
    # Calls predict with numeric X before fit: NotFittedError comes before input checks.
    estimator_checks.check_estimators_unfitted,
    estimator_checks.check_mixin_order,
    estimator_checks.check_estimator_tags_renamed,
    estimator_checks.check_valid_tag_types,
]


@pytest.mark.parametrize("check", SKLEARN_CHECKS, ids=[c.__name__ for c in SKLEARN_CHECKS])
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_sklearn_estimator_checks(estimator, check):
    check(type(estimator).__name__, estimator)


def training_data(estimator, tiny_corpus: list[Document], pos_sentences: list[TaggedSentence]) -> tuple:
    """A few samples of the kind ``estimator.fit`` takes, as positional arguments."""
    if isinstance(estimator, PosTagger):
        return (pos_sentences[:20],)
    if isinstance(estimator, CRFModel):
        features, labels = DeidTagger().featurize(tiny_corpus)
        token_labels = labels.tolist()
        return features.crf_items(), [token_labels[a:b] for a, b in features.sent_bounds.tolist()]
    return (tiny_corpus,)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_fit_sets_only_learned_attributes_and_leaves_params_alone(estimator, tiny_corpus, pos_sentences):
    estimator = clone(estimator)
    with pytest.raises(NotFittedError):
        check_is_fitted(estimator)
    params = estimator.get_params()
    hashes = {name: joblib.hash(value) for name, value in params.items()}
    before = dict(vars(estimator))
    assert estimator.fit(*training_data(estimator, tiny_corpus, pos_sentences)) is estimator
    check_is_fitted(estimator)
    after = estimator.get_params()
    assert {name: joblib.hash(value) for name, value in after.items()} == hashes
    added = set(vars(estimator)) - set(before)
    assert all(name.endswith("_") or name.startswith("_") for name in added), added
    assert all(vars(estimator)[name] is value for name, value in before.items())


@pytest.mark.parametrize("estimator", TAGGERS, ids=[type(e).__name__ for e in TAGGERS])
def test_taggers_refuse_to_work_before_fit(estimator, tiny_corpus, tmp_path):
    estimator = clone(estimator)
    for call in (
        lambda: estimator.predict(tiny_corpus),
        lambda: estimator.score(tiny_corpus),
        lambda: estimator.tag_texts(["Nombre: Ana."]),
        lambda: estimator.tag_texts([]),
        lambda: estimator.tag_texts_with_confidence(["Nombre: Ana."]),
        lambda: estimator.save(tmp_path / "model"),
    ):
        with pytest.raises(NotFittedError):
            call()
    assert not (tmp_path / "model").exists()


def test_crf_model_and_pos_tagger_refuse_to_work_before_fit(tmp_path):
    crf = CRFModel()
    for call in (lambda: crf.predict([[["w=ana"]]]), crf.weights, lambda: crf.predict_marginals([[["w=ana"]]])):
        with pytest.raises(NotFittedError):
            call()
    with pytest.raises(NotFittedError):
        crf.save(tmp_path)
    pos = PosTagger()
    for call in (
        lambda: pos.predict([["El", "dolor"]]),
        lambda: pos.predict_table(tokenize(["El dolor."])),
        lambda: pos.save(tmp_path / "pos"),
    ):
        with pytest.raises(NotFittedError):
            call()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_clone_and_params_round_trip(estimator):
    params = estimator.get_params()
    copy = clone(estimator)
    assert copy is not estimator and copy.get_params() == params
    assert copy.set_params(**params) is copy and copy.get_params() == params
    name = "max_iter" if "max_iter" in params else "max_iterations"
    copy.set_params(**{name: 7})
    assert copy.get_params()[name] == 7 and estimator.get_params()[name] == params[name]
    assert type(estimator)(**params).get_params() == params


def test_hyper_parameter_defaults_come_from_the_configs():
    assert DeidTagger().crf_config() == CRFConfig()
    assert from_params(CRFConfig, CRFModel().get_params()) == CRFConfig()
    assert from_params(SVMConfig, WindowSVMTagger().get_params()) == SVMConfig()
    assert from_params(POSConfig, PosTagger().get_params()) == POSConfig()
    assert DeidTagger(c1=0.5, min_freq=2).crf_config() == CRFConfig(c1=0.5, min_freq=2)


def documented(cls: type, section: str) -> dict[str, str]:
    """``name -> "type, default=…"`` of the entries of a numpydoc section of the
    docstring of ``cls``."""
    body = inspect.getdoc(cls).split(f"\n{section}\n{'-' * len(section)}\n", 1)[1]
    body = re.split(r"\n\n\S", body, maxsplit=1)[0]
    return dict(re.findall(r"^(\w+) : (.+)$", body, flags=re.MULTILINE))


def default_value(shown: str) -> object:
    """The value a docstring shows as a default: a literal, or a power of two as ``2**k``."""
    power = re.fullmatch(r"2\*\*(\d+)", shown)
    return 2 ** int(power.group(1)) if power else ast.literal_eval(shown)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_every_hyper_parameter_is_documented_with_its_default(estimator):
    cls = type(estimator)
    entries = documented(cls, "Parameters")
    init = inspect.signature(cls.__init__).parameters
    assert list(entries) == [name for name in init if name != "self"]
    for name, entry in entries.items():
        default = init[name].default
        shown = re.search(r"default=(.+)$", entry).group(1)
        assert default_value(shown) == default and type(default_value(shown)) is type(default), (name, shown)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=IDS)
def test_every_learned_attribute_is_documented(estimator, tiny_corpus, pos_sentences):
    fitted = clone(estimator).fit(*training_data(estimator, tiny_corpus, pos_sentences))
    learned = {name for name in vars(fitted) if name.endswith("_") and not name.startswith("_")}
    assert learned == set(documented(type(estimator), "Attributes"))


def test_every_config_field_has_a_meaning():
    for config in (CRFConfig, SVMConfig, POSConfig):
        for field in fields(config):
            assert field.metadata.get("doc"), f"{config.__name__}.{field.name}"


@pytest.mark.parametrize("estimator", TAGGERS, ids=[type(e).__name__ for e in TAGGERS])
def test_inputs_are_checked_at_the_edge(estimator, tiny_corpus, fake_phi):
    fitted = clone(estimator).fit(tiny_corpus)
    text = tiny_corpus[0].text
    for call, message in (
        (lambda: fitted.predict(text), "X must be a sequence of Document, not str"),
        (lambda: fitted.predict(tiny_corpus[0]), "X must be a sequence of Document, not Document"),
        (lambda: fitted.predict([tiny_corpus[0], text]), r"X\[1\] is a str, not a Document"),
        (lambda: fitted.score([text]), r"X\[0\] is a str, not a Document"),
        (lambda: fitted.tag_texts(text), "texts must be a sequence of str, not str"),
        (lambda: fitted.tag_texts([text, None]), r"texts\[1\] is a NoneType, not a str"),
        (lambda: fitted.tag_texts_with_confidence([b"NHC"]), r"texts\[0\] is a bytes, not a str"),
        (lambda: clone(estimator).fit([text]), r"X\[0\] is a str, not a Document"),
        (lambda: clone(estimator).fit(42), "X must be a sequence of Document, not int"),
    ):
        with pytest.raises(TypeError, match=message) as error:
            call()
        assert not any(name in str(error.value) for name in fake_phi)
    with pytest.raises(ValueError, match="empty"):
        clone(estimator).fit([])
    expected = fitted.predict(tiny_corpus[:2])
    for samples in (tuple(tiny_corpus[:2]), iter(tiny_corpus[:2]), np.array(tiny_corpus[:2], dtype=object)):
        assert fitted.predict(samples) == expected
    assert fitted.tag_texts(d.text for d in tiny_corpus[:2]) == expected


def test_crf_hyper_parameters_are_checked_before_featurizing(tiny_corpus):
    for params, message in (({"c1": -1.0}, "c1 must be"), ({"max_iterations": 0}, "max_iterations must be")):
        with pytest.raises(ValueError, match=message):
            DeidTagger(**params).fit(tiny_corpus)
