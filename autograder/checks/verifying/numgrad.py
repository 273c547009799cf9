"""Checks for notebook 05's `numerical_grad(f, x, eps=1e-6)` (see `verifying`): the central-difference estimate of the
gradient of a scalar-valued `f` at `x`, with x's shape and dtype, leaving `x` untouched (not even changed for a while
and put back)."""

import torch

from autograder.checks import common as c
from autograder.checks.explain import Rule, explained


# The breadth of each check is its `cases=`: the default is what the visible test runs, the tables below what
# the hidden tests run. A case is a seed or a dtype name, as each check says.
GENERAL_CASES, GENERAL_TABLE = (0,), (0, 1, 2)
CENTRAL_CASES, CENTRAL_TABLE = (0,), (50, 51)
UNTOUCHED_CASES, UNTOUCHED_TABLE = (0,), (60, 70)
DTYPE_CASES, DTYPE_TABLE = ("float32",), ("float32", "0-d")

NG = "numerical_grad"


def _require_callable(fn, name):
    if fn is None:
        c.fail("not-defined", f"`{name}` is not defined: run (or write) its answer cell.")
    if not callable(fn):
        c.fail("not-callable", f"`{name}` must be a function, got {type(fn).__name__}.")


# A crash of the learner's code that is not autograd's (those have rules of their own): usually a shape it does not
# handle (a 0-d x has no len() and no first dimension).
CRASH_RULES = (
    Rule("crashed", None, "{what} raised {kind}: {line}. It must work for any shape of x, a 0-d x included: loop over "
         "the x.numel() positions of a flat copy.", types=(TypeError, ValueError, LookupError)),
)


def _numgrad(numerical_grad, f, x, *eps):
    """The estimate as numbers in x's layout: its shape (for as many elements as x has) and dtype are numgrad_dtype's
    rule, not a values test's; so is whether it changes x (numgrad_untouched's): it gets a copy of x."""
    with explained(f"{NG}(f, x) for x of shape {tuple(x.shape)}", CRASH_RULES):
        result = c.call(lambda: numerical_grad(f, x.clone(), *eps), what=NG)
    if not isinstance(result, torch.Tensor):
        c.fail("not-a-tensor", f"{NG} should return a tensor with x's shape, got {type(result).__name__}.")
    if result.numel() != x.numel():
        c.fail("wrong-shape", f"{NG}(f, x) for x of shape {tuple(x.shape)} returned {result.numel()} values, of shape "
                              f"{tuple(result.shape)}: one estimate per element of x, in x's shape.")
    return result.detach().reshape(x.shape).to(x.dtype)


def _autograd_grad(f, x):
    leaf = x.detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(f(leaf), leaf)
    return g


def _cubic(t):
    return (t ** 3).sum()


def _coupled(t):  # every element's derivative depends on all the others
    return (torch.sin(t) * t.sum()).sum() + 0.5 * (t * t).sum()


def _diagnose(result, expected, what, eps):
    """A plain-words reason for a wrong estimate, recognising the usual slips."""
    if bool(torch.allclose(result, 2 * expected, rtol=1e-4, atol=1e-6)) and bool((expected.abs() > 1e-3).any()):
        c.fail("divides-by-eps", f"{what} is twice the true gradient: the central difference divides by 2 * eps, "
                                 "because f(x + eps) and f(x - eps) are 2 * eps apart.")
    if bool(torch.allclose(result, expected / 2, rtol=1e-4, atol=1e-6)) and bool((expected.abs() > 1e-3).any()):
        c.fail("half-gradient", f"{what} is half the true gradient: divide the difference by 2 * eps, not 4 * eps.")
    worst = (result - expected).abs().max().item()
    c.fail("wrong-estimate", f"{what} is wrong (largest error {worst:.3g}, with eps = {eps:g}). Estimate each "
                             "element i as (f(x + eps*e_i) - f(x - eps*e_i)) / (2 * eps), where e_i is 1 at "
                             "position i and 0 elsewhere.")


# Any finite difference with the default step (1e-6) is this close to the gradient, a one-sided one included: whether
# the difference is central is numgrad_central's rule, judged by how the error shrinks with eps.
VALUES_RTOL, VALUES_ATOL = 1e-5, 1e-5


