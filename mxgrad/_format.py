"""MXNet 1.x's binary NDArray list format: the one codec every mxgrad saver and loader uses.

Layout (little-endian), as ``src/ndarray/ndarray.cc`` of MXNet 1.9 writes it::

    uint64 0x112, uint64 0                     list header
    uint64 n, then n NDArray records
    uint64 k (0 or n), then k names: uint64 byte length + UTF-8 bytes

    record (V2, magic 0xF993FAC9; V3 0xF993FACA is the same with NumPy shape semantics):
    uint32 magic, int32 storage type (0 dense, 1 row_sparse, 2 csr)
    [sparse: storage shape]  shape  (a shape is int32 ndim + ndim int64 dims)
    int32 device type, int32 device id, int32 dtype flag
    [sparse: per aux array: int32 dtype flag + shape]
    raw data  [sparse: raw aux data]

Older records (V1, magic 0xF993FAC8, and the first format whose "magic" is the ndim
followed by uint32 dims) have no storage type. Sparse records are loaded as dense arrays.
Nothing here can execute code: the reader only interprets numbers and bytes.

Examples
--------
>>> import numpy as np
>>> blob = dumps([np.arange(3, dtype=np.float32)], ['a'])
>>> blob[:8].hex(), len(blob)
('1201000000000000', 85)
>>> names, arrays = loads(blob)
>>> names, arrays[0].tolist()
(['a'], [0.0, 1.0, 2.0])
"""
from __future__ import annotations

import os
import struct
import sys
import zipfile
from typing import Any, List, Optional, Sequence, Tuple, cast

import numpy as np

from .base import DTypeError, FileFormatError
from .util import is_np_shape

__all__ = ["LIST_MAGIC", "dumps", "loads", "write_arrays", "read_file", "encode", "sniff"]

LIST_MAGIC = 0x112
V1_MAGIC = 0xF993FAC8
V2_MAGIC = 0xF993FAC9
V3_MAGIC = 0xF993FACA

_DENSE, _ROW_SPARSE, _CSR = 0, 1, 2
_NUM_AUX = {_DENSE: 0, _ROW_SPARSE: 1, _CSR: 2}
_STYPE_NAMES = {_ROW_SPARSE: "row_sparse", _CSR: "csr"}
_BFLOAT16 = 12
_FLAG_DTYPES = {0: "<f4", 1: "<f8", 2: "<f2", 3: "|u1", 4: "<i4", 5: "|i1", 6: "<i8",
                7: "|b1", 8: "<i2", 9: "<u2", 10: "<u4", 11: "<u8", _BFLOAT16: "<u2"}
_DTYPE_FLAGS = {np.dtype(v).newbyteorder("=") if v[0] == "<" else np.dtype(v): k
                for k, v in _FLAG_DTYPES.items() if k != _BFLOAT16}
_LITTLE = sys.byteorder == "little"
_MAX_NDIM = 32

_Q = struct.Struct("<Q")
_I = struct.Struct("<I")
_i = struct.Struct("<i")


# ------------------------------------------------------------------ writing
def _shape_bytes(shape) -> bytes:
    return struct.pack(f"<i{len(shape)}q", len(shape), *shape)


def encode(arrays: Sequence[np.ndarray], names: Optional[Sequence[str]],
           what: str = "data") -> list:
    """The file's content as a list of ``bytes`` and array buffers, validated first.

    Raises a :class:`~mxgrad.base.DTypeError` naming the item (``what[key]``) when a
    dtype cannot be stored; nothing is written by this function.

    Examples
    --------
    >>> b''.join(bytes(c) for c in encode([np.zeros(1, np.int8)], None)).hex()[:16]
    '1201000000000000'
    """
    if names is not None and len(names) != len(arrays):
        raise FileFormatError("names and arrays must have the same length")
    chunks: list = [struct.pack("<QQQ", LIST_MAGIC, 0, len(arrays))]
    np_shapes = is_np_shape()
    for i, arr in enumerate(arrays):
        label = f"{what}[{names[i]!r}]" if names is not None else f"{what}[{i}]"
        dtype = arr.dtype
        flag = _DTYPE_FLAGS.get(dtype.newbyteorder("=") if dtype.byteorder in "<>" else dtype)
        if flag is None:
            raise DTypeError(f"{label} has dtype {dtype}, which the MXNet NDArray format "
                             f"cannot store; cast it (e.g. .astype('float32')) first")
        # MXNet writes V3 records (0-d and zero-size shapes are real) in NumPy shape mode
        shape = arr.shape if arr.ndim or np_shapes else (1,)
        chunks.append(struct.pack("<Ii", V3_MAGIC if np_shapes else V2_MAGIC, _DENSE)
                      + _shape_bytes(shape)
                      + struct.pack("<iii", 1, 0, flag))
        if dtype.itemsize > 1 and (dtype.byteorder == ">" or
                                   (dtype.byteorder == "=" and not _LITTLE)):
            arr = arr.astype(dtype.newbyteorder("<"))
        arr = np.ascontiguousarray(arr)
        if arr.size:
            chunks.append(arr.reshape(-1).view(np.uint8).data)
    if names is None:
        chunks.append(_Q.pack(0))
    else:
        parts = [_Q.pack(len(names))]
        for name in names:
            raw = name.encode("utf-8", "surrogatepass")
            parts.append(_Q.pack(len(raw)))
            parts.append(raw)
        chunks.append(b"".join(parts))
    return chunks


