# base: wrong
import socket
socket.create_connection(('example.com', 80), timeout=2)
{WRONG}
