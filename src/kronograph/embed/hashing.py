"""The built-in offline embedder: feature hashing, numpy only, no model.

It is what lets kronograph run with no key, no network and no download. Its
vectors measure *spelling* (shared words, word pairs and character 3-grams),
not meaning: "Acme Robotics" lands near "Acme Robotics Inc." and far from
"Berlin", but "car" is no nearer to "automobile" than to "banana". Good
enough for name matching and keyword-ish recall; configure a real embedder
for semantic search.

Every hash is computed by our own arithmetic (blake2b for words, a
splitmix64-style mixer for 3-grams and word pairs), never Python's
randomised ``hash()``, so a vector is the same in every process and on
every machine: stores may keep them.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from hashlib import blake2b

import numpy as np

from ..errors import InvalidInputError

__all__ = ["HashingEmbedder"]

_WORD = re.compile(r"\w+")
_U64 = np.uint64
_MASK52 = _U64((1 << 52) - 1)
# Salts keep the three feature kinds in separate hash spaces.
_SALT_BIGRAM = _U64(0x9E3779B97F4A7C15)
_SALT_TRIGRAM = _U64(0xC2B2AE3D27D4EB4F)
_CHUNK = 4_096  # texts per pass: bounds the temporary arrays and keeps row ids small
_OFFLOAD_AT = 2_048  # texts; larger batches are embedded in a worker thread


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: spreads every input bit over the whole word."""
    x = x ^ (x >> _U64(30))
    x = x * _U64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> _U64(27))
    x = x * _U64(0x94D049BB133111EB)
    return x ^ (x >> _U64(31))