def numgrad_values(numerical_grad) -> None:
    """Visible: the gradient of sum(x**3) at three points is 3 x**2."""
    _require_callable(numerical_grad, NG)
    c.require_self_contained(numerical_grad, NG)
    x = torch.tensor([-1.5, 0.5, 2.0], dtype=torch.float64)
    result = _numgrad(numerical_grad, _cubic, x)
    expected = 3 * x ** 2
    if not bool(torch.allclose(result, expected, rtol=VALUES_RTOL, atol=VALUES_ATOL)):
        _diagnose(result, expected, f"{NG}(lambda t: (t ** 3).sum(), x)", 1e-6)


def numgrad_general(numerical_grad, cases=GENERAL_CASES) -> None:
    """A function that couples all elements, over several shapes, for each seed of `cases`, against autograd."""
    _require_callable(numerical_grad, NG)
    def one_case(seed) -> None:
        for shape in [(), (4,), (2, 3), (2, 3, 2)]:
            x = c.randn(*shape, seed=seed, requires_grad=False)
            result = _numgrad(numerical_grad, _coupled, x)
            expected = _autograd_grad(_coupled, x)
            if not bool(torch.allclose(result, expected, rtol=VALUES_RTOL, atol=VALUES_ATOL)):
                _diagnose(result, expected, f"{NG} on a shape-{tuple(shape)} input", 1e-6)
    c.each(cases, one_case)


def numgrad_central(numerical_grad, cases=CENTRAL_CASES) -> None:
    """The estimate's error shrinks like eps**2 (a central difference), judged on the answer's own estimates of the
    gradient of sum(x**3) at eps = 4e-2, 2e-2 and 1e-2, one x per seed of `cases`: a central difference is off by
    exactly eps**2, so halving eps takes 4 times less off each time; a one-sided one is off by about 3 x eps (2 times
    less); one that ignores `eps` does not change. A ratio, so a wrong scale or direction (the values rule) cancels."""
    _require_callable(numerical_grad, NG)
    c.each(cases, lambda seed: _numgrad_central(numerical_grad, seed))


def _numgrad_central(numerical_grad, seed: int) -> None:
    x = c.randn(5, seed=seed, requires_grad=False, away_from=(0.0,), margin=0.3)
    coarse, middle, fine = (_numgrad(numerical_grad, _cubic, x, eps) for eps in (4e-2, 2e-2, 1e-2))
    if bool(torch.allclose(coarse, fine, rtol=0, atol=1e-9)):
        c.fail("ignores-eps", "your estimate does not change with eps (tried 4e-2, 2e-2 and 1e-2): use the eps "
                              "argument the caller passes.")
    if bool(torch.allclose(coarse, 4 * fine, rtol=0.05, atol=0)) and bool((fine.abs() > 1e-6).all()):
        c.fail("ignores-eps", "your estimate grows in proportion to eps (tried 4e-2, 2e-2 and 1e-2): the difference "
                              "is divided by a fixed number instead of 2 * eps, with the eps the caller passes.")
    ratio = (coarse - middle) / (middle - fine)
    if bool(((ratio - 4).abs() < 0.5).all()):
        return
    if bool(((ratio - 2).abs() < 0.5).all()):
        c.fail("one-sided-difference",
               "your estimate is a one-sided difference (f(x + eps) - f(x)) / eps, whose error grows like eps. "
               "Use the central difference, one step of eps to each side of x divided by 2 * eps: its error grows like "
               "eps**2.")
    c.fail("wrong-estimate", "the error of your estimate does not shrink like eps**2 when eps is halved (tried 4e-2, "
                             "2e-2 and 1e-2): estimate each element i as the central difference (f(x + eps*e_i) - "
                             "f(x - eps*e_i)) / (2 * eps).")


def numgrad_untouched(numerical_grad, cases=UNTOUCHED_CASES) -> None:
    """x is left exactly as it was (values and version counter), also when it requires grad; one x per seed of
    `cases`."""
    _require_callable(numerical_grad, NG)
    c.each(cases, lambda seed: _numgrad_untouched(numerical_grad, seed))


# What f raises when it meets the caller's x (a leaf that requires grad) with other values than at its first call:
# numerical_grad changed x for a while and put it back (through .data, or under torch.no_grad()), which neither x's
# values nor its version counter show afterwards.
CHANGED_BETWEEN_CALLS = "f met the caller's x with other values than at its first call"

