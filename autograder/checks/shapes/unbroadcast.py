"""Checks for notebook 03's `unbroadcast(grad, shape)` (see `shapes`): it sums `grad` down to `shape` under
broadcasting rules. The expected values are torch's own `Tensor.sum_to_size` (as in the BroadcastMul checks): no
reference answer lives where the learner's process can import it (tests/core/test_no_reference_answers.py).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import torch

from autograder.checks import common as c
from autograder.checks.common import Rule
from autograder.checks.shapes.direct import fmt


# Hand-picked pairs (shape of grad, target shape). The values and size-1 pairs all have extra leading dimensions
# (of size 1 too), and the pairs with none to remove (where grad.sum(dim=()) would sum everything) are the edge
# cases': one rule, one test.
LEADING_PAIRS = [((2, 3), (3,)), ((4, 2, 3), (2, 3)), ((4, 2, 3), (3,)), ((5,), ()), ((2, 3), ()),
                 ((3, 3), (3,)), ((2, 2, 3), (2, 3)), ((1,), ()), ((1, 1), (1,)), ((1, 1), ()), ((1, 4), (4,))]
SIZE1_PAIRS = [((4, 2, 3), (1, 3)), ((4, 2, 3), (2, 1)), ((5, 4, 2, 3), (4, 1, 3)), ((2, 4, 2, 3), (1, 2, 1)),
               ((4, 2, 3), (1, 1)), ((5, 4, 2, 3), (4, 1, 1)), ((3, 4), (1,)), ((2, 5, 1, 3), (5, 1, 1)),
               ((4, 2, 1, 3), (1, 1, 3)), ((2, 3, 1), (1, 1)), ((2, 6), (1,)),
               ((2, 0, 3), (1, 3)), ((4, 0), (1,))]  # a size-1 dimension broadcast against an empty one (size 0)
# ... and the edge cases have nothing to sum: no leading dimension to remove (the values test's rule), no size-1
# dimension widened (the size-1 test's).
EDGE_PAIRS = [((), ()), ((1, 1, 3), (1, 1, 3)), ((3, 1), (3, 1)), ((2, 3, 4), (2, 3, 4)), ((1,), (1,)),
              ((2, 3), (2, 3)), ((3,), (3,)), ((1, 1), (1, 1)), ((2, 1, 1), (2, 1, 1))]


def random_pairs(count: int = 40, seed: int = 0, widen: bool = True, leading: bool | None = None,
                 ones: bool = True):
    """Deterministic (for one base seed) broadcast pairs: target of 0-4 dims (with size-1 dims unless `ones` is
    False), grad with extra leading dims (0-2; with `leading` True 1-2, False none) and (if `widen`) size-1 target dims
    widened. Varies with the grader's base seed."""
    rng = random.Random(9173 + seed + c.base_seed())
    pairs = []
    low, high = {None: (0, 2), True: (1, 2), False: (0, 0)}[leading]
    for _ in range(count):
        target = tuple(rng.choice((1, 1, 2, 3) if ones else (2, 3, 4)) for _ in range(rng.randint(0, 4)))
        leading_dims = tuple(rng.randint(1, 3) for _ in range(rng.randint(low, high)))
        widened = tuple(rng.choice((1, 2, 3, 4)) if n == 1 else n for n in target)
        widened = widened if widen else target
        pairs.append((leading_dims + widened, target))
    return pairs


@dataclass(frozen=True)
class Drawn:
    """A row of a case table standing for `count` pairs drawn when the check runs (random_pairs), so that they
    vary with the grader's base seed."""

    count: int
    widen: bool = True      # False: no size-1 dimension widened
    leading: bool | None = None  # True: 1-2 extra leading dimensions (the values test's draws); False: none (the
    #                              edge cases')
    ones: bool = True            # False: no size-1 dimension in the target (where the size-1 rule plays no part)


def _pairs(cases):
    for case in cases:
        drawn = isinstance(case, Drawn)
        yield from (random_pairs(case.count, widen=case.widen, leading=case.leading, ones=case.ones) if drawn
                    else [case])


# (grad shape, target shape, seed): seed None is grad = arange, whose values the feedback can show.
VALUES_CASES = (((2, 3), (3,), None), ((2, 3), (), None))          # the statement's two with leading dimensions
LEADING_CASES = tuple((gs, ts, 10 + k) for k, (gs, ts) in enumerate(LEADING_PAIRS)) + (
    Drawn(20, widen=False, leading=True, ones=False),)
SIZE1_CASES = tuple((gs, ts, 30 + k) for k, (gs, ts) in enumerate(SIZE1_PAIRS))
MANY_CASES = tuple(EDGE_PAIRS) + (Drawn(40, widen=False, leading=False),)   # (grad shape, target shape), then 40 drawn

UNBROADCAST_RULES = (
    Rule("not-implemented", types=(NotImplementedError,),
         message="unbroadcast is not implemented yet (it still raises NotImplementedError)."),
    Rule("unbroadcast-raised", None, "{what} raised {kind}: {line}. `shape` may be a torch.Size or a tuple of "
         "ints; grad may be a scalar tensor."),
)


