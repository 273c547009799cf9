# A wrong Square whose answer cell connects to a Unix socket some other program listens on (its path
# found on disk) and sends it bytes: a way out of the sandbox to anything that serves Unix sockets.
# stopped by: Landlock's scope on pathname Unix sockets (or a socket filter allowing socketpair only)
import socket

_reached = []
for _path in ["{socket_path}"]:
    try:
        _client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _client.settimeout(2)
        _client.connect(_path)
        _client.sendall(b"hello from the answer cell\n")
        _reached.append((_path, "connected"))
        _client.close()
    except OSError as error:
        _reached.append((_path, type(error).__name__))
{WRONG}
_forward = Square.forward
def forward(ctx, x):
    raise RuntimeError("REACHED " + repr(_reached))
Square.forward = staticmethod(forward)
