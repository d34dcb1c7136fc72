"""Training chunks: (planes, pi, z, ownership, score) samples in compressed, versioned ``.npz`` files.

A chunk is written by ``np.savez_compressed`` and read with
``np.load(allow_pickle=False)``: nothing in it is executed. Format version
3 holds seven arrays (M samples, C planes, N x N board, A = N*N + 1 actions)::

    meta      0-d str: JSON {"format": "engine-chunk", "format_version": 3, "game": "go",
                             "board_size": 9, "encoder": "zero17", "num_planes": 17,
                             "plane_coding": "bits", "samples": M, "komi": 7.0,
                             "sources": ["<sha256 of an input file>", ...], "created": "..."}
    planes    uint8[M, ceil(C*N*N / 8)]   "bits": np.packbits of the 0/1 planes, flattened C, N, N
              uint8[M, ceil(2*C*N*N / 8)] "signed-bits": +1 bits then -1 bits (int8 encoders, oneplane)
    policy    float16[M, A]  pi: the search's visit distribution (or the played move, one-hot), sums to 1
    value     float32[M]     z: the game's result from the side to move's point of view (+1 win, 0 draw, -1 loss)
    ownership uint8[M, ceil(2*N*N / 8)]  the final owner of each point from the side to move: np.packbits
                             of the points it owns, then those the opponent owns (nobody's: neither bit)
    score     float32[M]     the final score from the side to move, in points, komi included
    aux_mask  bool[M]        whether the sample has the ownership and score targets (its game ended on
                             the board and was scored); where not, both are 0 and train nothing

``komi`` is the komi every sample's game was played at (Go), null where the games differ or have none; training
records it in the model file (:attr:`engine.nn.model_format.ModelInfo.komi`). Version 2 is version 3 without it
(read as null). Version 1 is the first four arrays alone; its samples read as masked (they
train the policy and value only). Every target is from the side to move's
point of view, untransformed: the 8 symmetries are applied at training time
(to planes, pi and ownership alike). Samples are shuffled within a chunk.
Any problem (not a zip, missing array, wrong shape or dtype, another encoder
or board size than expected) raises :class:`~training.errors.ChunkFormatError`
naming the file.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from engine import atomic_path
from training.errors import ChunkFormatError

__all__ = ["CHUNK_FORMAT", "CHUNK_VERSION", "CHUNK_SUFFIX", "ChunkInfo", "Samples", "pack_planes", "unpack_planes",
           "pack_ownership", "write_chunk", "read_chunk", "read_chunk_info", "check_chunk", "check_chunks",
           "read_chunks", "list_chunks", "load_samples", "shared_komi"]

CHUNK_FORMAT = "engine-chunk"
CHUNK_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
CHUNK_SUFFIX = ".npz"
PLANE_CODINGS = ("bits", "signed-bits")
MAX_BOARD_SIZE = 25
MAX_PLANES = 1024
MAX_META_BYTES = 1 << 24


@dataclass(frozen=True)
class ChunkInfo:
    """What a chunk says about its samples (its ``meta`` array)."""

    game: str
    board_size: int
    encoder: str
    num_planes: int
    plane_coding: str
    samples: int
    sources: tuple[str, ...] = ()
    created: str = ""
    komi: float | None = None  # the komi of every sample's game; None: games of several komis, or none (not Go)

    @property
    def plane_shape(self) -> tuple[int, int, int]:
        return (self.num_planes, self.board_size, self.board_size)

    @property
    def num_actions(self) -> int:
        return self.board_size * self.board_size + 1

    def to_dict(self) -> dict[str, Any]:
        """The ``meta`` of the current format version (what :func:`write_chunk` writes)."""
        return {"format": CHUNK_FORMAT, "format_version": CHUNK_VERSION, "game": self.game,
                "board_size": self.board_size, "encoder": self.encoder, "num_planes": self.num_planes,
                "plane_coding": self.plane_coding, "samples": self.samples, "sources": list(self.sources),
                "created": self.created, "komi": self.komi}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ChunkInfo":
        """Parse the ``meta`` of any readable version; ValueError/KeyError/TypeError on anything malformed."""
        if data.get("format") != CHUNK_FORMAT:
            raise ValueError(f"format is {data.get('format')!r}, not {CHUNK_FORMAT!r}")
        if data.get("format_version") not in READABLE_VERSIONS:
            raise ValueError(f"format version {data.get('format_version')} is not supported (this engine reads "
                             f"{', '.join(map(str, READABLE_VERSIONS))})")
        if data["plane_coding"] not in PLANE_CODINGS:
            raise ValueError(f"unknown plane coding {data['plane_coding']!r}")
        info = cls(game=str(data["game"]), board_size=int(data["board_size"]), encoder=str(data["encoder"]),
                   num_planes=int(data["num_planes"]), plane_coding=str(data["plane_coding"]),
                   samples=int(data["samples"]), sources=tuple(str(s) for s in data.get("sources", ())),
                   created=str(data.get("created", "")), komi=_komi(data.get("komi")))
        if not (2 <= info.board_size <= MAX_BOARD_SIZE and 1 <= info.num_planes <= MAX_PLANES and info.samples >= 0):
            raise ValueError(f"{info.samples} samples of {info.num_planes} planes on {info.board_size}x"
                             f"{info.board_size} boards: not a chunk")
        return info

    def fits(self, other: "ChunkInfo") -> bool:
        """Whether samples of both chunks can be trained together (same game, board and encoder)."""
        return (self.game, self.board_size, self.encoder, self.num_planes) == (
            other.game, other.board_size, other.encoder, other.num_planes)

    def describe(self) -> str:
        return f"{self.game} {self.board_size}x{self.board_size}, encoder {self.encoder} ({self.num_planes} planes)"


def _komi(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"komi must be a number of points or null, not {value!r}")
    return float(value)


def shared_komi(komis: Iterable[float | None]) -> float | None:
    """The one komi of ``komis`` (points; None or NaN: none), or None where they hold several or none at all."""
    listed = [None if komi is None or math.isnan(komi) else float(komi) for komi in komis]
    found = set(listed)
    return found.pop() if len(found) == 1 else None


@dataclass
class Samples:
    """Samples in memory, planes and ownership still packed, as a chunk holds them (see the module
    docstring): ``planes``, ``policy``, ``value``, ``ownership``, ``score``, ``aux_mask``; ``info``
    describes them (its ``samples`` is the first chunk's when chunks were read together)."""

    info: ChunkInfo
    planes: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    ownership: np.ndarray
    score: np.ndarray
    aux_mask: np.ndarray

    def __len__(self) -> int:
        return len(self.value)

    def planes_at(self, index: np.ndarray) -> np.ndarray:
        """``float32[len(index), C, N, N]``: the unpacked planes of some samples."""
        return unpack_planes(self.planes[index], self.info.plane_shape, self.info.plane_coding)

    def batch_at(self, index: np.ndarray) -> tuple[np.ndarray, ...]:
        """Some samples unpacked, as the fields of :class:`training.losses.Batch`: planes float32[B, C, N, N],
        policy float32[B, A], value float32[B], ownership float32[B, N*N] (+1 the side to move's, -1 the
        opponent's), score float32[B], aux_mask bool[B]."""
        points = self.info.board_size ** 2
        ownership = unpack_planes(self.ownership[index], (1, 1, points), "signed-bits").reshape(len(index), points)
        return (self.planes_at(index), self.policy[index].astype(np.float32), self.value[index], ownership,
                self.score[index], self.aux_mask[index])


def _pack_signed(flat: np.ndarray) -> np.ndarray:
    """``np.packbits`` of the +1 bits, then the -1 bits, of each row of ``flat[M, K]``."""
    return np.packbits(np.concatenate([flat == 1, flat == -1], axis=1), axis=1)


def pack_planes(planes: np.ndarray) -> tuple[np.ndarray, str]:
    """Bit-pack ``planes[M, C, N, N]`` of 0/1 (or -1/0/+1): ``(uint8[M, bytes], coding)``."""
    planes = np.asarray(planes)
    flat = planes.reshape(len(planes), -1)
    if flat.size and flat.min() < 0:
        if flat.min() < -1 or flat.max() > 1:
            raise ValueError("signed planes must hold -1, 0 and +1 only")
        return _pack_signed(flat), "signed-bits"
    if flat.size and flat.max() > 1:
        raise ValueError("planes must hold 0 and 1 only to be bit-packed")
    return np.packbits(flat.astype(bool), axis=1), "bits"


def unpack_planes(packed: np.ndarray, shape: tuple[int, int, int], coding: str) -> np.ndarray:
    """Invert :func:`pack_planes`: ``float32[M, C, N, N]``."""
    count = int(np.prod(shape))
    if coding == "signed-bits":
        bits = np.unpackbits(packed, axis=1, count=2 * count).astype(np.float32)
        flat = bits[:, :count] - bits[:, count:]
    else:
        flat = np.unpackbits(packed, axis=1, count=count).astype(np.float32)
    return flat.reshape(len(packed), *shape)


def pack_ownership(ownership: np.ndarray) -> np.ndarray:
    """Bit-pack ``int[M, N*N]`` owners from the side to move (+1, -1, 0): ``uint8[M, ceil(2*N*N / 8)]``."""
    flat = np.asarray(ownership).reshape(len(ownership), -1)
    if flat.size and (flat.min() < -1 or flat.max() > 1):
        raise ValueError("ownership must hold -1, 0 and +1 only")
    return _pack_signed(flat)


def _packed_width(info: ChunkInfo) -> int:
    count = info.num_planes * info.board_size ** 2 * (2 if info.plane_coding == "signed-bits" else 1)
    return (count + 7) // 8


def _shapes(info: ChunkInfo) -> dict[str, tuple[tuple[int, ...], Any]]:
    """Every array's shape and dtype in a chunk of ``info``."""
    m = info.samples
    return {"planes": ((m, _packed_width(info)), np.uint8), "policy": ((m, info.num_actions), np.float16),
            "value": ((m,), np.float32), "ownership": ((m, (2 * info.board_size ** 2 + 7) // 8), np.uint8),
            "score": ((m,), np.float32), "aux_mask": ((m,), np.bool_)}


def write_chunk(path: str | os.PathLike[str], samples: Samples) -> Path:
    """Write ``samples`` (packed: :func:`pack_planes`, :func:`pack_ownership`) to ``path`` atomically."""
    info = samples.info
    if info.created == "":
        info = replace(info, created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    arrays = {}
    for name, (shape, dtype) in _shapes(info).items():
        array = getattr(samples, name)
        if array.shape != shape:
            raise ValueError(f"{info.samples} samples described but {name} is {list(array.shape)}, not {list(shape)}")
        arrays[name] = np.ascontiguousarray(array, dtype=dtype)
    with atomic_path(path) as temp:
        with open(temp, "wb") as handle:
            np.savez_compressed(handle, meta=np.array(json.dumps(info.to_dict(), sort_keys=True)), **arrays)
    return Path(path)


def _info_of(path: Path, archive: Any) -> tuple[ChunkInfo, int]:
    """The chunk's description and format version, or a ChunkFormatError naming the file."""
    try:
        shape, dtype = _array_header(archive, "meta")
        if shape != () or dtype.kind != "U" or dtype.itemsize > MAX_META_BYTES:
            raise ValueError(f"meta is {dtype}{list(shape)}, not a JSON text")
        data = json.loads(str(archive["meta"][()]))
        return ChunkInfo.from_dict(data), int(data["format_version"])
    except KeyError as error:
        raise ChunkFormatError(f"chunk {path}: no {error} in it: not a chunk written by engine gather") from error
    except (ValueError, TypeError, AttributeError, OverflowError, RecursionError) as error:
        raise ChunkFormatError(f"chunk {path}: bad metadata: {error}"[:500]) from error
    except (OSError, zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise ChunkFormatError(f"chunk {path}: corrupt metadata: {error}") from error


def _open(path: Path) -> Any:
    if not path.is_file():
        raise ChunkFormatError(f"chunk {path}: no such file")
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise ChunkFormatError(f"chunk {path}: not a readable .npz chunk (corrupt or truncated): {error}") from error


def _check_fit(path: Path, info: ChunkInfo, expect: ChunkInfo | None) -> None:
    if expect is not None and not info.fits(expect):
        raise ChunkFormatError(f"chunk {path} holds {info.describe()}; expected {expect.describe()}")


def read_chunk_info(path: str | os.PathLike[str]) -> ChunkInfo:
    """The description of a chunk, without reading its samples."""
    path = Path(path)
    with _open(path) as archive:
        return _info_of(path, archive)[0]


def check_chunk(path: str | os.PathLike[str], expect: ChunkInfo | None = None) -> ChunkInfo:
    """The description of a chunk, checked as far as it can be without unpacking its samples: the metadata,
    the fit to ``expect`` when given, and every array's presence, shape and dtype."""
    path = Path(path)
    with _open(path) as archive:
        info, version = _info_of(path, archive)
        _check_fit(path, info, expect)
        _check_headers(path, archive, info, version)
    return info


def _check_headers(path: Path, archive: Any, info: ChunkInfo, version: int) -> list[str]:
    """The names of the arrays a chunk of ``version`` stores, each checked against ``info`` by its header."""
    shapes = _shapes(info)
    names = list(shapes) if version >= 2 else ["planes", "policy", "value"]
    missing = [name for name in names if name not in archive.files]
    if missing:
        raise ChunkFormatError(f"chunk {path}: array {missing[0]!r} is missing")
    try:
        for name in names:
            _check_array(path, name, _array_header(archive, name), shapes[name])
    except ChunkFormatError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise ChunkFormatError(f"chunk {path}: corrupt data: {error}") from error
    return names


def read_chunk(path: str | os.PathLike[str], expect: ChunkInfo | None = None) -> Samples:
    """Read and check a chunk; ``expect`` (game, board size, encoder) must fit when given.

    A version 1 chunk reads with every sample masked out of the ownership and score targets.
    """
    path = Path(path)
    with _open(path) as archive:
        info, version = _info_of(path, archive)
        _check_fit(path, info, expect)
        names = _check_headers(path, archive, info, version)   # every header before any data is unpacked
        try:
            arrays = {name: archive[name] for name in names}
        except (OSError, ValueError, zipfile.BadZipFile, zlib.error, EOFError) as error:
            raise ChunkFormatError(f"chunk {path}: corrupt data: {error}") from error
    shapes = _shapes(info)
    for name, (shape, dtype) in shapes.items():
        if name not in arrays:   # version 1: no targets, all masked
            arrays[name] = np.zeros(shape, dtype)
        _check_array(path, name, (arrays[name].shape, arrays[name].dtype), (shape, dtype))
    for name in ("policy", "value", "score"):
        if not np.isfinite(arrays[name]).all():
            raise ChunkFormatError(f"chunk {path} is corrupt: {name} holds NaN or infinite numbers")
    return Samples(info, **arrays)


def _array_header(archive: Any, name: str) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and dtype an ``.npz`` member declares, read without unpacking its data."""
    with archive.zip.open(f"{name}.npy") as member:
        version = np.lib.format.read_magic(member)
        shape, _, dtype = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
                           np.lib.format.read_array_header_2_0)(member)
    return shape, dtype


def _check_array(path: Path, name: str, found: tuple[tuple[int, ...], Any], expected: tuple[tuple[int, ...], Any]
                 ) -> None:
    (shape, dtype), (expected_shape, expected_dtype) = found, expected
    if shape != expected_shape or np.dtype(dtype) != np.dtype(expected_dtype):
        raise ChunkFormatError(f"chunk {path}: {name} is {np.dtype(dtype)}{list(shape)}, expected "
                               f"{np.dtype(expected_dtype)}{list(expected_shape)}")


def list_chunks(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Chunk files named by ``paths``: files as given, folders expanded to their ``*.npz`` (sorted)."""
    found: list[Path] = []
    for item in map(Path, paths):
        if item.is_dir():
            found += sorted(p for p in item.glob(f"*{CHUNK_SUFFIX}") if not p.name.startswith("."))
        elif item.is_file():
            found.append(item)
        else:
            raise ChunkFormatError(f"chunk {item}: no such file or folder")
    return found


def check_chunks(files: Sequence[Path], expect: ChunkInfo | None = None) -> list[ChunkInfo]:
    """:func:`check_chunk` of every file: all must fit ``expect``, or the first chunk when ``expect`` is None
    and code their planes alike. Reads the headers alone, so a set of any size is checked before training."""
    infos: list[ChunkInfo] = []
    for path in files:
        info = check_chunk(path, expect if expect is not None else (infos[0] if infos else None))
        if infos and info.plane_coding != infos[0].plane_coding:
            raise ChunkFormatError(f"chunk {path} codes its planes as {info.plane_coding!r}, the chunk {files[0]} "
                                   f"as {infos[0].plane_coding!r}")
        infos.append(info)
    return infos


def read_chunks(files: Sequence[Path], infos: Sequence[ChunkInfo]) -> Samples:
    """The samples of ``files`` (described by ``infos``, from :func:`check_chunks`) one after the other,
    described by the first chunk's info with the komi they share (:func:`shared_komi`). Each chunk is read
    straight into its rows of the result, so the memory needed is the result's and one chunk's."""
    first = infos[0]
    shapes = _shapes(replace(first, samples=sum(info.samples for info in infos)))
    arrays = {name: np.empty(shape, dtype) for name, (shape, dtype) in shapes.items()}
    row = 0
    for path, info in zip(files, infos):
        part = read_chunk(path, first)
        if len(part) != info.samples or part.info.plane_coding != first.plane_coding:
            raise ChunkFormatError(f"chunk {path} changed while it was read: it now holds {part.info.samples} "
                                   f"samples coded {part.info.plane_coding!r}, not {info.samples} coded "
                                   f"{info.plane_coding!r}")
        for name, array in arrays.items():
            array[row:row + len(part)] = getattr(part, name)
        row += len(part)
    return Samples(replace(first, komi=shared_komi(info.komi for info in infos)), **arrays)


def load_samples(paths: Sequence[str | os.PathLike[str]], expect: ChunkInfo | None = None) -> Samples:
    """Every sample of the chunks at ``paths`` (files or folders), one after the other in memory.

    All chunks must fit ``expect``, or the first chunk when ``expect`` is None.
    """
    files = list_chunks(paths)
    if not files:
        raise ChunkFormatError(f"no chunks found in {', '.join(map(str, paths))}")
    return read_chunks(files, check_chunks(files, expect))
