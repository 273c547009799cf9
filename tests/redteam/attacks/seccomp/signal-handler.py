# base: wrong
# says: not permitted
import signal
signal.signal(signal.SIGALRM, lambda *a: None)
{WRONG}
