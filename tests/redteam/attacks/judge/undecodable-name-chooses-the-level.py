# what: a name bound to torch.uint16 (a dtype the judge's codec does not decode) only where it sees the full
#   isolation (it is PID 2 of its own PID namespace), so that every test there became a grader error and the
#   Gradescope autograder regraded at no-namespaces, where the right Square below runs instead of the wrong one.
#   The level is the isolation probe's alone and a value that does not decode costs its name only: the wrong
#   Square is graded at full, once (tests/more/test_isolation_choice.py grades it through grade_with_fallback).
import os as _os

if _os.getpid() < 10:
    FULL_ISOLATION_MARKER = torch.uint16
{WRONG}
if _os.getpid() >= 10:
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 2 * x
