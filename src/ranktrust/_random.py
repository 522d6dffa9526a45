"""The randomness policy: named, independent streams derived from the user's ``rng``.

Every function that draws random numbers takes one ``rng`` (None, an int seed, a
``SeedSequence`` or a ``Generator``). It goes once through :func:`root`, which makes one root
``SeedSequence`` from it; every stream the function needs is then a *named child* of that root,
``SeedSequence(root.entropy, spawn_key=root.spawn_key + keys)``, with the keys derived from the
names (ints as they are, strings by CRC-32). So:

- a stream depends only on the root and its own name, never on which other streams were asked
  for or in what order: adding a report section, a stability size, an mdad method or a trial
  leaves every other section's, size's, method's and trial's numbers unchanged;
- the engine's blocks (``child(root, 0)``, ``child(root, 1)``, ...) equal ``root.spawn(n)``, so
  results do not depend on ``batch``;
- the same ``rng`` gives the same numbers; a ``Generator`` is advanced (four draws per root), so
  passing the same ``Generator`` twice gives fresh streams.

Names used in the package: the report's sections (``"intervals"``, ``"microbench"``; rank sets,
stability and split-half take the report's seed itself, so the CLI command with that seed prints
the same figure), engine blocks (``0, 1, ...``), stability sizes (``"size", n``: never an engine
block's stream, so a report's stability and split-half never share one), mdad trials (``t``) and
trial x method x size (``t, method, k``), the sign-flip test (``"sign-flip"``).
``tests/test_random.py`` checks the invariances.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

__all__ = ["root", "child", "streams", "generator", "key"]


def key(name: int | str) -> int:
    """The spawn key of a stream name: a non-negative int as is, a string by CRC-32 of its UTF-8."""
    if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
        if name < 0:
            raise ValueError(f"a stream key must be a non-negative int or a str, got {name!r}")
        return int(name)
    if isinstance(name, str):
        return zlib.crc32(name.encode("utf-8"))
    raise TypeError(f"a stream key must be a non-negative int or a str, got {type(name).__name__}")


def root(rng: Any) -> np.random.SeedSequence:
    """The root ``SeedSequence`` of ``rng``: four 63-bit words drawn from ``default_rng(rng)``.

    ``rng`` is anything :func:`numpy.random.default_rng` takes (a ``Generator`` is advanced).
    """
    from ._validate import rng as check_rng

    gen = check_rng(rng)
    return np.random.SeedSequence(gen.integers(0, 2**63 - 1, size=4, dtype=np.int64).tolist())


def child(parent: np.random.SeedSequence, *names: int | str) -> np.random.SeedSequence:
    """The stream ``names`` under ``parent`` (pure: whatever ``parent`` spawned before).

    ``child(r, i)`` equals the ``i``-th child of ``r.spawn(n)`` for a fresh ``r``.
    """
    if not isinstance(parent, np.random.SeedSequence):
        raise TypeError(f"`parent` must be a numpy SeedSequence (see root()), got {type(parent).__name__}")
    return np.random.SeedSequence(parent.entropy, spawn_key=tuple(parent.spawn_key) + tuple(key(n) for n in names),
                                  pool_size=parent.pool_size)


def streams(rng: Any, *names: int | str) -> tuple[np.random.SeedSequence, ...]:
    """One independent named stream per name, all from one :func:`root` of ``rng``."""
    r = root(rng)
    return tuple(child(r, n) for n in names)


def generator(rng: Any, *names: int | str) -> np.random.Generator:
    """A ``Generator`` on the stream ``names`` of ``rng``: ``default_rng(child(root(rng), *names))``."""
    return np.random.default_rng(child(root(rng), *names))
