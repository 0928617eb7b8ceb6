"""``mx.recordio``: read and write MXNet's RecordIO files (``.rec``) and their ``.idx`` index.

The format is dmlc-core's RecordIO, byte for byte: every record starts with the magic word
``0xced7230a`` and a little-endian ``uint32`` holding the length (low 29 bits) and a
continuation flag (high 3 bits); the payload follows, padded with zeros to a multiple of 4
bytes. A payload containing the magic word at a 4-byte aligned offset is split there into
parts (flags 1, 2, ..., 3) so that a reader can resynchronise; the reader joins them again.
The ``.idx`` file is text, one ``key<TAB>byte offset`` line per record.

Record writers stream to the file as records arrive (like MXNet's), so they are not atomic:
a writer that is interrupted leaves a truncated file.

``pack``/``unpack`` add MXNet's image-record header (``IRHeader``, struct ``'IfQQ'``).
``pack_img``/``unpack_img`` encode/decode images with Pillow (``pip install mxgrad[image]``);
like MXNet (which uses OpenCV) they take and return BGR NumPy arrays.

Examples
--------
>>> import os, tempfile
>>> import mxgrad as mx
>>> d = tempfile.mkdtemp()
>>> rec = mx.recordio.MXIndexedRecordIO(os.path.join(d, 'x.idx'), os.path.join(d, 'x.rec'), 'w')
>>> for i in range(3):
...     rec.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, float(i), i, 0), b'abc'))
>>> rec.close()
>>> rec = mx.recordio.MXIndexedRecordIO(os.path.join(d, 'x.idx'), os.path.join(d, 'x.rec'), 'r')
>>> header, payload = mx.recordio.unpack(rec.read_idx(2))
>>> header.label, payload
(2.0, b'abc')
>>> rec.keys
[0, 1, 2]
>>> rec.close()
"""
from __future__ import annotations

import numbers
import os
import struct
import threading
from collections import namedtuple
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from .base import DTypeError, FileAccessError, FileMissingError, MXNetError, StateError

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img",
           "unpack_img", "RecordIOError", "RecordKeyError"]

_MAGIC = 0xced7230a
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_LEN_MASK = (1 << 29) - 1


class RecordIOError(MXNetError, ValueError):
    """A RecordIO file that is not valid (bad magic word, truncated record)."""


class RecordKeyError(MXNetError, KeyError):
    """A key that is not in the ``.idx`` index (a ``KeyError``, as in MXNet)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


def _as_bytes(buf: Any, what: str) -> bytes:
    if isinstance(buf, (bytes, bytearray, memoryview)):
        return bytes(buf)
    if isinstance(buf, str):
        raise DTypeError(f"{what}: a record is bytes, not str; encode it first "
                         f"(e.g. {buf[:10]!r}.encode())")
    raise DTypeError(f"{what}: a record must be bytes, got {type(buf).__name__}")


def _encode_record(buf: bytes) -> bytes:
    """The bytes dmlc's ``RecordIOWriter::WriteRecord`` writes for one record."""
    n = len(buf)
    if n >= 1 << 29:
        raise StateError(f"MXRecordIO.write: a record must be shorter than 2**29 bytes, got {n}")
    parts = []
    start = 0
    pos = buf.find(_MAGIC_BYTES)
    while pos != -1:
        if pos % 4 == 0 and pos + 4 <= (n >> 2) << 2:
            flag = 1 if start == 0 else 2
            parts.append(_MAGIC_BYTES + struct.pack("<I", (flag << 29) | (pos - start)))
            parts.append(buf[start:pos])
            start = pos + 4
            pos = buf.find(_MAGIC_BYTES, start)
        else:
            pos = buf.find(_MAGIC_BYTES, pos + 1)
    flag = 3 if start != 0 else 0
    parts.append(_MAGIC_BYTES + struct.pack("<I", (flag << 29) | (n - start)))
    parts.append(buf[start:])
    parts.append(b"\0" * (-n % 4))
    return b"".join(parts)


def _open_error(err: OSError, msg: str) -> MXNetError:
    return FileMissingError(msg) if isinstance(err, FileNotFoundError) else \
        FileAccessError(msg)


