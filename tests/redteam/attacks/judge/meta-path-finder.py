# base: wrong
import sys
class _Finder:
    def find_spec(self, *a, **k):
        return None
sys.meta_path.insert(0, _Finder())
{WRONG}