def _shape_advice(got: tuple, grad_shape: tuple, target: tuple) -> tuple[str, str]:
    """(code, plain-words advice) for a result of the wrong shape."""
    if len(got) > len(target):
        extra = len(got) - len(target)
        return ("leading-dims-kept",
                f"it still has {extra} extra leading dimension(s): sum them away, the result must have "
                f"exactly {len(target)} dimension(s).")
    if len(got) < len(target):
        if len(got) == 0 and len(grad_shape) == len(target):
            return ("summed-everything", f"the result is a scalar: {_EVERYTHING_SUMMED}")
        ones = sum(1 for n in target if n == 1)
        if ones and len(got) >= len(target) - ones:
            return ("size1-dropped",
                    "the size-1 dimensions of the target shape must stay in the result, with size 1: "
                    "sum over them with keepdim=True.")
        return ("too-many-dims-summed",
                "you removed too many dimensions: only the extra LEADING dimensions disappear; the others stay.")
    if got and all(n == 1 for n in got) and any(n != 1 for n in target):
        return "summed-everything", f"every dimension has size 1: {_EVERYTHING_KEPT}"
    wide = [i for i, (g, t) in enumerate(zip(got, target)) if t == 1 and g != 1]
    if wide:
        i = wide[0]
        return ("size1-not-summed",
                f"dimension dim={i} has size 1 in the target but size {got[i]} in your result: broadcasting "
                "copied that size-1 dimension, so sum over it with keepdim=True.")
    return ("wrong-unbroadcast-shape", "compare it with the target shape, dimension by dimension.")


_EVERYTHING_SUMMED = ("there were no extra leading dimensions, and grad.sum(dim=()) sums over EVERY dimension (an "
                      "empty dim tuple means all of them); skip that sum when there is nothing to remove.")
_EVERYTHING_KEPT = ("where no size-1 dimension is to be summed, grad.sum(dim=(), keepdim=True) sums over EVERY "
                    "dimension (an empty dim tuple means all of them), keeping each with size 1; skip that sum when "
                    "there is nothing to sum.")


def _run_unbroadcast(unbroadcast, grad: torch.Tensor, shape):
    what = f"unbroadcast(grad of shape {fmt(grad.shape)}, {fmt(shape)})"
    rules = UNBROADCAST_RULES
    if grad.dim() == len(shape):  # nothing to remove: an error here may be the grad.sum(dim=()) trap
        rules = rules[:1] + (Rule("summed-everything", None, "{what} raised {kind}, though with one extra leading "
                                  "dimension to remove it works: " + _EVERYTHING_SUMMED,
                                  when=lambda facts: _works_below_a_leading_dim(unbroadcast, grad, shape)),) + rules[1:]
    with c.explained(what, rules):
        return unbroadcast(grad, shape), what


def _works_below_a_leading_dim(unbroadcast, grad: torch.Tensor, shape) -> bool:
    """Whether the same call with one extra leading dimension to sum away gives the right result: then what raised
    is what it does when there is none to remove (the grad.sum(dim=()) trap)."""
    wider = torch.stack([grad, grad])
    try:
        got = unbroadcast(wider, shape)
    except Exception:  # noqa: BLE001 - it raises either way: the error's own message stands
        return False
    return isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(shape) and bool(
        torch.allclose(got, wider.sum_to_size(tuple(shape)), rtol=1e-7, atol=1e-7))


def _check_one_unbroadcast(unbroadcast, grad_shape, target, seed, as_size: bool, dtype_here: bool = True,
                           trap_elsewhere: bool = False) -> None:
    """One case; seed None is grad = arange (float64), and then the feedback shows the numbers. The result's dtype is
    the values test's rule (`dtype_here`): the other tests judge the values of a result in another dtype, as
    grad's. In the values test (`trap_elsewhere`), a result that summed everything with keepdim=True where no size-1
    dimension was to be summed (the grad.sum(dim=(), keepdim=True) trap, met after the leading dimensions went) is the
    edge cases' rule."""
    if seed is None:
        grad = torch.arange(float(torch.Size(grad_shape).numel()), dtype=torch.float64).reshape(grad_shape)
    else:
        grad = c.randn(*grad_shape, seed=seed, requires_grad=False)
    before = grad.clone()
    shape = torch.Size(target) if as_size else tuple(target)
    result, what = _run_unbroadcast(unbroadcast, grad, shape)
    if not isinstance(result, torch.Tensor):
        c.fail("not-a-tensor", f"{what} should return a tensor, got {type(result).__name__}.")
    if not torch.equal(grad, before):
        c.fail("grad-modified", f"{what} changed grad in place: build a new tensor (sum returns one).")
    got = tuple(result.shape)
    if trap_elsewhere and target and got == (1,) * len(target) and all(n != 1 for n in target) \
            and bool(torch.allclose(result.detach().reshape(()).to(grad.dtype), grad.sum(), rtol=1e-5, atol=1e-6)):
        return
    if got != tuple(target):
        code, advice = _shape_advice(got, tuple(grad_shape), tuple(target))
        c.fail(code, f"{what} returned shape {fmt(got)}, but it must return exactly shape {fmt(target)}: "
                     f"{advice}")
    if result.dtype != grad.dtype and (dtype_here or not result.is_floating_point()):
        c.fail("wrong-dtype", f"{what} returned dtype {result.dtype}; keep grad's dtype ({grad.dtype}).")
    expected = grad.sum_to_size(tuple(target))  # torch's own sum back to a shape: nothing of ours to import
    close = (1e-7, 1e-7) if result.dtype == grad.dtype else (1e-5, 1e-6)  # (a float32 result: the values test's)
    result = result.to(grad.dtype)
    if bool(torch.allclose(result, expected, rtol=close[0], atol=close[1])):
        return
    copies = max(grad.numel(), 1) / max(expected.numel(), 1)
    if copies > 1 and bool(torch.allclose(result, expected / copies, rtol=1e-7, atol=1e-7)):
        c.fail("mean-not-sum",
               f"{what} averaged (mean) the broadcast copies instead of adding them up: every copy "
               "contributed to the loss, so their gradients add. Use sum, not mean.")
    shown = f" (grad = {grad.tolist()}: got {result.tolist()}, expected {expected.tolist()})" if seed is None else ""
    c.fail("wrong-unbroadcast-values",
           f"{what} has the right shape but wrong values{shown}: each entry must be the SUM of all entries of grad "
           "that were broadcast from it (sum over the extra leading dims and over the widened size-1 dims).")


