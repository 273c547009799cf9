# base: wrong
import ctypes
ctypes.string_at(id(1), 8)
{WRONG}
