"""The one resampling engine of ranktrust: every bootstrap draws its weights here.

API (all keyword options after ``*``; ``scores`` is a complete ``(M, N)`` float array,
models x items; ``rng`` is None, an int or a ``numpy.random.Generator``)::

    resample_means(scores, *, n_resamples, size=None, groups=None, rng=0, batch=None,
                   backend="numpy")   # or "dask": product groups as parallel tasks
        -> ndarray (n_resamples, M)          # each model's mean on each resample
    iter_resample_means(scores, *, n_resamples, size=None, groups=None, rng=0,
                        batch=None, tie_keys=False) -> Iterator[ResampleBatch]
        # the same resamples in batches: ResampleBatch(start, means, keys); ``keys`` are
        # uniform (b, M) numbers for breaking exact ties at random (when tie_keys=True)
    weights(n_items, *, n_resamples, size=None, groups=None, rng=0, dtype=float64)
        -> ndarray (n_resamples, N)          # how often each item is in each resample
    iter_half_means(scores, *, n_splits, rng=0, batch=None)
        -> Iterator[(start, means_a, means_b)]  # random halves: floor(N/2) items vs the rest
    halves(n_items, *, n_splits, rng=0) -> bool ndarray (n_splits, N)   # True = first half
    complete_scores(scores, *, what="scores") -> float64 ndarray (DataError on NaN)
    rank_order(means, keys=None) -> int ndarray (b, M): 1-based ranks, 1 = highest mean
    matrix_input(m) -> MatrixInput(scores, models, group_codes, dropped)
        # from a ScoreMatrix (incomplete: the shared items, recorded in ``dropped``) or array
    choose_path(M, N, size, exact=False) -> "sparse" | "matmul"
    # the hook behind client= (bootstrap blocks, stability replays, split-half):
    product_tasks(scores, *, n_resamples, size, groups, rng, tie_keys, path) -> (tasks, work)
    half_tasks(scores, *, n_splits, rng, tie_keys) -> (tasks, work)
    run_products(tasks, work, *, kernel, post, post_kw, client, progress) -> results in task order
    prepare(scores) -> Prepared  # validated once, reused by several runs (one per size)

Distributed
-----------
Every run is a list of independent *tasks*, one per matrix product of up to 8 blocks,
each carrying its own seeds. ``run_products`` computes them here, one after the other,
or on the workers of a ``dask.distributed`` client (``client=`` on ``resample_means``,
``iter_resample_means``, ``stability``, ``split_half``; see
:mod:`ranktrust.resample._distributed`), optionally reducing each product where it is
computed (``post``: rank counts instead of means). Results come back in task order, so a
run gives the same numbers wherever its tasks ran.

Resampling schemes
------------------
* item bootstrap: ``size`` items (default ``N``; any ``size >= 1``, also ``> N``) drawn
  with replacement, the same draw for every model (shared resamples, so differences and
  ranks are consistent);
* cluster bootstrap: ``groups`` gives an integer group code per item; ``size`` groups
  (default: the number of groups) are drawn with replacement and a resample's mean is
  the total score of the drawn items over their count;
* random halves: a uniformly random ``floor(N/2)``-item subset and its complement.

Determinism
-----------
``rng`` goes once through :func:`ranktrust._random.root` (``numpy.random.default_rng``, then
one root ``SeedSequence``), and block ``k`` of :data:`BLOCK` resamples draws from the named
stream ``child(root, k)`` (the package's randomness policy, :mod:`ranktrust._random`). The streams of a run's
blocks (and their two children each) are hashed together, as :class:`_Stream` records that PCG64 seeds
from: SeedSequence's states, without a ``SeedSequence`` object a stream. Each block draws its indices from its own stream, so the
output for a seed is identical whatever ``batch`` is (``batch`` only sets how many
resamples are yielded together; it is rounded up to whole matrix products of up to
8 blocks, whose size depends on the data shape only).
Passing the same ``Generator`` twice gives fresh resamples (it is advanced).

Speed
-----
Two paths give the same numbers (up to float rounding for non-integer scores):
*sparse* multiplies a sparse (CSR) matrix of the drawn indices by ``scores.T``, i.e. a
gather-and-add over the drawn items without copies (cheap when ``size`` is small),
*matmul* turns the drawn indices into a ``(b, N)`` count matrix (SciPy sums a sparse
matrix of the drawn items into it with its CSR kernel called directly, as many resamples
at a time as keep about 2**18 counts in cache: 16 of 14,000 items, a whole block of 448)
and multiplies it by ``scores.T`` with BLAS (cheap when ``size`` is comparable to
``N``); in-process, large runs are drawn and counted on two helper threads (NumPy's
generators and SciPy's sparse kernels release the GIL) while the main thread multiplies.
The path is picked by a cost model from (M, N, size) only, never from ``batch``.
0/1 (or small-integer) scores use float32 products, which are exact for them: both paths
give the same bits, so their choice follows re-measured costs; non-integer scores keep
the original constants (their float sums, hence results, are as before).
Integer scores on the sparse path are not summed as floats at all: each item's scores,
shifted to start at 0, are packed several to a 64-bit word (8-, 16- or 32-bit lanes, wide
enough for a sum of ``size`` of them, :meth:`Prepared.packed`), and one SciPy CSR product
in uint64 adds whole words, every lane at once with no carry across lanes (SWAR); 0/1-like
scores first add runs of up to 15 drawn items in 4-bit lanes (:meth:`Prepared.nibbles`),
half the words per drawn item of 8-bit lanes and a quarter of 16-bit ones, whatever the size
of the draw (the runs' sums are widened after; the kernels: :mod:`ranktrust.resample._packed`). The sums
are exact integers, so the numbers are those of the float paths.

(This module is over 600 lines because it is one thing: the drawing, counting and
multiplying of every resample, whose streams and products must stay together so that
every caller, path and batch size gets the same numbers.)
Ranks (:func:`rank_order`) are two plain sorts instead of ``lexsort``, with the same result.

References
----------
B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Iterator, NamedTuple

import numpy as np

from .. import _random, _validate
from ..errors import ArgumentError, DataError
from . import _packed

__all__ = [
    "BLOCK",
    "ResampleBatch",
    "resample_means",
    "iter_resample_means",
    "weights",
    "halves",
    "iter_half_means",
    "complete_scores",
    "rank_order",
    "choose_path",
    "product_tasks",
    "half_tasks",
    "prepare",
    "run_products",
    "MatrixInput",
    "matrix_input",
]

#: resamples per child seed; fixed so results do not depend on ``batch``
BLOCK = 64
#: bound on the (resamples x items) cells of one product, and on the blocks it joins
_PRODUCT_CELLS = 2**23
_MAX_BLOCKS_PER_PRODUCT = 8
#: runs whose blocks hold at least this many drawn indices are drawn and counted on
#: :data:`_COUNT_THREADS` helper threads (:func:`_counted_products`)
_THREADED_DRAWS = 2**18
#: threads that draw and count the blocks of an in-process run
_COUNT_THREADS = 2
#: default bound on the number of resamples yielded together
_DEFAULT_BATCH_BYTES = 64 * 2**20

# cost model (nanoseconds per unit), measured on a 2-core x86 machine with OpenBLAS
_C_SPARSE = 0.25    # per (drawn item x model) in the sparse path
_C_SPARSE32 = 0.6   # the same, re-measured for the exact float32 path (scipy CSR x dense)
_C_PACKED = 1.9     # per (drawn item x 64-bit word) of the packed integer path (scipy CSR x uint64);
                    # re-measured against the count path: 1,000 x 14,000 0/1, 2,000 items a draw,
                    # 16-bit lanes: 1.33 ms a draw against 1.01 ms counted (1.2 chose the packed path)
_C_BINCOUNT = 3.0   # per drawn item in the count path
_C_ROW = 1.5        # per (resample x item) cell of the count matrix (zero + convert)
_C_FLOP = 1 / 40.0  # per flop of the float32 matrix product


class ResampleBatch(NamedTuple):
    """Resamples ``start .. start + len(means) - 1`` of a run."""

    start: int
    means: np.ndarray          # (b, M) float64
    keys: np.ndarray | None    # (b, M) uniform tie-break keys, or None


# ----------------------------------------------------------------- validation
def complete_scores(scores: np.ndarray, *, what: str = "scores") -> np.ndarray:
    """``scores`` as a 2-D float64 array; :class:`DataError` when it has NaN.

    The engine resamples items shared by every model, so it needs a complete matrix.
    """
    return _complete(scores, what)[0]


def _complete(scores, what: str = "scores") -> tuple[np.ndarray, float]:
    """:func:`complete_scores` and the smallest score (0.0 when empty), from one pass."""
    a = np.asarray(scores, dtype=np.float64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise ArgumentError(f"`{what}` must have shape (models, items); got {a.shape}")
    if a.shape[1] == 0:
        raise DataError(f"`{what}` has no items; resampling needs at least one item")
    lo = float(a.min()) if a.size else 0.0
    if np.isnan(lo):                       # min propagates NaN: one pass, no mask unless needed
        nan = np.isnan(a)
        m, i = np.argwhere(nan)[0]
        raise DataError(
            f"{what} has {int(nan.sum())} missing score(s) (first: model row {m}, item column {i}); "
            "resampling needs every model scored on every item: read the data with `align`='intersect' "
            "to keep the shared items", param="align"
        )
    return a, lo


def _check_count(value: int, name: str, *, minimum: int = 1) -> int:
    return _validate.count(value, name, minimum=minimum)


def _block_seeds(rng, n: int) -> list:
    """One named stream per block of :data:`BLOCK` resamples: ``child(root(rng), k)`` (the
    randomness policy of :mod:`ranktrust._random`; equal to ``root.spawn(n_blocks)``), as
    :class:`_Stream` records whose PCG64 states (and their two children's) are hashed for all
    blocks at once; ``SeedSequence`` objects where that is not possible."""
    r = _random.root(rng)
    ks = range(-(-n // BLOCK))
    streams = _streams(r, ks)
    return streams if streams is not None else [_random.child(r, k) for k in ks]


# ---- SeedSequence's hash (numpy.random.SeedSequence, after M. E. O'Neill's seed_seq_fe), vectorised
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R, _XSHIFT = np.uint32(0xCA01F9DD), np.uint32(0x4973F715), np.uint32(16)
_M32 = 0xFFFFFFFF
#: children drawn under each block's stream: 0 for the indices (halves: the keys), 1 for the tie keys
_KIDS = 2


class _Stream:
    """The stream ``child(parent, *names)`` without a ``SeedSequence`` object (building one costs about
    40 microseconds: three per block of 64 resamples): its PCG64 seed words ``state``, what
    ``SeedSequence.generate_state(4, uint64)`` gives, and its children ``0 .. _KIDS - 1`` as streams.
    ``np.random.PCG64(stream)`` reads ``generate_state`` (a registered ``ISeedSequence``); any other
    request goes to the ``SeedSequence`` itself, made then. Picklable (dask tasks carry it)."""

    def __init__(self, parent: np.random.SeedSequence, names: tuple, state: np.ndarray, kids: list) -> None:
        self.parent, self.names, self.state, self.kids = parent, names, state, kids

    def seed_sequence(self) -> np.random.SeedSequence:
        return _random.child(self.parent, *self.names)

    def generate_state(self, n_words: int, dtype=np.uint32) -> np.ndarray:
        if n_words == 4 and np.dtype(dtype) == np.uint64:
            return self.state.copy()
        return self.seed_sequence().generate_state(n_words, dtype)


def _register_stream() -> None:
    from numpy.random.bit_generator import ISeedSequence

    ISeedSequence.register(_Stream)


_register_stream()


def _u32_words(x) -> list[int] | None:
    """``x`` (an int >= 0 or a sequence of them) as SeedSequence's uint32 words; None for anything else."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        x = int(x)
        if x < 0:
            return None
        out = [x & _M32] if x == 0 else []
        while x > 0:
            out.append(x & _M32)
            x >>= 32
        return out
    if isinstance(x, (list, tuple)):
        out = []
        for v in x:
            w = _u32_words(v)
            if w is None:
                return None
            out += w
        return out
    return None


def _seed_words(parent: np.random.SeedSequence, ks: np.ndarray, kid: int | None) -> np.ndarray | None:
    """SeedSequence's assembled entropy of ``child(parent, k)`` (``kid`` None) or ``child(parent, k, kid)``
    for each ``k`` of ``ks`` (ints below 2**32, one word each): ``(n, L)`` uint32; None where it cannot be made here."""
    run = _u32_words(parent.entropy)
    key = _u32_words(tuple(parent.spawn_key))
    if run is None or key is None:
        return None
    prefix = run + [0] * max(0, parent.pool_size - len(run)) + key   # padded: every child has a spawn key
    cols = [np.broadcast_to(np.array(prefix, dtype=np.uint32), (len(ks), len(prefix))), ks[:, None]]
    if kid is not None:
        cols.append(np.full((len(ks), 1), kid, dtype=np.uint32))
    return np.concatenate(cols, axis=1)


def _hash_states(words: np.ndarray, pool_size: int) -> np.ndarray:
    """``SeedSequence(...).generate_state(4, uint64)`` of each row of assembled entropy ``words`` (n, L)."""
    h = [_INIT_A]

    def hashmix(v):
        v = v ^ np.uint32(h[0])
        h[0] = (h[0] * _MULT_A) & _M32
        v = v * np.uint32(h[0])
        return v ^ (v >> _XSHIFT)

    def mix(x, y):
        r = _MIX_L * x - _MIX_R * y
        return r ^ (r >> _XSHIFT)

    n, length = words.shape
    zero = np.zeros(n, dtype=np.uint32)
    pool = [hashmix(words[:, i] if i < length else zero) for i in range(pool_size)]
    for i_src in range(pool_size):
        for i_dst in range(pool_size):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hashmix(pool[i_src]))
    for i_src in range(pool_size, length):
        for i_dst in range(pool_size):
            pool[i_dst] = mix(pool[i_dst], hashmix(words[:, i_src]))
    hb = _INIT_B
    state = np.empty((n, 8), dtype="<u4")
    for i in range(8):
        v = pool[i % pool_size] ^ np.uint32(hb)
        hb = (hb * _MULT_B) & _M32
        v = v * np.uint32(hb)
        state[:, i] = v ^ (v >> _XSHIFT)
    return state.view("<u8").astype(np.uint64)


