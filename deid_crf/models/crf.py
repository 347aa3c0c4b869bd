"""Linear-chain CRF over CRFsuite attribute strings, as a scikit-learn estimator.

sklearn-crfsuite (which imports scikit-learn) trains the model; a loaded model opens
it only when asked to tag attribute strings, since the numpy decoder reads the model
file itself (:class:`~deid_crf.models.crf_decode.CRFWeights`).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import asdict
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING

from deid_crf.config import CRFConfig, documents, from_params
from deid_crf.estimator import Estimator, check_is_fitted
from deid_crf.models.crf_decode import CRFWeights
from deid_crf.models.crfsuite_file import check_model_file

if TYPE_CHECKING:
    import sklearn_crfsuite

MODEL_FILE = "model.crfsuite"


@documents(CRFConfig)
class CRFModel(Estimator):
    """Sequence labeller: ``fit(X, y)`` on lists of sentences, where a sentence is a
    list of tokens and a token a list of attribute strings; ``predict(X)`` returns
    label lists. Trained with CRFsuite's L-BFGS through sklearn-crfsuite.

    Parameters
    ----------
    {CRFConfig}
    verbose : bool, default=False
        Show the L-BFGS iterations of ``fit`` on a progress bar.

    Attributes
    ----------
    crf_ : sklearn_crfsuite.CRF
        The trained CRF (its model file is CRFsuite's own format); for a loaded model,
        opened on first use.
    classes_ : list of str
        The labels the CRF can predict.
    """

    def __init__(
        self,
        c1: float = CRFConfig.c1,
        c2: float = CRFConfig.c2,
        max_iterations: int = CRFConfig.max_iterations,
        all_possible_transitions: bool = CRFConfig.all_possible_transitions,
        min_freq: int = CRFConfig.min_freq,
        verbose: bool = False,
    ):
        self.c1 = c1
        self.c2 = c2
        self.max_iterations = max_iterations
        self.all_possible_transitions = all_possible_transitions
        self.min_freq = min_freq
        self.verbose = verbose

    def _check_params(self) -> None:
        """Refuse hyper-parameters CRFsuite cannot train with, before any work."""
        for name, low in (("c1", 0), ("c2", 0), ("max_iterations", 1), ("min_freq", 0)):
            value = getattr(self, name)
            if not isinstance(value, Real) or not value >= low:
                raise ValueError(f"{name} must be a number >= {low}, not {value!r}")

    def fit(self, X: Sequence, y: Sequence) -> CRFModel:
        """Learn from the sentences ``X`` and their label sequences ``y``."""
        self._check_params()
        if len(X) != len(y):
            raise ValueError(f"{len(X)} sequences but {len(y)} label sequences")
        import sklearn_crfsuite
        from tqdm.auto import tqdm

        # CRFConfig's fields are named as sklearn-crfsuite's options.
        options = asdict(from_params(CRFConfig, self.get_params(deep=False)))
        from deid_crf.models.crf_progress import ProgressTrainer as trainer

        crf = sklearn_crfsuite.CRF(algorithm="lbfgs", **options, trainer_cls=trainer)
        trainer.progress = tqdm(
            total=self.max_iterations,
            desc="CRF L-BFGS",
            unit="it",
            disable=not self.verbose,
            leave=False,
            mininterval=2,
        )
        try:
            crf.fit(X, y)
        finally:
            trainer.progress.close()
            trainer.progress = None
        self.crf_ = crf
        self.classes_ = list(crf.classes_)
        self._path = None
        self._weights = None
        return self

    def __getattr__(self, name: str) -> sklearn_crfsuite.CRF:
        # A loaded model has no ``crf_`` until something asks for it (tagging does not).
        path = self.__dict__.get("_path")
        if name != "crf_" or path is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        import sklearn_crfsuite

        self.crf_ = sklearn_crfsuite.CRF(model_filename=path)
        return self.crf_

    def _model_file(self) -> str:
        """CRFsuite's model file: the one loaded, or the one training wrote."""
        return self._path if self._path is not None else self.crf_.modelfile.name

    def predict(self, X: Sequence) -> list[list[str]]:
        """The label sequence of each sentence of ``X``."""
        check_is_fitted(self)
        tagger = self.crf_.tagger_
        return [tagger.tag(xseq) for xseq in X]

    def weights(self) -> CRFWeights:
        """The trained weights as arrays, for the numpy decoder of :mod:`deid_crf.models.crf_decode`
        (read from CRFsuite on first use, then kept: tagging workers receive them with
        the model instead of each reading them again)."""
        check_is_fitted(self)
        if getattr(self, "_weights", None) is None:
            self._weights = CRFWeights.from_file(self._model_file())
        return self._weights

    def predict_marginals(self, X: Sequence) -> list[list[dict[str, float]]]:
        """Per-token label probabilities."""
        check_is_fitted(self)
        return list(self.crf_.predict_marginals(X))

    def save(self, directory: str | Path) -> None:
        """Copy CRFsuite's own model file into ``directory``."""
        check_is_fitted(self)
        shutil.copyfile(self._model_file(), Path(directory) / MODEL_FILE)

    @classmethod
    def load(cls, directory: str | Path, **params) -> CRFModel:
        """Read a CRFsuite model file saved by :meth:`save` (no pickle involved);
        ``ValueError`` naming it if it is not one."""
        path = Path(directory) / MODEL_FILE
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no CRF model file")
        model = cls(**params)
        check_model_file(path)  # CRFsuite's reader trusts every offset in the file
        model._path = str(path)
        model._weights = CRFWeights.from_file(path)
        model.classes_ = list(model._weights.labels)
        return model
