"""Checks for `Square` (notebook 01): `Square.apply(x)` returns `x * x` and saves `x` for backward."""

import torch

from autograder.checks import common as c

NAME = "Square"
SHAPES = [(), (3,), (2, 3), (2, 3, 4)]


def values(Square) -> None:
    """Visible: forward values, the gradient on a small example, and that .apply records a node."""
    c.require_function(Square, NAME)
    c.require_self_contained(Square, NAME)
    x = torch.tensor([-1.5, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = c.call(Square.apply, x, what="Square.forward")
    c.require_close(y, x.detach() * x.detach(), "Square.apply(x)", "wrong-forward",
                    "forward should return x * x.")
    (grad,) = c.backward_grads(y, [x], what="Square.backward")
    c.require_close(grad, 2 * x.detach(), "the gradient of Square.apply(x).sum()", "wrong-derivative",
                    "d(x*x)/dx = 2x, times grad_output.")


def gradcheck(Square, seeds=(0, 1, 2)) -> None:
    """Hidden: float64 finite differences over several shapes and seeds."""
    c.require_function(Square, NAME)
    for seed in seeds:
        for shape in SHAPES:
            x = c.randn(*shape, seed=seed)
            c.gradcheck(Square.apply, (x,), f"Square on shape {shape}",
                        hint="backward must return grad_output * 2 * x.")


def graph_node(Square, seeds=(3, 13)) -> None:
    """The output's grad_fn is Square's own backward node (so .apply was used), and grad_output scales it."""
    c.require_function(Square, NAME)
    for seed in seeds:
        x = c.randn(4, seed=seed)
        y = c.call(Square.apply, x, what="Square.forward")
        c.require_own_node(y, Square, NAME)
        # Scaling grad_output must scale the gradient: a backward that ignores grad_output fails here.
        (grad,) = c.backward_grads(y, [x], torch.full_like(y, 3.0), what="Square.backward")
        c.require_close(grad, 6 * x.detach(), "the gradient with grad_output = 3", "ignores-grad-output",
                        "multiply by grad_output: backward receives dLoss/dy and must return dLoss/dx.")


def saves_input(Square, seeds=(4, 14)) -> None:
    """x is saved with save_for_backward, so changing it in place before backward raises."""
    c.require_function(Square, NAME)
    for seed in seeds:
        _saves_input(Square, seed)


def _saves_input(Square, seed: int) -> None:
    x = c.randn(5, seed=seed)
    leaf = x.detach().clone().requires_grad_(True)
    base = leaf * 1.0  # a non-leaf we are allowed to modify in place
    y = c.call(Square.apply, base, what="Square.forward")
    c.require_own_node(y, Square, NAME)
    with torch.no_grad():
        base.add_(1.0)
    try:
        torch.autograd.grad(y.sum(), [leaf])
    except NotImplementedError:
        c.fail("not-implemented", "Square.backward is not implemented yet (it still raises NotImplementedError).")
    except RuntimeError as error:
        if "modified by an inplace operation" in str(error):
            return
        raise
    c.fail("not-saved-for-backward",
           "changing x in place after forward went unnoticed, so backward used a stale or changed value: "
           "save x with ctx.save_for_backward(x) (not ctx.x = x, not a copy) so autograd's version "
           "counter catches the change.")
