# base: wrong
# says: not allowed
import subprocess
subprocess.run(['cp', '-r', '{solutions}', '.'])
{WRONG}
