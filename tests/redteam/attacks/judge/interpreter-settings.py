# base: wrong
import sys, warnings
sys.setrecursionlimit(60)
warnings.simplefilter('error')
torch.set_default_dtype(torch.float32)
{WRONG}
