# base: wrong
import traceback
{WRONG}
_f = Square.forward
def forward(ctx, x):
    s = traceback.StackSummary.extract(traceback.walk_stack(None), capture_locals=True)
    raise RuntimeError('LEAK ' + repr([fs.locals for fs in s]))
Square.forward = staticmethod(forward)
