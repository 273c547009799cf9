# base: wrong
# says: not allowed|no such file
import os
open('/proc/%d/mem' % os.getppid(), 'rb')
{WRONG}
