# base: wrong
# says: thread
import threading
threading.Thread(target=print).start()
{WRONG}
