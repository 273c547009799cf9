# base: wrong
import os
for _p in ['{home}/gradebook.db', '{home}/x.txt', '{solutions}/x.txt', '{root}/autograder/checks/common/__init__.py']:
    open(_p, 'a').write('pwned')
{WRONG}