class MXRecordIO:
    """Sequential reader/writer of a RecordIO file (MXNet's ``mx.recordio.MXRecordIO``).

    Parameters
    ----------
    uri : str
        Path of the ``.rec`` file.
    flag : {'r', 'w'}
        ``'w'`` creates (truncates) the file for writing, ``'r'`` reads it.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), 'a.rec')
    >>> w = MXRecordIO(path, 'w')
    >>> w.write(b'record_0'); w.write(b'record_1'); w.close()
    >>> r = MXRecordIO(path, 'r')
    >>> r.read(), r.read(), r.read()
    (b'record_0', b'record_1', None)
    >>> r.close()
    """

    def __init__(self, uri: str, flag: str):
        if flag not in ("r", "w"):
            raise StateError(f"MXRecordIO: invalid flag {flag!r}; use 'r' to read or 'w' "
                             f"to write")
        self.uri = os.fspath(uri)
        self.flag = flag
        self.pid: Optional[int] = None
        self.is_open = False
        self.writable = flag == "w"
        self._file: Any = None   # the open binary file while open
        self.open()

    def open(self) -> None:
        """Open the file (truncating it in ``'w'`` mode)."""
        try:
            self._file = open(self.uri, "wb" if self.writable else "rb")
        except OSError as err:
            raise _open_error(err, f"MXRecordIO: cannot open {self.uri!r} for "
                              f"{'writing' if self.writable else 'reading'}: {err}") from err
        self.pid = os.getpid()
        self.is_open = True
        self._lock = threading.Lock()  # read_idx = seek + read, atomic across threads

    def close(self) -> None:
        """Close the file (flushing written records)."""
        if not self.is_open:
            return
        self._file.close()
        self._file = None
        self.is_open = False
        self.pid = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getstate__(self) -> Dict[str, Any]:
        """Pickle as path and flag (the file is reopened on unpickling, as in MXNet)."""
        d = dict(self.__dict__)
        d["_file"] = None
        d["pid"] = None
        d["_lock"] = None
        return d

    def __setstate__(self, d: Dict[str, Any]) -> None:
        is_open = d["is_open"]
        self.__dict__ = d
        self.is_open = False
        if is_open:
            self.open()

    def _check_pid(self, allow_reset: bool = False) -> None:
        if self.pid != os.getpid():
            if allow_reset:
                self.reset()
            else:
                raise MXNetError("MXRecordIO: this record file was opened in another process; "
                                 "call reset() (or open a new one) in this process")

    def _check_open(self, what: str) -> None:
        if not self.is_open:
            raise MXNetError(f"MXRecordIO.{what}: {self.uri!r} is closed; call open() or "
                             f"reset() first")

    def reset(self) -> None:
        """Go back to the first record (in ``'w'`` mode this empties the file)."""
        self.close()
        self.open()

    def write(self, buf: bytes) -> None:
        """Append one record (``bytes``)."""
        if not self.writable:
            raise MXNetError(f"MXRecordIO.write: {self.uri!r} was opened for reading "
                             f"(flag 'r'); open it with flag 'w' to write")
        self._check_open("write")
        self._check_pid(allow_reset=False)
        self._file.write(_encode_record(_as_bytes(buf, "MXRecordIO.write")))

    def read(self) -> Optional[bytes]:
        """The next record as ``bytes``, or ``None`` at the end of the file."""
        if self.writable:
            raise MXNetError(f"MXRecordIO.read: {self.uri!r} was opened for writing "
                             f"(flag 'w'); open it with flag 'r' to read")
        self._check_open("read")
        self._check_pid(allow_reset=False)
        f = self._file
        out: List[bytes] = []
        while True:
            head = f.read(8)
            if not head:
                if out:
                    raise RecordIOError(f"{self.uri!r}: the file ends inside a split record")
                return None
            if len(head) != 8:
                raise RecordIOError(f"{self.uri!r}: truncated record header at byte "
                                    f"{f.tell() - len(head)}")
            magic, lrec = struct.unpack("<II", head)
            if magic != _MAGIC:
                raise RecordIOError(f"{self.uri!r}: invalid RecordIO file (no magic word at "
                                    f"byte {f.tell() - 8}); is it a .rec file?")
            cflag, length = lrec >> 29, lrec & _LEN_MASK
            padded = (length + 3) & ~3
            if padded > 65536 and f.tell() + padded > os.fstat(f.fileno()).st_size:
                # a length from the file is checked against the file before reading it
                raise RecordIOError(f"{self.uri!r}: truncated record at byte "
                                    f"{f.tell() - 8} (its header announces {length} "
                                    f"bytes, more than the file holds)")
            data = f.read(padded)
            if len(data) != padded:
                raise RecordIOError(f"{self.uri!r}: truncated record at byte "
                                    f"{f.tell() - len(data) - 8}")
            out.append(data[:length])
            if cflag in (0, 3):
                return out[0] if len(out) == 1 else _MAGIC_BYTES.join(out)

    def _tell(self) -> int:
        return self._file.tell()

    def _seek(self, pos: int) -> None:
        self._file.seek(pos)