def _streams(parent: np.random.SeedSequence, ks) -> list[_Stream] | None:
    """``[child(parent, k) for k in ks]`` as :class:`_Stream` records (with children ``0 .. _KIDS - 1``),
    their states hashed together; None where SeedSequence's words cannot be made here or (checked once
    a process) the hash is not the one SeedSequence gives: the caller then builds SeedSequences."""
    global _HASH_CHECKED
    ks = np.asarray(list(ks), dtype=np.int64)
    if not len(ks) or ks.min() < 0 or ks.max() >= 2**32:
        return None
    words = [_seed_words(parent, ks.astype(np.uint32), kid) for kid in (None,) + tuple(range(_KIDS))]
    if any(w is None for w in words):
        return None
    own = _hash_states(words[0], parent.pool_size)
    kids = np.split(_hash_states(np.concatenate(words[1:]), parent.pool_size), _KIDS)   # equal lengths: one pass
    if not _HASH_CHECKED:
        first = _random.child(parent, int(ks[0]))
        if not (np.array_equal(own[0], first.generate_state(4, np.uint64))
                and np.array_equal(kids[-1][0], _random.child(first, _KIDS - 1).generate_state(4, np.uint64))):
            return None    # a NumPy whose SeedSequence hashes otherwise: its own objects (the same streams)
        _HASH_CHECKED = True
    return [_Stream(parent, (k,), own[j], [_Stream(parent, (k, i), kids[i][j], []) for i in range(_KIDS)])
            for j, k in enumerate(ks.tolist())]


