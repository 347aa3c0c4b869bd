"""The rule layer's first-use builds, done before workers are forked."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from deid_crf.deid import recognizers, rules


def test_prepare_builds_everything_the_recognizers_build_on_first_use():
    # A table or pattern a recognizer builds on first use (a cached function of no
    # arguments) that prepare() forgot would be built again in every forked worker.
    lazy = []
    for info in pkgutil.iter_modules(recognizers.__path__):
        module = importlib.import_module(f"{recognizers.__name__}.{info.name}")
        for value in vars(module).values():
            if hasattr(value, "cache_info") and getattr(value, "__module__", None) == module.__name__:
                if not inspect.signature(value).parameters:
                    lazy.append(value)
    assert len(lazy) >= 8
    for build in lazy:
        build.cache_clear()
    rules.prepare()
    assert [b.__qualname__ for b in lazy if b.cache_info().currsize == 0] == []
