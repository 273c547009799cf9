# base: wrong
# says: exited with code 0
print('passed')
import os
os._exit(0)
{WRONG}