#: the vectorised hash gave SeedSequence's states once in this process (checked on first use)
_HASH_CHECKED = False


def _blocks_per_product(width: int) -> int:
    """Blocks of resamples per matrix product: a fixed function of the data shape (never
    of ``batch``), so that products, and hence float sums, are the same for any batch.
    Larger products use BLAS threads far better than 64-row ones."""
    return int(min(_MAX_BLOCKS_PER_PRODUCT, max(1, _PRODUCT_CELLS // (BLOCK * max(width, 1)))))


def _batch_blocks(batch: int | None, row_bytes: int) -> int:
    if batch is None:
        batch = max(BLOCK, _DEFAULT_BATCH_BYTES // max(row_bytes, 1))
    batch = _check_count(batch, "batch")
    return max(1, -(-batch // BLOCK))


def _groups(groups, n_items: int) -> tuple[np.ndarray, int]:
    g = np.asarray(groups)
    if g.shape != (n_items,) or g.dtype.kind not in "iu":
        raise ArgumentError(f"`groups` must be {n_items} integer group codes (one per item); got {g.dtype} {g.shape}")
    if g.min() < 0:
        raise ArgumentError("`groups` codes must be >= 0")
    _, codes = np.unique(g, return_inverse=True)
    return codes.astype(np.intp), int(codes.max()) + 1


def choose_path(n_models: int, n_items: int, size: int, *, exact: bool = False, lanes: int = 0) -> str:
    """``"sparse"`` or ``"matmul"``: the cheaper path for one resample (cost model).

    ``exact``: the scores are small integers summed exactly in float32, so both paths give
    the same bits and the choice is free to follow the re-measured costs; otherwise the
    original constants are kept so that float64 sums (and results) stay as they were.
    ``lanes``: the sparse path adds packed integer words holding this many scores each
    (:func:`._packed.lane_bits`; 0 = not packed), ``ceil(M / lanes)`` words per drawn item.
    """
    if lanes:
        sparse = size * -(-n_models // lanes) * _C_PACKED
    else:
        sparse = size * n_models * (_C_SPARSE32 if exact else _C_SPARSE)
    matmul = size * _C_BINCOUNT + n_items * (_C_ROW + 2 * n_models * _C_FLOP)
    return "sparse" if sparse < matmul else "matmul"


def _sparse_rows(idx: np.ndarray, n_cells: int, dtype):
    from scipy.sparse import csr_matrix

    b, k = idx.shape
    return csr_matrix(
        (np.ones(b * k, dtype=dtype), idx.ravel(), np.arange(0, b * k + 1, k)), shape=(b, n_cells)
    )


# ----------------------------------------------------------------- public API
class Prepared:
    """Scores validated once for many runs (e.g. one per benchmark size): the float64
    matrix, whether it holds integers, and its transposes by dtype (made on first use)."""

    def __init__(self, scores: np.ndarray) -> None:
        self._st: dict = {}
        self._q = None     # the scores as int8 when they are integers in -128 .. 127 (0/1 benchmarks)
        a = scores
        if isinstance(a, np.ndarray) and a.dtype.kind in "iub" and a.ndim in (1, 2) and a.size:
            # an integer array (int8 0/1 scores): no NaN to look for and nothing to round, so
            # no float copy unless a float path asks for one (``s``); the same numbers
            a = a[None, :] if a.ndim == 1 else a
            self._src, self._s = a, None
            self.lo, self.hi = float(a.min()), float(a.max())
            self.integer = True
            if -128 <= self.lo and self.hi <= 127:
                self._q = a.astype(np.int8, copy=False)
        else:
            s, self.lo = _complete(scores)
            self._src, self._s = None, s
            self.hi = float(s.max()) if s.size else 0.0
            if -128 <= self.lo and self.hi <= 127:
                q = s.astype(np.int8)
                self.integer = bool(np.array_equal(q, s))
                self._q = q if self.integer else None
            else:
                self.integer = bool(np.array_equal(s, np.round(s)))
        self.maxabs = max(abs(self.lo), abs(self.hi), 0.0)

    @property
    def shape(self) -> tuple[int, int]:
        return (self._s if self._s is not None else self._src).shape

    @property
    def s(self) -> np.ndarray:
        """The scores as a float64 ``(M, N)`` array (made on first use from an integer input)."""
        if self._s is None:
            self._s = self._src.astype(np.float64)
        return self._s

    def exact32(self, n_drawn: int) -> bool:
        return self.integer and self.maxabs * n_drawn < 2**24

    def lane_bits(self, n_drawn: int) -> int:
        """Bits per lane of the packed integer sums of ``n_drawn`` items (0: not integer or too wide)."""
        if not self.integer:
            return 0
        return _packed.lane_bits(self.hi - self.lo, n_drawn)

    def packed(self, bits: int) -> np.ndarray:
        """Scores packed ``64 / bits`` to a uint64 word (:func:`._packed.pack_lanes`), cached."""
        key = ("packed", bits)
        if key not in self._st:
            self._st[key] = _packed.pack_lanes(self._q if self._q is not None else self.s, self.lo, self._q, bits)
        return self._st[key]

    def nibbles(self) -> np.ndarray:
        """Scores packed 16 to a word in 4-bit lanes (:func:`._packed.pack_nibbles`), cached."""
        if "nibbles" not in self._st:
            self._st["nibbles"] = _packed.pack_nibbles(self._q if self._q is not None else self.s, self.lo, self._q)
        return self._st["nibbles"]

    def st(self, dtype) -> np.ndarray:
        key = np.dtype(dtype).str
        if key not in self._st:
            src = self._src if self._src is not None else self.s      # an integer input converts exactly
            self._st[key] = np.ascontiguousarray(src.T.astype(dtype))
        return self._st[key]


def prepare(scores) -> Prepared:
    """Validate scores once; pass the result as ``scores`` to :func:`product_tasks` /
    :func:`half_tasks` to skip repeating the checks and transposes for every run."""
    return scores if isinstance(scores, Prepared) else Prepared(scores)


class _Plan:
    """The shared inputs of one run's tasks, read by the kernels as keywords: a frozen dataclass that also
    unpacks as ``**plan`` (``keys`` and ``[]``), so a kernel runs here, on a thread or on a dask worker
    (which receives the fields as its shared inputs, large arrays scattered once) from the same record."""

    def keys(self) -> list[str]:
        return [f.name for f in dataclasses.fields(self)]  # type: ignore[arg-type]

    def __getitem__(self, name: str) -> Any:
        return getattr(self, name)


@dataclasses.dataclass(frozen=True, eq=False)
class ProductPlan(_Plan):
    """The shared inputs of the bootstrap products of :func:`product_tasks`.

    Attributes
    ----------
    st : ndarray or None
        The scores transposed, ``(cells, M)`` (items, or group sums when resampling groups), in ``dtype``;
        None when the sparse path reads ``packed`` instead.
    n_resamples : int
        Resamples of the whole run (the last block may be short).
    cells : int
        What is drawn: items, or item groups (clustered).
    size : int
        Draws per resample.
    n_models : int
    sparse : bool
        The sparse path (a one-hot matrix of the draws) instead of counting the draws.
    packed : ndarray or None
        Integer scores packed into ``uint64`` lanes of ``lane_bits`` bits (sparse path, integer scores).
    lane_bits : int
    lo : float
        The smallest score (packed sums are of the shifted scores).
    nibble_run : int
        Items per 4-bit lane run for 0/1-like scores (0: not nibble-packed).
    gcount : ndarray or None
        Items per group (clustered: a resample's mean divides by the items drawn).
    dtype : numpy dtype
        float32 where the sums are exact in it, else float64.
    tie_keys : bool
        Draw uniform tie-break keys with each block.
    """

    st: np.ndarray | None
    n_resamples: int
    cells: int
    size: int
    n_models: int
    sparse: bool
    packed: np.ndarray | None
    lane_bits: int
    lo: float
    nibble_run: int
    gcount: np.ndarray | None
    dtype: Any
    tie_keys: bool


@dataclasses.dataclass(frozen=True, eq=False)
class HalfPlan(_Plan):
    """The shared inputs of the random halves of :func:`half_tasks`: the transposed scores ``st``, each
    model's ``total``, the number of splits and items, and whether to draw tie keys."""

    st: np.ndarray
    total: np.ndarray
    n_splits: int
    n_items: int
    n_models: int
    dtype: Any
    tie_keys: bool


def _resample_setup(scores, n_resamples, size, groups, rng, tie_keys, path):
    """Validated tasks and shared work of one run (see :func:`product_tasks`)."""
    prep = prepare(scores)
    n_resamples = _check_count(n_resamples, "n_resamples")
    m, n = prep.shape
    if groups is not None:
        s = prep.s
        codes, n_groups = _groups(groups, n)
        size = n_groups if size is None else _check_count(size, "size")
        gsum = np.zeros((m, n_groups))
        np.add.at(gsum.T, codes, s.T)
        gcount = np.bincount(codes, minlength=n_groups).astype(np.float64)
        cells = n_groups
    else:
        size = n if size is None else _check_count(size, "size")
        cells = n
    exact = groups is None and prep.exact32(size)
    bits = prep.lane_bits(size) if groups is None else 0
    if path == "auto":
        # nibble-packed scores (span <= 5) cost at most what 8-bit lanes do, whatever the lanes of the sums
        lanes = 8 if bits and prep.hi - prep.lo <= 5 else bits and 64 // bits
        path = "matmul" if groups is not None else choose_path(m, n, size, exact=exact, lanes=lanes)
    if path not in ("sparse", "matmul"):
        raise ArgumentError(f"`path` must be 'auto', 'sparse' or 'matmul'; got {path!r}")
    sparse = path == "sparse" and groups is None
    # integer scores: the sparse path adds packed words (exact, so the same numbers as floats)
    # 0/1 (span <= 5): runs of >= 3 items in 4-bit lanes first (half the words per item of 8-bit lanes, a
    # quarter of 16-bit ones: draws of more than 255 items widen the runs' sums afterwards, _packed._widened_sums)
    nibble_run = 15 // max(int(prep.hi - prep.lo), 1) if sparse and bits and prep.hi - prep.lo <= 5 else 0
    packed = (prep.nibbles() if nibble_run else prep.packed(bits)) if sparse and bits else None
    if groups is None:
        dtype = np.float32 if exact else np.float64
        st = None if packed is not None else prep.st(dtype)     # (N, M)
    else:
        dtype = np.float64
        st = np.ascontiguousarray(gsum.T)                   # (G, M)
    seeds = _block_seeds(rng, n_resamples)
    per_product = _blocks_per_product(max(cells, size))
    work = ProductPlan(st=st, n_resamples=n_resamples, cells=cells, size=size, n_models=m, sparse=sparse,
                       packed=packed, lane_bits=bits, lo=prep.lo, nibble_run=nibble_run,
                       gcount=None if groups is None else gcount, dtype=dtype, tie_keys=tie_keys)
    tasks = [(seeds[g0:g0 + per_product], g0) for g0 in range(0, len(seeds), per_product)]
    return tasks, work


def iter_resample_means(
    scores: np.ndarray,
    *,
    n_resamples: int,
    size: int | None = None,
    groups: np.ndarray | None = None,
    rng=0,
    batch: int | None = None,
    tie_keys: bool = False,
    path: str = "auto",
    backend: str = "numpy",
    client=None,
) -> Iterator[ResampleBatch]:
    """Bootstrap means of every model, in batches (shared resamples for all models).

    Parameters
    ----------
    scores : ndarray, shape (M, N)
        Complete per-item scores (no NaN).
    n_resamples : int
        Number of resamples.
    size : int, optional
        Items (or, with ``groups``, groups) per resample; default all ``N`` (or all groups).
    groups : ndarray of int, shape (N,), optional
        Group code per item: resample whole groups (cluster bootstrap).
    rng : None, int or numpy.random.Generator
    batch : int, optional
        Resamples yielded together (rounded up to whole products of up to 8 blocks of
        ``BLOCK``); default keeps a batch under about 64 MB. Does not change the numbers.
    tie_keys : bool
        Also yield uniform ``(b, M)`` keys (from a separate stream per block) for breaking
        exact ties at random.
    path : {"auto", "sparse", "matmul"}
        Force a computation path (for tests and benchmarks).
    backend : {"numpy", "dask"}
        ``"dask"`` computes the product groups as parallel dask tasks (threads; imported
        only then) and gives the same numbers; it holds all results before yielding.
    client : dask.distributed.Client, optional
        Run the product groups on this client's workers (see
        :mod:`ranktrust.resample._distributed`); the same numbers as in-process.

    Yields
    ------
    ResampleBatch
        ``(start, means (b, M), keys (b, M) or None)``.
    """
    tasks, work = _resample_setup(scores, n_resamples, size, groups, rng, tie_keys, path)
    n_resamples = work.n_resamples
    per_yield = _batch_blocks(batch, 8 * work.n_models)
    if backend == "dask" and client is None:
        try:
            import dask
        except ImportError:
            raise ImportError("`backend`='dask' needs dask: pip install 'ranktrust[scale]'") from None

        # one task per product group; each group has its own seeds, so the numbers are
        # those of the NumPy path. Threads: NumPy, SciPy and BLAS release the GIL.
        results = dask.compute(*[dask.delayed(_product_means)(grp, g0, **work) for grp, g0 in tasks],
                               scheduler="threads")
        parts = iter(results)
    elif backend in ("numpy", "dask"):
        parts = run_products(tasks, work, client=client)
    else:
        raise ArgumentError(f"`backend` must be 'numpy' or 'dask'; got {backend!r}")
    out: list[np.ndarray] = []
    keys: list[np.ndarray] = []
    start = done = 0
    for means, kys in parts:
        out.append(means)
        if tie_keys:
            keys.append(kys)
        done += len(means)
        if sum(len(o) for o in out) >= per_yield * BLOCK or done == n_resamples:
            yield ResampleBatch(
                start,
                np.concatenate(out) if len(out) > 1 else out[0],
                (np.concatenate(keys) if len(keys) > 1 else keys[0]) if tie_keys else None,
            )
            start = done
            out, keys = [], []


def product_tasks(
    scores: np.ndarray,
    *,
    n_resamples: int,
    size: int | None = None,
    groups: np.ndarray | None = None,
    rng=0,
    tie_keys: bool = False,
    path: str = "auto",
) -> tuple[list[tuple], ProductPlan]:
    """The resamples of :func:`iter_resample_means` as independent tasks (the engine's hook).

    Returns ``(tasks, work)``: each task ``(seeds, first_block)`` is one matrix product of
    up to 8 blocks of :data:`BLOCK` resamples, computed by
    ``_product_means(*task, **work) -> (means, keys)``; ``work`` is the :class:`ProductPlan` of the
    shared inputs (the transposed scores ``st`` and the settings, frozen). Run them with :func:`run_products`,
    in-process or on a ``dask.distributed`` client: each task has its own seeds, so the
    numbers never depend on where or in which order the tasks run.
    """
    return _resample_setup(scores, n_resamples, size, groups, rng, tie_keys, path)


def run_products(tasks: list[tuple], work: _Plan, *, kernel=None, post=None, post_kw: dict | None = None,
                 client=None, progress=None) -> Iterator:
    """Results of the product tasks, in task order: ``(means, keys)`` or ``post(means, keys, **post_kw)``.

    ``kernel`` computes one task (default: the bootstrap product of :func:`product_tasks`;
    ``half_product`` for :func:`half_tasks`); its result tuple is what ``post`` receives.

    ``post`` (a module-level function, so that it can be sent to workers) reduces one
    product where it is computed, so that only its result travels (rank counts, not
    means). With ``client`` (a ``dask.distributed.Client``) the tasks run on its workers
    (see :mod:`ranktrust.resample._distributed`); otherwise one after the other here.
    ``progress(done_tasks, total_tasks)`` is called as results arrive.
    """
    if client is not None:
        from ._distributed import map_tasks

        yield from map_tasks(client, _product_task, [(t, kernel, post, post_kw or {}) for t in tasks],
                             shared=dict(work), progress=progress)
        return
    parts = _counted_products(tasks, work) if kernel is None and _pipelined(work) else \
        ((kernel or _product_means)(*t, **work) for t in tasks)
    for k, res in enumerate(parts):
        yield _post(res, post, post_kw or {})
        if progress is not None:
            progress(k + 1, len(tasks))


def _post(res, post, post_kw):
    return res if post is None else post(*res, **post_kw)


def _pipelined(work: ProductPlan) -> bool:
    """Whether the in-process run counts its draws on :data:`_COUNT_THREADS` helper threads
    (the count path with large draws; see :func:`_counted_products`)."""
    return not work.sparse and work.size * BLOCK >= _THREADED_DRAWS


def _counted_products(tasks: list[tuple], work: ProductPlan) -> Iterator[tuple]:
    """``_product_means`` of every task, in order, with the draws and counts made on helper
    threads: each block is drawn and counted by one thread (a resample's indices are counted
    while they are in cache), the blocks of the next product while this one is multiplied
    (two count matrices in turn). NumPy's generators and SciPy's sparse kernels release the
    GIL, so the threads' work overlaps. Same numbers as one task at a time:
    a block drawn a row at a time from its generator is the block drawn at once, and
    integer counts do not depend on which thread made them."""
    cells, size, dtype = work.cells, work.size, work.dtype
    plan = []
    for group, first in tasks:
        plan.append(([min(BLOCK, work.n_resamples - k * BLOCK) for k in range(first, first + len(group))],
                     [_children(ss, 2) for ss in group]))
    rows = max(sum(bs) for bs, _ in plan)
    bufs: list = [None, None]
    pool = _count_pool()

    def submit(g: int):
        bs, kids = plan[g]
        if bufs[g % 2] is None:
            bufs[g % 2] = np.empty((rows, cells), dtype=dtype)
        cnt = bufs[g % 2][:sum(bs)]
        starts = np.cumsum([0] + bs)
        return cnt, [pool.submit(_count_block, wss, b, cells, size, cnt[r0:r0 + b])
                     for (wss, _), b, r0 in zip(kids, bs, starts)]

    pending = submit(0)
    for g in range(len(plan)):
        cnt, futures = pending
        for f in futures:
            f.result()
        if g + 1 < len(plan):
            pending = submit(g + 1)            # counted while this product is multiplied
        bs, kids = plan[g]
        yield _count_means(cnt, **work), _tie_keys(kids, bs, work.n_models) if work.tie_keys else None


def _count_block(wss: np.random.SeedSequence, b: int, cells: int, size: int, out: np.ndarray) -> None:
    """Draw one block's ``(b, size)`` indices from its stream and write their counts to ``out``."""
    gen = np.random.Generator(np.random.PCG64(wss))
    rows = _count_rows(b, cells, size)
    ones = _ones(rows * size, out.dtype)
    for r in range(0, b, rows):
        # rows of a sparse matrix whose entries are the drawn items, summed into the dense counts by
        # SciPy's CSR kernel (no int64 -> float cast, GIL released); the same draws as (b, size) at
        # once: consecutive calls continue the stream, and int32 draws are the int64 ones (both
        # NumPy's 32-bit Lemire)
        k = min(rows, b - r)
        itype = np.int32 if max(k * size, cells) < 2**31 else np.int64
        idx = gen.integers(0, cells, size=(k, size), dtype=itype)
        _add_rows(idx, ones[:k * size], out[r:r + k])


def _count_rows(b: int, cells: int, size: int) -> int:
    """Resamples counted by one kernel call: as many as keep about 2**18 count cells and drawn
    items together (in cache), at least one; small benchmarks count a whole block at once
    (the per-call cost, not the adding, is what they pay)."""
    return max(1, min(b, _COUNT_CELLS // max(cells, size, 1)))


def _add_rows(idx: np.ndarray, ones: np.ndarray, out: np.ndarray) -> None:
    """``out[r] = counts of idx[r]`` for the ``(k, size)`` drawn items ``idx`` (``ones``: ``k * size`` ones
    of ``out``'s dtype): SciPy's dense-from-CSR kernel called directly (a ``csr_matrix`` costs about
    100 microseconds to build and check, more than counting a small block), else through ``toarray``."""
    k, size = idx.shape
    kernel = _csr_kernel()
    indptr = np.arange(0, k * size + 1, size, dtype=idx.dtype)
    if kernel is not None and out.flags.c_contiguous and out.dtype == ones.dtype:
        out.fill(0)
        kernel(k, out.shape[1], indptr, idx.reshape(-1), ones, out)
        return
    from scipy.sparse import csr_matrix

    csr_matrix((ones, idx.reshape(-1), indptr), shape=out.shape, copy=False).toarray(out=out)


def _csr_kernel():
    """SciPy's ``csr_todense(n_row, n_col, Ap, Aj, Ax, Bx)`` (``Bx += A``), or None where this SciPy lacks it
    or it does not count a small example right (checked once a process: the kernel is private to SciPy)."""
    global _CSR_TODENSE
    if _CSR_TODENSE is None:
        try:
            from scipy.sparse._sparsetools import csr_todense

            out = np.zeros((2, 3), dtype=np.float32)
            csr_todense(2, 3, np.array([0, 2, 4], dtype=np.int32), np.array([2, 2, 0, 1], dtype=np.int32),
                        np.ones(4, dtype=np.float32), out)
            ok = np.array_equal(out, [[0, 0, 2], [1, 1, 0]])
        except Exception:       # a SciPy without the private kernel, or another signature: the public path
            ok = False
        _CSR_TODENSE = csr_todense if ok else False
    return _CSR_TODENSE or None


_COUNT_POOL = None
_CSR_TODENSE: Any = None
#: count cells (and drawn items) of one kernel call: 16 resamples of 14,000 items, a whole block of 448
_COUNT_CELLS = 2**18
_ONES: dict = {}


def _ones(n: int, dtype) -> np.ndarray:
    """``n`` ones (the sparse entries of the drawn items), kept for the next block when small;
    safe under threads (a lookup never fails, a lost race only allocates again)."""
    key = (n, np.dtype(dtype).str)
    arr = _ONES.get(key)
    if arr is None:
        arr = np.ones(n, dtype=dtype)
        if n <= 2**22:
            _ONES.clear()
            _ONES[key] = arr
    return arr


def _count_pool():
    """The count threads of this process (a forked child makes its own: the parent's threads
    do not exist there, and a pool that believes they do would never run a task)."""
    global _COUNT_POOL
    if _COUNT_POOL is None or _COUNT_POOL[0] != os.getpid():
        from concurrent.futures import ThreadPoolExecutor

        _COUNT_POOL = (os.getpid(), ThreadPoolExecutor(max_workers=_COUNT_THREADS, thread_name_prefix="ranktrust-count"))
    return _COUNT_POOL[1]


def _product_task(task, **work):
    (group, first), kernel, post, post_kw = task
    return _post((kernel or _product_means)(group, first, **work), post, post_kw)


def _children(ss, n: int) -> list:
    """``ss.spawn(n)`` of a fresh ``ss``, whatever ``ss`` spawned before (pure: a task can run twice);
    a :class:`_Stream`'s children come hashed with it."""
    if isinstance(ss, _Stream):
        if n <= len(ss.kids):
            return ss.kids[:n]
        ss = ss.seed_sequence()
    return [_random.child(ss, i) for i in range(n)]


def _product_means(group, first, *, st, n_resamples, cells, size, n_models, sparse, packed, lane_bits, lo,
                   nibble_run, gcount, dtype, tie_keys):
    """Means (and tie keys) of the resamples of one product group of blocks.

    The count path counts each block as soon as it is drawn (a block's indices stay in
    cache) into one count matrix, then makes one product for the group.
    """
    bs = [min(BLOCK, n_resamples - k * BLOCK) for k in range(first, first + len(group))]
    kids = [_children(ss, 2) for ss in group]
    keys = _tie_keys(kids, bs, n_models) if tie_keys else None
    if sparse:
        idx_parts = [np.random.Generator(np.random.PCG64(wss)).integers(0, cells, size=(b, size))
                     for (wss, _), b in zip(kids, bs)]
        idx = np.concatenate(idx_parts) if len(idx_parts) > 1 else idx_parts[0]
        if packed is not None:
            means = (_packed.packed_sums(idx, packed, lane_bits, n_models, nibble_run).astype(np.float64) + size * lo) / size
        else:
            means = (_sparse_rows(idx, cells, dtype) @ st).astype(np.float64) / size
        return means, keys
    cnt = np.empty((sum(bs), cells), dtype=dtype)
    for (wss, _), b, r0 in zip(kids, bs, np.cumsum([0] + bs)):
        _count_block(wss, b, cells, size, cnt[r0:r0 + b])
    return _count_means(cnt, st=st, size=size, gcount=gcount), keys


def _tie_keys(kids, bs, n_models: int) -> np.ndarray:
    """Uniform ``(b, M)`` tie-break keys of the blocks, each from its own second stream, written into one
    array (the numbers of ``random((b, M))`` a block, without an array a block and their concatenation)."""
    keys = np.empty((sum(bs), n_models))
    r0 = 0
    for (_, kss), b in zip(kids, bs):
        np.random.Generator(np.random.PCG64(kss)).random(out=keys[r0:r0 + b])
        r0 += b
    return keys


def _count_means(cnt: np.ndarray, *, st, size, gcount, **_) -> np.ndarray:
    """Means of the resamples from their ``(b, cells)`` counts: one product with the scores."""
    sums = (cnt @ st).astype(np.float64)
    return sums / size if gcount is None else sums / (cnt.astype(np.float64) @ gcount)[:, None]


def resample_means(
    scores: np.ndarray,
    *,
    n_resamples: int,
    size: int | None = None,
    groups: np.ndarray | None = None,
    rng=0,
    batch: int | None = None,
    path: str = "auto",
    backend: str = "numpy",
    client=None,
    progress=None,
) -> np.ndarray:
    """Each model's mean on each of ``n_resamples`` shared bootstrap resamples.

    See :func:`iter_resample_means` for the parameters; ``progress(done, n_resamples)`` is
    called after each batch.

    Returns
    -------
    ndarray, shape (n_resamples, M)

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([[1, 0, 1, 1], [0, 0, 1, 1]], dtype=float)
    >>> resample_means(s, n_resamples=3, rng=0).shape
    (3, 2)
    """
    parts = []
    for b in iter_resample_means(scores, n_resamples=n_resamples, size=size, groups=groups, rng=rng,
                                 batch=batch, path=path, backend=backend, client=client):
        parts.append(b.means)
        if progress is not None:
            progress(sum(len(p) for p in parts), n_resamples)
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def weights(
    n_items: int,
    *,
    n_resamples: int,
    size: int | None = None,
    groups: np.ndarray | None = None,
    rng=0,
    dtype=np.float64,
) -> np.ndarray:
    """How many times each item is in each resample: ``(n_resamples, N)``.

    The same resamples as :func:`resample_means` with the same arguments:
    ``weights(...) @ scores.T / weights(...).sum(1, keepdims=True)`` equals its means.
    With ``groups`` an item's weight is the number of times its group was drawn.
    """
    n_items = _check_count(n_items, "n_items")
    n_resamples = _check_count(n_resamples, "n_resamples")
    if groups is not None:
        codes, cells = _groups(groups, n_items)
    else:
        codes, cells = None, n_items
    size = cells if size is None else _check_count(size, "size")
    out = np.empty((n_resamples, n_items), dtype=dtype)
    for k, ss in enumerate(_block_seeds(rng, n_resamples)):
        b = min(BLOCK, n_resamples - k * BLOCK)
        wss = _children(ss, 1)[0]  # = ss.spawn(2)[0], as in _product_means
        cnt = np.empty((b, cells), dtype=dtype)
        _count_block(wss, b, cells, size, cnt)
        out[k * BLOCK:k * BLOCK + b] = cnt if codes is None else cnt[:, codes]
    return out


def _half_masks(gen: np.random.Generator, b: int, n: int) -> np.ndarray:
    perm = gen.permuted(np.broadcast_to(np.arange(n), (b, n)), axis=1)
    return perm < n // 2


def halves(n_items: int, *, n_splits: int, rng=0) -> np.ndarray:
    """Random halves: ``(n_splits, N)`` booleans, True for the ``floor(N/2)`` items of half A.

    The same splits as :func:`iter_half_means` with the same ``rng``.
    """
    n_items = _check_count(n_items, "n_items", minimum=2)
    n_splits = _check_count(n_splits, "n_splits")
    out = np.empty((n_splits, n_items), dtype=bool)
    for k, ss in enumerate(_block_seeds(rng, n_splits)):
        b = min(BLOCK, n_splits - k * BLOCK)
        out[k * BLOCK:k * BLOCK + b] = _half_masks(np.random.Generator(np.random.PCG64(ss)), b, n_items)
    return out


def iter_half_means(
    scores: np.ndarray, *, n_splits: int, rng=0, batch: int | None = None, tie_keys: bool = False
) -> Iterator[tuple]:
    """Means of every model on random halves: yields ``(start, means_a, means_b)``.

    Half A holds ``floor(N/2)`` random items, half B the rest; both ``(b, M)``. With
    ``tie_keys=True`` a fourth element holds uniform ``(b, 2, M)`` tie-break keys
    (``[:, 0]`` for half A, ``[:, 1]`` for half B) from a separate stream per block.
    """
    tasks, work = half_tasks(scores, n_splits=n_splits, rng=rng, tie_keys=tie_keys)
    per_yield = _batch_blocks(batch, 8 * work.n_models)
    parts: list[tuple] = []
    start = done = 0
    for res in run_products(tasks, work, kernel=half_product):
        parts.append(res)
        done += len(res[0])
        if sum(len(p[0]) for p in parts) >= per_yield * BLOCK or done == work.n_splits:
            out = (start,) + tuple(np.concatenate([p[c] for p in parts]) for c in range(2))
            yield out + (np.concatenate([p[2] for p in parts]),) if tie_keys else out
            start = done
            parts = []


def half_tasks(scores: np.ndarray, *, n_splits: int, rng=0, tie_keys: bool = False) -> tuple[list[tuple], HalfPlan]:
    """The splits of :func:`iter_half_means` as independent tasks, for :func:`run_products`
    with ``kernel=half_product`` (each task: ``(means_a, means_b, keys or None)``)."""
    prep = prepare(scores)
    s = prep.s
    n_splits = _check_count(n_splits, "n_splits")
    m, n = s.shape
    if n < 2:
        raise DataError("random halves need at least 2 items")
    dtype = np.float32 if prep.exact32(n) else np.float64
    st = prep.st(dtype)
    seeds = _block_seeds(rng, n_splits)
    per_product = _blocks_per_product(n)
    work = HalfPlan(st=st, total=s.sum(axis=1), n_splits=n_splits, n_items=n, n_models=m, dtype=dtype,
                    tie_keys=tie_keys)
    return [(seeds[g0:g0 + per_product], g0) for g0 in range(0, len(seeds), per_product)], work


def half_product(group, first, *, st, total, n_splits, n_items, n_models, dtype, tie_keys):
    """Means on both halves (and tie keys) of the splits of one product group of blocks."""
    h = n_items // 2
    masks, keys = [], []
    for k, ss in enumerate(group, start=first):
        b = min(BLOCK, n_splits - k * BLOCK)
        masks.append(_half_masks(np.random.Generator(np.random.PCG64(ss)), b, n_items))
        if tie_keys:
            keys.append(np.random.Generator(np.random.PCG64(_children(ss, 1)[0])).random((b, 2, n_models)))
    mask = np.concatenate(masks) if len(masks) > 1 else masks[0]
    sum_a = (mask.astype(dtype) @ st).astype(np.float64)
    return sum_a / h, (total - sum_a) / (n_items - h), (np.concatenate(keys) if tie_keys else None)


def rank_order(means: np.ndarray, keys: np.ndarray | None = None) -> np.ndarray:
    """1-based ranks along the last axis (1 = highest mean); exact ties broken by ``keys``.

    Without ``keys`` ties are broken by position (the first model wins); pass uniform
    random keys (``tie_keys=True`` in :func:`iter_resample_means`) to break them at random.

    The ranks are those of ``np.lexsort((keys, -means))``, computed with two plain sorts:
    the dense rank of ``-means`` (0, 1, ... per distinct value) plus a key in [0, 1) is one
    float whose order is the lexicographic order wherever its values are distinct; the
    rare rows where two of them collide (or keys outside [0, 1), NaN) use ``lexsort``.
    """
    means = np.asarray(means, dtype=np.float64)
    if keys is None:
        order = np.argsort(-means, axis=-1, kind="stable")
    else:
        keys = np.asarray(keys, dtype=np.float64)
        order = _lex_order(means, keys)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, means.shape[-1] + 1), axis=-1)
    return ranks


def _lex_order(means: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``np.lexsort((keys, -means), axis=-1)``, fast for 2-D (resamples, models) arrays."""
    if means.ndim != 2 or keys.shape != means.shape or means.shape[-1] < 2:
        return np.lexsort((keys, -means), axis=-1)
    if np.isnan(means).any() or np.isnan(keys).any() or keys.min() < 0.0 or keys.max() >= 1.0:
        return np.lexsort((keys, -means), axis=-1)
    o1 = np.argsort(-means, axis=-1)                 # any order inside a tie: only groups matter
    ms = np.take_along_axis(means, o1, axis=-1)
    grp = np.zeros(means.shape)
    np.cumsum(ms[:, 1:] != ms[:, :-1], axis=-1, out=grp[:, 1:])
    comb = np.empty_like(grp)
    np.put_along_axis(comb, o1, grp, axis=-1)        # dense rank of -means, 0-based
    comb += keys                                     # monotone in (rank, key); ties only if equal
    order = np.argsort(comb, axis=-1)
    cs = np.take_along_axis(comb, order, axis=-1)
    clash = np.flatnonzero((cs[:, 1:] == cs[:, :-1]).any(axis=-1))
    if clash.size:
        order[clash] = np.lexsort((keys[clash], -means[clash]), axis=-1)
    return order


class MatrixInput(NamedTuple):
    """What a resampling function reads from a ScoreMatrix (or a plain array)."""

    scores: np.ndarray              # (M, N) complete
    models: tuple[str, ...]
    group_codes: np.ndarray | None  # (N,) or None
    dropped: dict[str, int]         # items dropped per model to make the matrix complete


def matrix_input(m, *, keep_integer: bool = False) -> MatrixInput:
    """Scores, labels and group codes from a ScoreMatrix or a ``(M, N)`` array.

    A ScoreMatrix with missing scores is reduced to the items every model has
    (``align("intersect")``); ``dropped`` records what was dropped so that results can
    say so. A plain array must be complete. ``keep_integer``: a 2-D integer array (which
    cannot hold NaN) with at least one item is returned as it is, not as a float64 copy, and a
    complete 0/1 ScoreMatrix as int8 (for callers whose arithmetic is exact either way and that
    pass it to :func:`prepare`).
    """
    from ..data import ScoreMatrix

    if isinstance(m, ScoreMatrix):
        if not m.is_complete:
            m = m.align("intersect")
        if keep_integer and m.n_runs == 1 and m.n_items and m.is_complete and m.is_binary:
            # complete 0/1 scores (both answers cached on the matrix) as int8: one pass, where the float64
            # array would be scanned for NaN here and for integers, its smallest and largest score in prepare
            return MatrixInput(m.scores.astype(np.int8), tuple(m.models), m.group_codes, dict(m.dropped))
        return MatrixInput(complete_scores(m.scores), tuple(m.models), m.group_codes, dict(m.dropped))
    if keep_integer and isinstance(m, np.ndarray) and m.dtype.kind in "iub" and m.ndim == 2 and m.shape[1]:
        return MatrixInput(m, tuple(f"model_{k}" for k in range(m.shape[0])), None, {})
    s = complete_scores(m)
    return MatrixInput(s, tuple(f"model_{k}" for k in range(s.shape[0])), None, {})
