# base: wrong
# says: not allowed
import os
open('/proc/%d/mem' % os.getppid(), 'rb')
{WRONG}