UNTOUCHED_RULES = (
    c.NOT_IMPLEMENTED,
    Rule("modifies-input", error="leaf-in-place", message=
         "{what} changed x in place, which autograd forbids for a leaf that requires grad. Perturb a copy: "
         "x.detach().clone(), or build x + eps * e_i.", types=(RuntimeError,)),
    Rule("modifies-input", CHANGED_BETWEEN_CALLS, message=
         "{what} changed x in place while it evaluated f (f was called with the caller's x itself, holding other "
         "values at different calls), even if x was put back afterwards: a change through .data or under "
         "torch.no_grad() escapes the version counter, and a caller's x must not change, not even temporarily. "
         "Evaluate f at new tensors (x + eps * e_i) or on a copy (x.detach().clone()).", types=(RuntimeError,)),
)

# The caller's x as f first met it, while the untouched test's call runs (in the process where f runs: the learner's,
# when grading): [(tensor, its values then)], references kept so that no other tensor takes its identity.
_SEEN: list = []


def _cubic_watching(t):
    """`_cubic`, refusing a caller's x (a leaf that requires grad) whose values changed since f first met it."""
    if isinstance(t, torch.Tensor) and t.requires_grad and t.is_leaf:
        for seen, values in _SEEN:
            if seen is t:
                if not torch.equal(t.detach(), values):
                    raise RuntimeError(CHANGED_BETWEEN_CALLS)
                break
        else:
            _SEEN.append((t, t.detach().clone()))
    return _cubic(t)


@c.probe
def _forget_seen() -> None:
    """Probe: a new call of the untouched test starts with nothing seen."""
    _SEEN.clear()


def _numgrad_untouched(numerical_grad, seed: int) -> None:
    leaf = c.randn(3, seed=seed)  # a leaf that requires grad, as in ordinary use
    leaf_before = leaf.detach().clone()
    _forget_seen()
    with explained(NG, UNTOUCHED_RULES):
        result = numerical_grad(_cubic_watching, leaf)
    _forget_seen()
    if leaf._version != 0 or not torch.equal(leaf.detach(), leaf_before):
        how = f"its version counter is now {leaf._version}" if leaf._version else "through .data: its values differ"
        c.fail("modifies-input", f"{NG} changed x in place ({how}). "
                                 "Work on a copy (x.detach().clone()) or build new tensors x + eps * e_i.")
    x = c.randn(2, 3, seed=seed + 1, requires_grad=False)
    before = x.clone()
    c.call(numerical_grad, _coupled, x, what=NG)
    if x._version != 0 or not torch.equal(x, before):
        c.fail("modifies-input",
               f"{NG} changed x in place (version counter {x._version}"
               f"{'' if torch.equal(x, before) else ', and the values differ afterwards'}): even restoring "
               "x[i] after each step leaves rounding traces and bumps the version. Work on a copy.")
    del result


def numgrad_dtype(numerical_grad, cases=DTYPE_CASES) -> None:
    """The estimate has x's dtype and shape (float32 in, float32 out; a 0-d x gives a 0-d result). Its values are the
    other tests' rules."""
    _require_callable(numerical_grad, NG)
    inputs = []
    if "float32" in cases:
        inputs.append(torch.tensor([[0.3, -1.2], [2.0, 0.7]]))
    if "0-d" in cases:
        inputs.append(torch.tensor(0.8, dtype=torch.float64))
    for x in inputs:
        try:
            result = c.call(lambda: numerical_grad(_sin_sum, x.clone()), what=NG)  # a copy: see _numgrad
        except c.Mistake:
            raise
        except Exception:  # noqa: BLE001 - a crash on a 0-d x is the values test's rule (numgrad_general runs one)
            if x.dim() == 0:
                continue
            raise
        if not isinstance(result, torch.Tensor):
            c.fail("not-a-tensor", f"{NG} should return a tensor with x's shape, got {type(result).__name__}.")
        c.require_shape(result, x.shape, f"{NG}(f, x) for x of shape {tuple(x.shape)}", code="wrong-shape")
        if result.dtype != x.dtype:
            c.fail("wrong-dtype", f"{NG} returned dtype {result.dtype} for an x of dtype {x.dtype}: return the "
                                  "estimate in x's dtype (torch.tensor(list_of_floats) gives float32; build the "
                                  "result with torch.zeros_like(x) or pass dtype=x.dtype).")


def _sin_sum(t):
    return torch.sin(t).sum()