def dumps(arrays: Sequence[np.ndarray], names: Optional[Sequence[str]] = None) -> bytes:
    """The file content for ``arrays`` (with ``names``, or a plain list) as ``bytes``.

    Examples
    --------
    >>> len(dumps([]))
    32
    """
    return b"".join(bytes(c) if not isinstance(c, bytes) else c for c in encode(arrays, names))


def write_arrays(fname, arrays: Sequence[np.ndarray], names: Optional[Sequence[str]] = None,
                 what: str = "data") -> None:
    """Write ``arrays`` (and ``names``) to ``fname`` atomically, validating everything first.

    Examples
    --------
    >>> import os, tempfile
    >>> f = os.path.join(tempfile.mkdtemp(), 'a.nd')
    >>> write_arrays(f, [np.ones(2, np.float64)], ['w'])
    >>> read_file(f)[0]
    ['w']
    """
    from ._fileio import atomic_write
    chunks = encode(arrays, names, what)
    with atomic_write(fname) as f:
        for c in chunks:
            f.write(c)


# ------------------------------------------------------------------ reading
class _Reader:
    """Reads from a binary stream whose total size is known, with clear truncation errors."""

    __slots__ = ("f", "pos", "size", "where")

    def __init__(self, f, size: int, where: str):
        self.f = f
        self.pos = 0
        self.size = size
        self.where = where

    def need(self, n: int, what: str) -> None:
        if n < 0 or self.pos + n > self.size:
            raise FileFormatError(
                f"{self.where} is truncated or corrupt: {what} needs {n} bytes at offset "
                f"{self.pos}, but the file has {self.size} bytes")

    def read(self, n: int, what: str) -> bytes:
        self.need(n, what)
        b = self.f.read(n)
        if len(b) != n:
            raise FileFormatError(f"{self.where} is truncated: {what} ends early")
        self.pos += n
        return b

    def u32(self, what: str) -> int:
        return _I.unpack(self.read(4, what))[0]

    def i32(self, what: str) -> int:
        return _i.unpack(self.read(4, what))[0]

    def u64(self, what: str) -> int:
        return _Q.unpack(self.read(8, what))[0]

    def shape(self, what: str, ndim: Optional[int] = None, dim_fmt: str = "q"
              ) -> Optional[Tuple[int, ...]]:
        if ndim is None:
            ndim = self.i32(what)
        if ndim < -1 or ndim > _MAX_NDIM:
            raise FileFormatError(f"{self.where} is corrupt: {what} has {ndim} dimensions")
        if ndim <= 0:
            return () if ndim == 0 else None
        size = struct.calcsize("<" + dim_fmt)
        return struct.unpack(f"<{ndim}{dim_fmt}", self.read(ndim * size, what))

    def array(self, dtype: np.dtype, shape: tuple, what: str) -> np.ndarray:
        count = 1
        for d in shape:
            count *= d
        self.need(count * dtype.itemsize, what)
        try:
            out = np.empty(shape, dtype)
        except (ValueError, MemoryError):   # e.g. (0, 2**62, 2**62): no bytes, no array
            raise FileFormatError(f"{self.where} is corrupt: {what} has shape "
                                  f"{tuple(shape)}") from None
        if count:
            n = self.f.readinto(out.reshape(-1).view(np.uint8).data)
            if n != count * dtype.itemsize:
                raise FileFormatError(f"{self.where} is truncated: {what} ends early")
            self.pos += n
        return out


class _MemFile:
    """``read``/``readinto`` over a memoryview without copying the whole buffer first."""

    __slots__ = ("mv", "pos")

    def __init__(self, mv: memoryview):
        self.mv = mv
        self.pos = 0

    def read(self, n: int) -> bytes:
        b = bytes(self.mv[self.pos:self.pos + n])
        self.pos += len(b)
        return b

    def readinto(self, dst) -> int:
        dst = memoryview(dst).cast("B")
        src = self.mv[self.pos:self.pos + len(dst)]
        dst[:len(src)] = src
        self.pos += len(src)
        return len(src)