@lru_cache(maxsize=262_144)
def _word_hash(word: str) -> int:
    return int.from_bytes(blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")


# The same arithmetic on Python ints, for small batches: numpy's fixed cost per
# call (a few dozen array operations) is most of a short text's time.
_M64, _M52 = (1 << 64) - 1, (1 << 52) - 1
_SMALL = 128  # characters in all; a batch this short (a fact, a few names) is hashed in Python


def _mix_int(x: int) -> int:
    """:func:`_mix` on one 64-bit value."""
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & _M64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


@lru_cache(maxsize=65_536)
def _word_features(word: str) -> tuple[int, tuple[int, ...]]:
    """A word's unigram hash (whole, for its bigrams) and its features, as
    the low 52 bits of each hash: the unigram's, then its character 3-grams'
    (of " word ")."""
    points = [32, *map(ord, word), 32]
    salt = int(_SALT_TRIGRAM)
    unigram = _word_hash(word)
    trigrams = (
        _mix_int((points[i - 1] << 42) ^ (points[i] << 21) ^ points[i + 1] ^ salt) & _M52
        for i in range(1, len(points) - 1)
    )
    return unigram, (unigram & _M52, *trigrams)


@lru_cache(maxsize=256)
def _one_plus_log(tf: int) -> float:
    """``1 + log(tf)`` as the numpy path computes it (the same ufunc, so the same bits)."""
    return float(1.0 + np.log(np.array([tf], dtype=np.int64))[0])


class HashingEmbedder:
    """Signed feature hashing of word unigrams, word bigrams and character
    3-grams of each word padded with spaces, weighted ``1 + log(tf)`` and
    L2-normalised. ``dimension`` trades memory for fewer collisions: 256 is
    plenty for names and short facts."""

    # Its vectors are lexical (words and character n-grams), so in search they
    # mostly repeat what full text finds: fused with a small weight.
    fusion_weight = 0.1
    # Lexical: search embeds a question's content words only (see search.question).
    lexical = True

    def __init__(self, dimension: int = 256) -> None:
        if not isinstance(dimension, int) or isinstance(dimension, bool) or dimension < 2:
            raise InvalidInputError("dimension", f"must be an integer of at least 2, got {dimension!r}")
        self.dimension = dimension
        self.name = f"hashing-v1:{dimension}"

    def __repr__(self) -> str:
        return f"HashingEmbedder(dimension={self.dimension})"

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        # Small batches take well under a millisecond: a thread hop would cost more.
        if len(texts) >= _OFFLOAD_AT:
            return await asyncio.to_thread(self.embed_sync, texts)
        return self.embed_sync(texts)

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        """The same vectors as :meth:`embed`, for callers with no event loop."""
        if isinstance(texts, str):
            raise InvalidInputError("texts", "expected a sequence of strings, got one string")
        if sum(map(len, texts)) <= _SMALL:
            return self._small(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(texts), _CHUNK):
            out[start : start + _CHUNK] = self._chunk(texts[start : start + _CHUNK])
        return out

    def _chunk(self, texts: Sequence[str]) -> np.ndarray:
        n = len(texts)
        words_per_text = [_WORD.findall(text.casefold()) for text in texts]
        counts = np.fromiter((len(w) for w in words_per_text), dtype=np.int64, count=n)
        flat = [word for words in words_per_text for word in words]
        if not flat:
            return np.zeros((n, self.dimension), dtype=np.float32)
        rows = np.repeat(np.arange(n, dtype=np.int64), counts)

        # Word unigrams: one blake2b per distinct word (cached across calls).
        unigrams = np.fromiter((_word_hash(w) for w in flat), dtype=np.uint64, count=len(flat))

        # Word bigrams: neighbours within the same text.
        same_text = rows[1:] == rows[:-1]
        bigrams = _mix(unigrams[:-1][same_text] * _U64(31) + unigrams[1:][same_text] + _SALT_BIGRAM)
        bigram_rows = rows[1:][same_text]

        # Character 3-grams of " word ": lay every padded word end to end as code
        # points; a 3-gram whose middle character is a space straddles two words.
        padded = " " + "  ".join(flat) + " "  # " w1  w2 ... wn "
        stream = np.frombuffer(padded.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
        middle = stream[1:-1]
        inside = middle != _U64(32)
        trigrams = _mix(
            (stream[:-2][inside] << _U64(42)) ^ (middle[inside] << _U64(21)) ^ stream[2:][inside] ^ _SALT_TRIGRAM
        )
        # Each word of length L yields L 3-grams, in order: the word's row repeated L times.
        lengths = np.fromiter((len(w) for w in flat), dtype=np.int64, count=len(flat))
        trigram_rows = np.repeat(rows, lengths)

        hashes = np.concatenate([unigrams, bigrams, trigrams])
        feature_rows = np.concatenate([rows, bigram_rows, trigram_rows])
        # Count each (row, feature) pair once, for sublinear tf.
        keys = (feature_rows.astype(np.uint64) << _U64(52)) | (hashes & _MASK52)
        unique, tf = np.unique(keys, return_counts=True)
        row_of = (unique >> _U64(52)).astype(np.int64)
        feature = unique & _MASK52
        column = (feature % _U64(self.dimension)).astype(np.int64)
        sign = np.where((feature >> _U64(51)) & _U64(1), -1.0, 1.0)
        weight = sign * (1.0 + np.log(tf))
        dense = np.bincount(row_of * self.dimension + column, weights=weight, minlength=n * self.dimension)
        matrix = dense.reshape(n, self.dimension)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        np.divide(matrix, norms, out=matrix, where=norms > 0)
        return matrix.astype(np.float32)

    def _small(self, texts: Sequence[str]) -> np.ndarray:
        """:meth:`_chunk`'s vectors, bit for bit, hashed in Python: the same
        features, summed into each column in the same order (ascending
        feature, as ``np.unique`` sorts them and ``np.bincount`` adds them),
        then the same numpy normalisation."""
        dim = self.dimension
        matrix = np.zeros((len(texts), dim), dtype=np.float64)
        salt, top = int(_SALT_BIGRAM), 1 << 51
        for row, text in enumerate(texts):
            words = _WORD.findall(text.casefold())
            if not words:
                continue
            features = [_word_features(w) for w in words]
            unigrams = [u for u, _ in features]
            tf = Counter(_mix_int((a * 31 + b + salt) & _M64) & _M52 for a, b in zip(unigrams, unigrams[1:]))
            for _, own in features:
                tf.update(own)
            cells: dict[int, float] = {}
            for f in sorted(tf):
                weight = _one_plus_log(tf[f])
                column = f % dim
                cells[column] = cells.get(column, 0.0) + (-weight if f & top else weight)
            matrix[row, list(cells)] = list(cells.values())
        # np.linalg.norm(matrix, axis=1) spelt out, as it computes it for real values
        norms = np.sqrt(np.add.reduce(matrix * matrix, axis=1, keepdims=True))
        np.divide(matrix, norms, out=matrix, where=norms > 0)
        return matrix.astype(np.float32)
