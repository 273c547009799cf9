# base: wrong
import os, sys
os.makedirs('autograder/checks', exist_ok=True)
open('autograder/__init__.py', 'w').write('')
open('autograder/checks/__init__.py', 'w').write('')
open('autograder/checks/square.py', 'w').write('def __getattr__(n):\n    return lambda *a: None\n')
sys.path.insert(0, os.getcwd())
for _m in [m for m in sys.modules if m.startswith('autograder')]:
    del sys.modules[_m]
{WRONG}