class MXIndexedRecordIO(MXRecordIO):
    """RecordIO file with an ``.idx`` index for random access
    (MXNet's ``mx.recordio.MXIndexedRecordIO``).

    Parameters
    ----------
    idx_path : str
        Path of the index file (text, ``key<TAB>offset`` per line).
    uri : str
        Path of the ``.rec`` file.
    flag : {'r', 'w'}
        Read or write.
    key_type : callable, default int
        Type of the keys (applied to the key text when reading the index).

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> w = MXIndexedRecordIO(os.path.join(d, 'a.idx'), os.path.join(d, 'a.rec'), 'w')
    >>> for i in range(3):
    ...     w.write_idx(i, b'record_%d' % i)
    >>> w.tell()
    48
    >>> w.close()
    >>> r = MXIndexedRecordIO(os.path.join(d, 'a.idx'), os.path.join(d, 'a.rec'), 'r')
    >>> r.read_idx(1)
    b'record_1'
    >>> r.close()
    """

    def __init__(self, idx_path: str, uri: str, flag: str, key_type: Callable = int):
        self.idx_path = os.fspath(idx_path)
        self.idx: Dict[Any, int] = {}
        self.keys: List[Any] = []
        self.key_type = key_type
        self.fidx: Any = None   # the open index file while open
        super().__init__(uri, flag)

    def open(self) -> None:
        super().open()
        self.idx = {}
        self.keys = []
        try:
            self.fidx = open(self.idx_path, self.flag)
        except OSError as err:
            super().close()
            raise _open_error(err, f"MXIndexedRecordIO: cannot open index "
                              f"{self.idx_path!r}: {err}") from err
        if not self.writable:
            try:
                self._read_index()
            except BaseException:
                self.close()
                raise

    def _read_index(self) -> None:
        size = os.fstat(self._file.fileno()).st_size
        try:
            for lineno, line in enumerate(self.fidx, 1):
                if not line.strip():
                    continue
                fields = line.strip().split("\t")
                try:
                    key = self.key_type(fields[0])
                    pos = int(fields[1])
                except (ValueError, IndexError, TypeError) as err:
                    raise RecordIOError(f"{self.idx_path!r} line {lineno}: expected "
                                        f"'key<TAB>offset', got {line.strip()[:80]!r}"
                                        ) from err
                if not 0 <= pos <= size - 8:
                    raise RecordIOError(
                        f"{self.idx_path!r} line {lineno}: offset {pos} of key {key!r} is "
                        f"outside {self.uri!r} ({size} bytes); the index does not belong "
                        f"to this .rec file (rebuild it with im2rec or write_idx)")
                self.idx[key] = pos
                self.keys.append(key)
        except UnicodeDecodeError:
            raise RecordIOError(f"{self.idx_path!r} is not a text index "
                                f"('key<TAB>offset' lines)") from None

    def close(self) -> None:
        if not self.is_open:
            return
        super().close()
        self.fidx.close()
        self.fidx = None

    def __getstate__(self) -> Dict[str, Any]:
        d = super().__getstate__()
        d["fidx"] = None
        return d

    def seek(self, idx: Any) -> None:
        """Move the read position to the record with key ``idx``."""
        if self.writable:
            raise MXNetError("MXIndexedRecordIO.seek: the file was opened for writing")
        self._check_pid(allow_reset=True)
        try:
            pos = self.idx[idx]
        except KeyError:
            raise RecordKeyError(f"MXIndexedRecordIO: no record with key {idx!r} in "
                             f"{self.idx_path!r} ({len(self.keys)} keys)") from None
        self._seek(pos)

    def tell(self) -> int:
        """The byte offset where the next record will be written."""
        if not self.writable:
            raise MXNetError("MXIndexedRecordIO.tell: the file was opened for reading")
        return self._tell()

    def read_idx(self, idx: Any) -> bytes:
        """The record with key ``idx``."""
        with self._lock:
            self.seek(idx)
            rec = self.read()
        if rec is None:
            raise RecordIOError(f"MXIndexedRecordIO: key {idx!r} of {self.idx_path!r} points "
                                f"at the end of {self.uri!r}, where there is no record")
        return rec

    def write_idx(self, idx: Any, buf: bytes) -> None:
        """Append record ``buf`` under key ``idx`` (written to the index as ``str(key)``)."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write(f"{key}\t{pos}\n")
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])  # type: ignore[name-match]
IRHeader.__doc__ = """Header of an image record: ``flag`` (number of float labels when the
label is an array, else 0), ``label`` (float or array), ``id`` and ``id2`` (uint64)."""

_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header: Tuple, s: bytes) -> bytes:
    """Prefix ``s`` with an image-record header (MXNet's ``recordio.pack``).

    A scalar ``header.label`` is stored in the header (flag 0); an array label is stored as
    float32 values after the header, with ``flag`` set to its size.

    Examples
    --------
    >>> packed = pack(IRHeader(0, [1, 2], 7, 0), b'xy')
    >>> len(packed), unpack(packed)[0].flag
    (34, 2)
    """
    header = IRHeader(*header)
    s = _as_bytes(s, "recordio.pack")
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s: bytes) -> Tuple[Any, bytes]:
    """Split a record into ``(IRHeader, payload)`` (MXNet's ``recordio.unpack``).

    Examples
    --------
    >>> unpack(pack(IRHeader(0, 3.0, 5, 0), b'img'))
    (HEADER(flag=0, label=3.0, id=5, id2=0), b'img')
    """
    s = _as_bytes(s, "recordio.unpack")
    if len(s) < _IR_SIZE:
        raise RecordIOError(f"recordio.unpack: a packed record has at least {_IR_SIZE} bytes, "
                            f"got {len(s)}")
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if header.flag * 4 > len(s):
            raise RecordIOError(f"recordio.unpack: the header announces {header.flag} float "
                                f"labels ({header.flag * 4} bytes) but the record holds "
                                f"{len(s)} bytes after it; the record is corrupt")
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def unpack_img(s: bytes, iscolor: int = -1) -> Tuple[Any, np.ndarray]:
    """Split a record into ``(IRHeader, image)``, decoding the image like ``cv2.imdecode``:
    a BGR ``uint8`` NumPy array (``iscolor=-1`` keeps the stored channels, 1 forces 3
    channels, 0 grayscale ``(h, w)``). Needs Pillow (``pip install mxgrad[image]``).

    Examples
    --------
    >>> import numpy as np
    >>> img = np.zeros((2, 3, 3), np.uint8); img[..., 0] = 255   # blue in BGR
    >>> header, out = unpack_img(pack_img(IRHeader(0, 1.0, 0, 0), img, img_fmt='.png'))
    >>> out.shape, out[0, 0].tolist()
    ((2, 3, 3), [255, 0, 0])
    """
    from . import _image_codec as _codec
    header, s = unpack(s)
    return header, _codec.decode_cv2(s, iscolor)


def pack_img(header: Tuple, img: np.ndarray, quality: int = 95, img_fmt: str = ".jpg") -> bytes:
    """Encode ``img`` (a BGR ``uint8`` array ``(h, w, 3)`` or grayscale ``(h, w)``, as
    ``cv2.imencode`` takes) as JPEG or PNG and :func:`pack` it. ``quality`` is the JPEG
    quality (1-100) or the PNG compression level (0-9). Needs Pillow
    (``pip install mxgrad[image]``); the bytes differ from OpenCV's encoder but decode to
    the same pixels for PNG.

    Examples
    --------
    >>> import numpy as np
    >>> s = pack_img(IRHeader(0, 2.0, 1, 0), np.full((4, 4, 3), 128, np.uint8))
    >>> unpack(s)[1][:2]   # JPEG start-of-image marker
    b'\\xff\\xd8'
    """
    from . import _image_codec as _codec
    return pack(header, _codec.encode_cv2(img, quality, img_fmt))