def _require_callable(unbroadcast) -> None:
    if not callable(unbroadcast):
        c.fail("not-defined", "`unbroadcast` must be a function unbroadcast(grad, shape).")


def unbroadcast_values(unbroadcast, cases=VALUES_CASES) -> None:
    """The statement's examples (grad = arange(6) as (2, 3)); the hidden block adds pairs that only remove
    leading dimensions."""
    _require_callable(unbroadcast)
    c.require_self_contained(unbroadcast, "unbroadcast")
    rows = [row for case in cases for row in ([(gs, ts, 70 + j) for j, (gs, ts) in enumerate(_pairs([case]))]
                                              if isinstance(case, Drawn) else [case])]
    for k, (gs, ts, seed) in enumerate(rows):
        _check_one_unbroadcast(unbroadcast, gs, ts, seed, as_size=seed is None or k % 2 == 0, trap_elsewhere=True)


def unbroadcast_size1(unbroadcast, cases=(SIZE1_CASES[0], SIZE1_CASES[3])) -> None:
    """Targets with size-1 dims (first, middle, last, together with leading dims). Where the learner's unbroadcast
    removes the same leading dimensions wrongly with no size-1 dimension to sum (the values test's rule), the
    leading dimensions are summed away first (torch's own sum) and the size-1 dimensions judged alone."""
    _require_callable(unbroadcast)
    def one_case(case) -> None:
        k, (gs, ts, seed) = case
        extra = len(gs) - len(ts)
        if extra > 0 and not _leading_right(unbroadcast, gs, extra, seed):
            gs = gs[extra:]
        _check_one_unbroadcast(unbroadcast, gs, ts, seed, as_size=k % 2 == 1, dtype_here=False)
    c.each(enumerate(cases), one_case)


def _leading_right(unbroadcast, grad_shape, extra: int, seed: int) -> bool:
    """Whether unbroadcast removes `extra` leading dimensions of a grad of `grad_shape` right when nothing else is to
    be summed (the target is the rest of grad's shape)."""
    grad = c.randn(*grad_shape, seed=seed + 500, requires_grad=False)
    target = tuple(grad_shape[extra:])
    try:
        got = unbroadcast(grad, torch.Size(target))
    except Exception:  # noqa: BLE001 - a call that raises removes nothing right: the values test says why
        return False
    # (in any floating dtype: the dtype is the values test's rule)
    return isinstance(got, torch.Tensor) and tuple(got.shape) == target and got.is_floating_point() \
        and bool(torch.allclose(got.to(grad.dtype), grad.sum_to_size(target), rtol=1e-5, atol=1e-6))


def unbroadcast_many(unbroadcast, cases=(((), ()), ((1, 1, 3), (1, 1, 3)), ((2, 3), (2, 3)),
                                         Drawn(5, widen=False, leading=False))) -> None:
    """Edge cases (scalars, nothing to do: no leading dimension to remove, the values test's rule) and generated
    pairs (`Drawn` rows), none with a widened size-1 dimension (unbroadcast_size1's rule)."""
    _require_callable(unbroadcast)
    scalar_judged = _leading_right(unbroadcast, (2, 3), 2, 0)
    for k, (gs, ts) in enumerate(_pairs(cases)):
        if not ts and not scalar_judged:
            continue  # no 0-d result even for the statement's unbroadcast(g, ()): the values test's rule
        _check_one_unbroadcast(unbroadcast, gs, ts, seed=50 + k, as_size=k % 3 != 0, dtype_here=False)