def _native(arr: np.ndarray, flag: int) -> np.ndarray:
    if flag == _BFLOAT16:   # bfloat16: the high half of a float32
        return (arr.astype(np.uint32) << 16).view(np.float32)
    if flag == 7:
        return arr.view(np.uint8) != 0 if arr.view(np.uint8).max(initial=0) > 1 else arr
    if not _LITTLE and arr.dtype.byteorder == "<":
        return arr.astype(arr.dtype.newbyteorder("="))
    return arr


def _check_dims(r: _Reader, shape, what: str) -> None:
    if shape is None or any(d < 0 for d in shape):
        raise FileFormatError(f"{r.where} is corrupt: {what} has an unknown or negative "
                              f"dimension {shape}")


def _record(r: _Reader, idx: int) -> np.ndarray:
    what = f"array {idx}"
    magic = r.u32(what)
    if magic in (V2_MAGIC, V3_MAGIC):
        stype = r.i32(what)
        if stype not in _NUM_AUX:
            raise FileFormatError(f"{r.where} is corrupt: {what} has unknown storage type "
                                  f"{stype}")
        nad = _NUM_AUX[stype]
        sshape = r.shape(what + " storage shape") if nad else None
        shape = r.shape(what + " shape")
        if shape is not None and any(d < -1 for d in shape):   # MXNet's shape_is_known
            raise FileFormatError(f"{r.where} is corrupt: {what} has dimension "
                                  f"{min(shape)} in shape {shape} (a dimension must be "
                                  f">= -1)")
        if shape is None or (magic == V2_MAGIC and shape == ()) or \
                (magic == V3_MAGIC and -1 in shape):
            return np.zeros((0,), np.float32)      # an empty ("none") array
    elif magic == V1_MAGIC or magic <= _MAX_NDIM:
        stype, nad, sshape = _DENSE, 0, None
        if magic == V1_MAGIC:
            shape = r.shape(what + " shape")
        else:   # the oldest format: the magic is the ndim, dims are uint32
            shape = r.shape(what + " shape", ndim=magic, dim_fmt="I")
        if not shape:
            return np.zeros((0,), np.float32)
    else:
        raise FileFormatError(f"{r.where} is corrupt: {what} starts with 0x{magic:08x}, "
                              f"not an NDArray record magic")
    _check_dims(r, shape, what)
    r.read(8, what + " context")
    flag = r.i32(what + " dtype")
    if flag not in _FLAG_DTYPES:
        raise FileFormatError(f"{r.where}: {what} has dtype flag {flag}, which is not a "
                              f"dtype mxgrad knows")
    dtype = np.dtype(_FLAG_DTYPES[flag])
    if nad == 0:
        data = _native(r.array(dtype, shape, what + " data"), flag)
        return data.reshape(1) if data.ndim == 0 and not is_np_shape() else data
    aux = []
    for j in range(nad):
        aflag = r.i32(what + " aux dtype")
        if aflag not in _FLAG_DTYPES or aflag in (0, 1, 2, 7, _BFLOAT16):
            raise FileFormatError(f"{r.where} is corrupt: {what} has index dtype flag "
                                  f"{aflag}")
        ashape = r.shape(what + " aux shape")
        _check_dims(r, ashape, what)
        aux.append((np.dtype(_FLAG_DTYPES[aflag]), cast(Tuple[int, ...], ashape)))
    _check_dims(r, sshape, what)
    values = _native(r.array(dtype, cast(Tuple[int, ...], sshape), what + " data"), flag)
    aux_data = [_native(r.array(t, s, what + " aux data"), 6).astype(np.int64)
                for t, s in aux]
    return _densify(r, stype, shape, values, aux_data, what)


class _TooLarge(Exception):
    """A sparse record whose dense form cannot be allocated (reported with its key)."""


def _dense_zeros(stype, shape, dtype, what) -> np.ndarray:
    try:
        return np.zeros(shape, dtype)
    except (MemoryError, ValueError):
        size = int(np.prod(np.array(shape, dtype=object))) * np.dtype(dtype).itemsize
        raise _TooLarge(f"{what} is a {_STYPE_NAMES[stype]} array of shape {tuple(shape)}, "
                        f"which would need {size:,} bytes as a dense array (mxgrad loads "
                        f"sparse arrays as dense)") from None


