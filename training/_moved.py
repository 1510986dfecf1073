"""Old module names of ``training`` that moved to other packages, still importable with a warning.

Until the 0.2.0 layout, ``training`` held evaluation, the partner-research tools and the apps too.
``import training.evaluate`` (say) now imports :mod:`arena.evaluate` under the old name and warns
(``DeprecationWarning``); ``CHANGELOG.md`` lists the moves. This finder goes away in a later release.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from typing import Any

MOVED = {
    "training.cli": "apps.cli",
    "training.play": "apps.play",
    "training.serve": "apps.serve",
    "training.evaluate": "arena.evaluate",
    "training.eval_report": "arena.report",
    "training.phase_split": "arena.phase_split",
    "training.open_cards": "arena.open_cards",
    "training.five_handed_halves": "arena.five_handed_halves",
    "training.dataset": "partner_lab.dataset",
    "training.partner": "partner_lab.classifier",
    "training.partner_bench": "partner_lab.bench",
    "training.ppo": "training.batched.ppo",
    "training.rollout": "training.batched.rollout",
    "training.train": "training.sb3.train",
    "training.sb3_files": "training.sb3.files",
    "training.envs": "training.sb3.envs",
}
"""Old module name -> the module it now is."""


class _Alias(importlib.abc.Loader):
    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: Any) -> Any:
        warnings.warn(f"{spec.name} moved to {self.new}; import it from there", DeprecationWarning, stacklevel=2)
        return importlib.import_module(self.new)

    def exec_module(self, module: Any) -> None:  # the new module is already executed
        pass


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        new = MOVED.get(fullname)
        return None if new is None else importlib.util.spec_from_loader(fullname, _Alias(new))


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
