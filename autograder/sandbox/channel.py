"""A stream socket carrying codec frames, with deadlines; and passing file descriptors over a control socket."""

from __future__ import annotations

import array
import select
import socket
import time

from autograder.sandbox import codec


class ChannelClosed(EOFError):
    """The other end closed the channel (its process ended)."""


class ChannelTimeout(TimeoutError):
    """No complete message before the deadline."""


class Channel:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.sock.setblocking(True)

    def send(self, header: dict, buffers: list[bytes]) -> None:
        self.sock.sendall(codec.pack(header, buffers))

    def recv(self, deadline: float | None = None) -> tuple[dict, list[bytes]]:
        """The next frame; ChannelClosed at end of stream, ChannelTimeout past `deadline` (time.monotonic)."""
        header_size, body_size = codec.unpack_prefix(self._read(codec.PREFIX_SIZE, deadline))
        header = self._read(header_size, deadline)
        body = self._read(body_size, deadline)
        return codec.unpack(header, body)

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
            import os

            os.close(extra)
        except OSError:
            pass
    return message, (fds[0] if fds else None)