def _densify(r, stype, shape, values, aux, what) -> np.ndarray:
    bad = f"{r.where} is corrupt: {_STYPE_NAMES[stype]} {what} of shape {tuple(shape)}"
    if stype == _ROW_SPARSE:
        idx = aux[0]
        if len(shape) < 1 or values.shape[1:] != tuple(shape[1:]) or \
                idx.shape != values.shape[:1] or \
                (idx.size and (idx.min() < 0 or idx.max() >= shape[0])):
            raise FileFormatError(f"{bad} has inconsistent row indices or values")
        out = _dense_zeros(stype, shape, values.dtype, what)
        out[idx] = values
        return out
    indptr, indices = aux
    if len(shape) != 2 or indptr.shape != (shape[0] + 1,) or \
            indices.shape != values.shape or values.ndim != 1 or \
            indptr[0] != 0 or indptr[-1] != values.shape[0] or \
            (indptr.size > 1 and np.any(np.diff(indptr) < 0)) or \
            (indices.size and (indices.min() < 0 or indices.max() >= shape[1])):
        raise FileFormatError(f"{bad} has inconsistent indptr, indices or values")
    out = _dense_zeros(stype, shape, values.dtype, what)
    rows = np.repeat(np.arange(shape[0]), np.diff(indptr))
    out[rows, indices] = values
    return out


def _read_list(r: _Reader) -> Tuple[List[str], List[np.ndarray]]:
    if r.size < 16:
        raise FileFormatError(f"{r.where} is not an MXNet NDArray file: it has only "
                              f"{r.size} bytes")
    header = r.u64("header")
    r.u64("header")
    if header != LIST_MAGIC:
        raise FileFormatError(f"{r.where} is not an MXNet NDArray file (header "
                              f"0x{header:x}, expected 0x{LIST_MAGIC:x})")
    count = r.u64("array count")
    if count > (r.size - r.pos) // 12:
        raise FileFormatError(f"{r.where} is corrupt: it claims {count} arrays")
    arrays: List[Any] = []   # None where an array is too large (reported below)
    too_large = []
    for i in range(count):
        try:
            arrays.append(_record(r, i))
        except _TooLarge as err:   # the data was consumed: name the key once it is read
            too_large.append((i, str(err)))
            arrays.append(None)
    nnames = r.u64("name count")
    if nnames not in (0, count):
        raise FileFormatError(f"{r.where} is corrupt: {nnames} names for {count} arrays")
    names = []
    for i in range(nnames):
        n = r.u64(f"name {i}")
        raw = r.read(n, f"name {i}")
        try:
            names.append(raw.decode("utf-8", "surrogatepass"))
        except UnicodeDecodeError:
            raise FileFormatError(f"{r.where} is corrupt: name {i} is not UTF-8") from None
    if too_large:
        i, msg = too_large[0]
        key = f"key {names[i]!r} ({msg})" if names else msg
        raise FileFormatError(f"{r.where} cannot be loaded: {key}")
    return names, arrays


_SIGNATURES = (
    (b"PK\x03\x04", "zip"), (b"PK\x05\x06", "zip"),
    (b"\x93NUMPY", "a NumPy .npy file (load it with numpy.load)"),
    (b"\x80", "a Python pickle, which mxgrad never loads (it can run code)"),
    (b"\x89HDF", "an HDF5 file"), (b"{", "a JSON/text file"),
)


def sniff(head: bytes) -> Optional[str]:
    """What a file starting with ``head`` is, when it is not an MXNet NDArray list.

    Returns ``None`` for the NDArray format, ``'zip'`` for a zip (``.npz``) archive or a
    description of the foreign format.

    Examples
    --------
    >>> sniff(b'\\x12\\x01' + bytes(6)), sniff(b'\\x93NUMPY')
    (None, 'a NumPy .npy file (load it with numpy.load)')
    """
    if len(head) >= 8 and _Q.unpack(head[:8])[0] == LIST_MAGIC:
        return None
    for sig, what in _SIGNATURES:
        if head.startswith(sig):
            return what
    if not head:
        return "empty"
    return "unknown"


def _foreign(where: str, kind: str, size: int) -> FileFormatError:
    if kind == "empty":
        return FileFormatError(f"{where} is empty, not an MXNet NDArray file")
    if kind == "unknown":
        return FileFormatError(f"{where} is not an MXNet NDArray file (nor an mxgrad .npz): "
                               f"its first bytes are not the 0x112 header ({size} bytes)")
    return FileFormatError(f"{where} is {kind}, not an MXNet NDArray file")


