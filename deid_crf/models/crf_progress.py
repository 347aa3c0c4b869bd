"""The CRFsuite trainer that reports L-BFGS iterations on a progress bar: a module of
its own so that tagging, which never trains, does not import pycrfsuite."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pycrfsuite

if TYPE_CHECKING:
    from tqdm import tqdm


class ProgressTrainer(pycrfsuite.Trainer):
    """CRFsuite trainer that reports L-BFGS iterations on a progress bar."""

    progress: tqdm | None = None

    def message(self, message: str) -> None:
        # CRFsuite's own log goes to the parser only (not to stdout); each finished
        # iteration advances the bar.
        if self.logparser.feed(message) == "iteration" and self.progress is not None:
            info = self.logparser.last_iteration
            self.progress.update(1)
            self.progress.set_postfix(loss=f"{info.get('loss', 0):.0f}", refresh=False)
