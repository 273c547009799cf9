"""A stream socket carrying frames (a JSON header plus raw buffers, never pickle), with deadlines; and
passing file descriptors over a control socket. The grader uses it too, without importing PyTorch."""

from __future__ import annotations

import array
import json
import os
import select
import socket
import struct
import time

MAX_FRAME = 320 * 1024 * 1024  # a frame larger than this is refused (an answer cannot flood the judge)
PREFIX = struct.Struct("!QQ")   # header size, body size
PREFIX_SIZE = PREFIX.size


class CodecError(ValueError):
    """A message that is not exactly what the channel and the codec write."""


class ChannelClosed(EOFError):
    """The other end closed the channel (its process ended)."""


class ChannelTimeout(TimeoutError):
    """No complete message before the deadline."""


class Channel:
    def __init__(self, sock: socket.socket, max_frame: int = MAX_FRAME):
        self.sock = sock
        self.max_frame = max_frame
        self.sock.setblocking(True)

    def send(self, header: dict, buffers: list[bytes]) -> None:
        self.sock.sendall(pack(header, buffers))

    def recv(self, deadline: float | None = None) -> tuple[dict, list[bytes]]:
        """The next frame; ChannelClosed at end of stream, ChannelTimeout past `deadline` (time.monotonic)."""
        header_size, body_size = unpack_prefix(self._read(PREFIX_SIZE, deadline), self.max_frame)
        header = self._read(header_size, deadline)
        body = self._read(body_size, deadline)
        return unpack(header, body)

    def _read(self, size: int, deadline: float | None) -> bytes:
        parts, remaining = [], size
        while remaining > 0:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                    raise ChannelTimeout("no answer before the time limit")
            chunk = self.sock.recv(min(remaining, 1 << 20))
            if not chunk:
                raise ChannelClosed("the other process closed the channel")
            parts.append(chunk)
            remaining -= len(chunk)
        return b"".join(parts)

    def fileno(self) -> int:
        return self.sock.fileno()

    def close(self) -> None:
        self.sock.close()


def send_fd(sock: socket.socket, message: bytes, fd: int) -> None:
    sock.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])


def recv_fd(sock: socket.socket, size: int = 4096) -> tuple[bytes, int | None]:
    """(message, fd or None). Extra descriptors a hostile sender attached are closed."""
    message, fds, _, _ = socket.recv_fds(sock, size, 4)
    for extra in fds[1:]:
        try:
            os.close(extra)
        except OSError:
            pass
    return message, (fds[0] if fds else None)


def pack(header: dict, buffers: list[bytes]) -> bytes:
    text = json.dumps(header).encode("utf-8")
    body = b"".join(buffers)
    if len(text) + len(body) > MAX_FRAME:
        raise TypeError("value too large to send")
    return PREFIX.pack(len(text), len(body)) + text + body


def unpack_prefix(prefix: bytes, max_frame: int = MAX_FRAME) -> tuple[int, int]:
    header_size, body_size = PREFIX.unpack(prefix)
    if header_size + body_size > max_frame:
        raise CodecError("message too large")
    return header_size, body_size


def unpack(header_bytes: bytes, body: bytes) -> tuple[dict, list[bytes]]:
    try:
        header = json.loads(header_bytes)
    except (ValueError, UnicodeDecodeError) as error:
        raise CodecError("header is not JSON") from error
    if type(header) is not dict:
        raise CodecError("header is not an object")
    sizes = header.get("sizes", [])
    if type(sizes) is not list or any(type(n) is not int or n < 0 for n in sizes) or sum(sizes) != len(body):
        raise CodecError("buffer sizes do not match")
    buffers, at = [], 0
    for n in sizes:
        buffers.append(body[at:at + n])
        at += n
    return header, buffers