def loads(buf, where: str = "the buffer") -> Tuple[List[str], List[np.ndarray]]:
    """Decode an NDArray list from ``bytes``/``bytearray``/``memoryview``: ``(names, arrays)``.

    ``names`` is empty when the file holds a plain list. Arrays are new, writable copies.

    Examples
    --------
    >>> loads(dumps([np.ones(1, np.int64)]))[1][0].dtype
    dtype('int64')
    """
    mv = memoryview(buf).cast("B")
    kind = sniff(bytes(mv[:8]))
    if kind is not None:
        raise _foreign(where, kind, len(mv))
    return _read_list(_Reader(_MemFile(mv), len(mv), where))


def loads_one(raw, where: str = "a pickled NDArray") -> np.ndarray:
    """Decode one array record without the list header: the bytes of MXNet's
    ``MXNDArraySaveRawBytes``, which MXNet's ``NDArray.__getstate__`` pickles as
    ``{'handle': bytes}`` (a GPU array's record loads onto the CPU)."""
    mv = memoryview(raw).cast("B")
    return _record(_Reader(_MemFile(mv), len(mv), where), 0)


def read_file(fname) -> Tuple[List[str], List[np.ndarray]]:
    """Read an NDArray list file (or an older mxgrad ``.npz``): ``(names, arrays)``.

    Examples
    --------
    >>> import os, tempfile
    >>> f = os.path.join(tempfile.mkdtemp(), 'l.nd')
    >>> write_arrays(f, [np.zeros((2, 2), np.uint8)])
    >>> read_file(f)[1][0].shape
    (2, 2)
    """
    from ._fileio import open_for_read
    where = f"file {os.fspath(fname)!r}"
    with open_for_read(fname) as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(8)
        kind = sniff(head)
        if kind == "zip":
            f.seek(0)
            return _read_npz(f, where)
        if kind is not None:
            raise _foreign(where, kind, size)
        f.seek(0)
        return _read_list(_Reader(f, size, where))


# DEFLATE cannot expand data by more than ~1032x; a member claiming more is a lie or a bomb
_MAX_DEFLATE_RATIO = 1100


def _check_npz_member(zf: "zipfile.ZipFile", key: str, where: str) -> None:
    """Refuse an ``.npz`` member whose ``.npy`` header claims more data than the member
    holds, before NumPy allocates it (a 2**40-element header would raise MemoryError)."""
    try:
        info = zf.getinfo(key + ".npy")
    except KeyError:
        info = zf.getinfo(key)
    limit = info.compress_size if info.compress_type == zipfile.ZIP_STORED else \
        info.compress_size * _MAX_DEFLATE_RATIO + 1024
    if info.file_size > limit:
        raise FileFormatError(f"{where} is corrupt: .npz member {key!r} claims "
                              f"{info.file_size:,} bytes from {info.compress_size:,} "
                              f"stored bytes")
    with zf.open(info) as m:
        try:
            version = np.lib.format.read_magic(m)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(m)
            else:
                shape, _, dtype = np.lib.format.read_array_header_2_0(m)
        except ValueError as err:
            raise FileFormatError(f"{where} is corrupt: .npz member {key!r} is not a .npy "
                                  f"array ({err})") from None
    count = 1
    for d in shape:
        count *= d
    if count * dtype.itemsize > info.file_size:
        raise FileFormatError(f"{where} is corrupt: .npz member {key!r} claims shape "
                              f"{shape} ({count * dtype.itemsize:,} bytes of {dtype}) but "
                              f"holds {info.file_size:,} bytes")


def _read_npz(f, where: str) -> Tuple[List[str], List[np.ndarray]]:
    """mxgrad's earlier ``nd.save`` format: an ``.npz`` with a ``__kind__`` entry."""
    try:
        with np.load(f, allow_pickle=False) as z:
            if "__kind__" not in z.files:
                raise FileFormatError(f"{where} is a zip/.npz archive that mxgrad did not "
                                      f"write (no __kind__ entry); load it with numpy.load")
            for k in z.files:
                _check_npz_member(z.zip, k, where)
            kind = str(z["__kind__"])
            items = {k: z[k] for k in z.files if k != "__kind__"}
    except FileFormatError:
        raise
    except (ValueError, OSError, EOFError, KeyError, MemoryError,
            zipfile.BadZipFile) as err:   # bad zip, object arrays
        raise FileFormatError(f"{where} is a damaged or unsupported .npz archive: "
                              f"{err}") from None
    if kind == "dict":
        return list(items), list(items.values())
    try:
        return [], [items[str(i)] for i in range(len(items))]
    except KeyError:
        raise FileFormatError(f"{where}: an mxgrad .npz list with missing entries") from None
