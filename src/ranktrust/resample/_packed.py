"""Packed integer sums for the resampling engine's sparse path (SWAR in 64-bit words).

Integer scores, shifted to start at 0, are packed several to a uint64 word; one SciPy CSR
product in uint64 then adds whole words, every lane at once. A lane never overflows (its
width holds any sum of the drawn scores), so no carry crosses lanes and the sums are exact:
the engine's numbers are those of its float paths. Used by :mod:`ranktrust.resample._engine`
(:class:`~ranktrust.resample._engine.Prepared` builds and caches the tables).
"""

from __future__ import annotations

import numpy as np

__all__ = ["lane_bits", "pack_lanes", "pack_nibbles", "packed_sums"]

def lane_bits(span: float, size: int) -> int:
    """Bits per packed score (8, 16 or 32) whose lanes hold any sum of ``size`` scores
    shifted to ``0 .. span`` without overflow; 0 when none does."""
    for bits in (8, 16, 32):
        if span * size < 2**bits:
            return bits
    return 0


_NIBBLES = np.uint64(0x0F0F0F0F0F0F0F0F)


def packed_sums(idx: np.ndarray, packed: np.ndarray, bits: int, n_models: int, run: int = 0) -> np.ndarray:
    """Exact integer sums over the drawn items of each row of ``idx`` (b, k): ``(b, M)``, unsigned.

    The sums are of the shifted scores (minus the smallest score); add ``k * lo`` back.

    ``packed`` (N, W) uint64 holds each item's shifted scores, ``64 / bits`` per word
    (:func:`pack_lanes`). Adding whole words adds every lane at once (SWAR): a lane's
    sum fits its bits (:func:`lane_bits`), so no carry crosses lanes, and one sparse
    product (SciPy's CSR x dense in uint64) makes all the sums, ``W`` words per drawn item
    instead of ``M`` floats.

    ``run = g > 0`` (``packed`` from :func:`pack_nibbles`; ``bits`` is then not read): first
    add runs of ``g`` drawn items in 4-bit lanes (half as many words per item as 8-bit lanes, a
    quarter of 16-bit ones; ``g`` scores fit 4 bits), then split each word into its even and its
    odd nibbles, two words of 8-bit lanes, and add a draw's runs there, 17 at a time, widening
    to 16- and 32-bit lanes while more are left (:func:`_widened_sums`). Returns the sums as
    unsigned lanes (8, 16 or 32 bits).
    """
    from scipy.sparse import csr_matrix

    if not run:
        b, k = idx.shape
        a = csr_matrix((np.ones(b * k, dtype=np.uint64), idx.ravel(), np.arange(0, b * k + 1, k)),
                       shape=(b, packed.shape[0]))
        sums = a @ packed                                                    # (b, W) uint64
        return np.ascontiguousarray(sums).view(f"<u{bits // 8}")[:, :n_models]
    words, g = packed, run                  # words: N + 1 rows, the last one zero (padding)
    b, k = idx.shape
    runs = -(-k // g)
    # run-major rows (run r of draw d is row r * b + d), padded with the zero item
    flat = np.full((b, runs * g), words.shape[0] - 1, dtype=np.int32 if words.shape[0] < 2**31 else np.intp)
    flat[:, :k] = idx
    cols = flat.reshape(b, runs, g).transpose(1, 0, 2).ravel()
    a = csr_matrix((np.ones(cols.size, dtype=np.uint64), cols, np.arange(0, cols.size + 1, g, dtype=cols.dtype)),
                   shape=(runs * b, words.shape[0]))
    part = np.ascontiguousarray(a @ words).reshape(runs, b, -1)          # 4-bit lane sums, each <= 15
    return _widened_sums(part, n_models)


#: per width: the mask of every other lane, and how many sums of the narrower lanes a lane of it holds
#: (4 -> 8 bits: 17 sums of at most 15; 8 -> 16: 257 of at most 255; 16 -> 32: 65,537 of at most 65,535)
_WIDEN = {8: (_NIBBLES, 17), 16: (np.uint64(0x00FF00FF00FF00FF), 257), 32: (np.uint64(0x0000FFFF0000FFFF), 65537)}


def _widened_sums(part: np.ndarray, n_models: int) -> np.ndarray:
    """Sums over axis 0 of ``part`` (R, b, W; overwritten), words of 4-bit lanes (model ``16 w + j`` in nibble
    ``2 j`` for j < 8, ``2 (j - 8) + 1`` otherwise: :func:`pack_nibbles`): ``(b, M)`` unsigned.

    Each step splits every word into its even and its odd lanes, two words of lanes twice as wide,
    and adds as many of the rows as those lanes hold without overflow (up to 17 in 8-bit
    lanes, 257 in 16-bit ones, ...), until one row is left: 8-bit lanes for up to 17 runs (255 items of
    a 0/1 benchmark), 16-bit ones for up to 4,369 runs, 32-bit ones beyond. Exact: no carry
    ever crosses a lane.
    """
    # rows of words, and the model (within 16) of each lane: nibble 2 j is model j, nibble 2 j + 1 model 8 + j
    words = [(part, np.arange(16).reshape(2, 8).T.ravel())]
    bits = 4
    while True:
        bits *= 2
        mask, per = _WIDEN[bits]
        shift = np.uint64(bits // 2)
        rows = words[0][0].shape[0]
        starts = np.arange(0, rows, per)
        nxt = []
        for x, lane in words:
            odd = x >> shift                  # a new array; ``x`` itself is a temporary, masked in place
            odd &= mask
            x &= mask
            for half, sub in ((x, lane[0::2]), (odd, lane[1::2])):
                nxt.append((np.add.reduceat(half, starts, axis=0) if rows > 1 else half, sub))
        words = nxt
        if len(starts) == 1:
            break
        if bits == 32:
            raise OverflowError("too many packed runs for 64-bit sums")      # > 4e9 items a draw
    per_word = 64 // bits
    b, w = words[0][0].shape[1:]
    out = np.empty((b, w, 16), dtype=f"<u{bits // 8}")
    for x, lane in words:
        out[:, :, lane] = x[0].view(out.dtype).reshape(b, w, per_word)
    return out.reshape(b, w * 16)[:, :n_models]


def pack_lanes(s: np.ndarray, lo: float, q: np.ndarray | None, bits: int) -> np.ndarray:
    """``(N, W)`` uint64: item i's scores (``s`` is (M, N)) minus ``lo``, ``64 / bits`` to a word
    (little-endian lanes, the last word padded with zeros). ``q``: the scores as int8, if
    they fit (faster)."""
    lanes = 64 // bits
    m, n = s.shape
    p = np.zeros((n, -(-m // lanes) * lanes), dtype=f"<u{bits // 8}")
    if q is not None:
        # int8 -> unsigned lanes wraps modulo 2**bits, and so does subtracting lo: the
        # result, q - lo in 0 .. span < 2**bits, is exact
        p[:, :m] = q.T
        p[:, :m] -= p.dtype.type(int(lo) % 2**bits)
    else:
        p[:, :m] = (s - lo).T
    return p.view(np.uint64)


def pack_nibbles(s: np.ndarray, lo: float, q: np.ndarray | None) -> np.ndarray:
    """``(N + 1, ceil(M / 16))`` uint64: item i's scores minus ``lo``, 16 to a word in 4-bit
    lanes, and a last all-zero row (padding for :func:`packed_sums`). Model ``16 w + j`` is
    nibble ``2 j`` of word ``w`` for j < 8 and nibble ``2 (j - 8) + 1`` otherwise, so that
    the even nibbles of a word are its first 8 models, in byte order. Needs a span below 16."""
    m, n = s.shape
    w4 = -(-m // 16)
    v = np.zeros((n + 1, w4 * 16), dtype=np.uint8)
    if q is not None:
        v[:n, :m] = q.T
        if lo:
            v[:n, :m] -= np.uint8(int(lo) % 256)          # modulo 256, exact (see pack_lanes)
    else:
        v[:n, :m] = (s - lo).T
    # bytes 0-7 of each 16 (one score each, < 16) stay the low nibbles, bytes 8-15 move to
    # the high nibbles: a shift by 4 of the whole word carries nothing across bytes
    u = v.view("<u8").reshape(n + 1, w4, 2).astype(np.uint64)
    return u[:, :, 0] | (u[:, :, 1] << np.uint64(4))
