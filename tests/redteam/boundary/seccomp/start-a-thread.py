# A correct Square, then the answer cell starts a thread (a progress printer, say), which is refused.
# stopped by: seccomp (no threads); the feedback must say threads are what was refused
import threading
{CORRECT}
threading.Thread(target=print, args=("working...",)).start()
