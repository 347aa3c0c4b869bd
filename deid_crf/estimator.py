"""scikit-learn's estimator conventions without importing scikit-learn.

Importing scikit-learn takes most of a second (it loads much of SciPy), which a
command that tags one note cannot afford, and tagging needs none of it. The estimators
of this package (the taggers, the CRF sequence model, the POS tagger) therefore derive
from :class:`Estimator`, which gives them what ``sklearn.base.BaseEstimator`` would:
``get_params``/``set_params`` read from the ``__init__`` signature (nested
``component__parameter`` names included), a ``repr`` of the parameters that differ
from their defaults, and scikit-learn's default tags. ``clone``, ``GridSearchCV``,
``cross_validate`` and ``Pipeline`` take them as they take scikit-learn's own
(``tests/test_estimators.py`` runs scikit-learn's checks); scikit-learn is imported only
when it asks for the tags, or to raise its ``NotFittedError``
(:func:`check_is_fitted`).
"""

from __future__ import annotations

import inspect
from typing import Any, Self


class Estimator:
    """Base of the estimators: parameters are the ``__init__`` arguments, stored
    unchanged as attributes of the same name; learned state goes in attributes ending
    in ``_``."""

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """The names of the ``__init__`` parameters, sorted."""
        if cls.__init__ is object.__init__:
            return []
        names = []
        for parameter in inspect.signature(cls.__init__).parameters.values():
            if parameter.kind == parameter.VAR_POSITIONAL:
                raise RuntimeError(f"{cls.__name__}.__init__ must name its parameters (no *args)")
            if parameter.name != "self" and parameter.kind != parameter.VAR_KEYWORD:
                names.append(parameter.name)
        return sorted(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The parameters of this estimator (``deep``: and of the estimators among them,
        as ``name__parameter``)."""
        params: dict[str, Any] = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                params.update((f"{name}__{key}", inner) for key, inner in value.get_params().items())
            params[name] = value
        return params

    def set_params(self, **params: Any) -> Self:
        """Set parameters (``name__parameter`` for those of an inner estimator)."""
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, nested_key, inner = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {self}. "
                    f"Valid parameters are: {self._get_param_names()!r}."
                )
            if nested_key:
                nested.setdefault(name, {})[inner] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, inner_params in nested.items():
            valid[name].set_params(**inner_params)
        return self

    def __repr__(self) -> str:
        defaults = {p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = [
            f"{name}={value!r}"
            for name, value in self.get_params(deep=False).items()
            if not _is_default(value, defaults.get(name, inspect.Parameter.empty))
        ]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __sklearn_tags__(self):
        """scikit-learn's default tags (asked for by scikit-learn only, which is then loaded)."""
        from sklearn.utils import Tags, TargetTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=None,
            regressor_tags=None,
            classifier_tags=None,
        )


def _is_default(value: Any, default: Any) -> bool:
    if value is default:
        return True
    try:
        return bool(type(value) is type(default) and value == default)
    except (TypeError, ValueError):  # e.g. arrays, whose == is element-wise
        return False


def is_fitted(estimator: Any) -> bool:
    """Whether ``estimator`` has learned state: an attribute ending in ``_`` (not ``__``)."""
    return any(name.endswith("_") and not name.startswith("__") for name in vars(estimator))


def check_is_fitted(estimator: Any) -> None:
    """Raise scikit-learn's ``NotFittedError`` unless ``estimator`` is fitted."""
    if not is_fitted(estimator):
        from sklearn.exceptions import NotFittedError

        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator."
        )
