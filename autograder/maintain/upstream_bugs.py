"""The open upstream PyTorch bugs the course's asserts encode, and the version-dependent behaviours they rest on,
each with a standalone reproducer.

A notebook that asserts a bug (``assert torch.equal(fwd_fwd, torch.zeros(3, 3))  # pytorch/pytorch#197867``)
breaks the day PyTorch fixes it; the registry says, for each bug, which notebooks and cells then need
rewriting. tests/more/test_upstream_bugs.py runs every reproducer on the installed torch and fails with, for
example, "pytorch#197867 no longer reproduces on torch 2.15.0: update 10b (md-fwd-5, demo-fwd-5, md-43) and
14 (md-15-lse-jvp)". It also checks that every issue number a notebook's code cites is registered here.

A behaviour (kind "behaviour") is no bug: it is documented, or set by a formula no documented rule fixes, and the
notebooks state it for the pinned release (cdist's 25-point threshold, what clamp_min sends back at its bound).
It has no issue; `reference` says where upstream sets it, and its sentinel fails when a release changes it.

    python -m autograder.maintain.upstream_bugs      # which bugs reproduce on the installed torch
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass, field
from typing import Callable

import torch

from autograder.maintain.upstream_compile import compile_drops_custom_jvp, compile_ignores_set_materialize_grads


KINDS = ("bug", "behaviour")


@dataclass(frozen=True)
class Bug:
    key: str                                    # "pytorch#197867", or a name when upstream has no issue
    issues: tuple[int, ...]                     # pytorch/pytorch issue numbers (first: the main one)
    summary: str
    cells: dict[str, tuple[str, ...]]           # notebook folder -> ids of the cells that rely on the bug
    reproduces: Callable[[], bool]              # True while the bug is still there
    matrix: tuple[tuple[str, str], ...] = field(default=())   # (row, column) cells of the compatibility matrix
    kind: str = "bug"                           # "bug" (an upstream defect) or "behaviour" (by design, see above)
    reference: str | None = None                # where upstream sets a behaviour (source or documentation)
    until: str | None = None                    # the first release measured without it ("2.14"): the sentinel
                                                # then expects it gone from there on (make test-torch measured)

    def expected(self) -> bool:
        """Whether it should hold on the installed torch."""
        return self.until is None or torch.torch_version.TorchVersion(torch.__version__) < self.until

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.key}: kind must be one of {KINDS}, not {self.kind!r}")
        if self.kind == "behaviour" and (self.issues or not self.reference):
            raise ValueError(f"{self.key}: a behaviour has no issue and names its reference")

    @property
    def url(self) -> str | None:
        return f"https://github.com/pytorch/pytorch/issues/{self.issues[0]}" if self.issues else None

    def update_message(self) -> str:
        """ "pytorch#197867 no longer reproduces on torch X: update 10b (cells) and 14 (cells)" """
        parts = [f"{folder.split('_', 1)[0]} ({', '.join(ids)})" for folder, ids in self.cells.items()]
        where = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        also = "".join(f", #{n}" for n in self.issues[1:])
        verb = "no longer reproduces" if self.kind == "bug" else "no longer holds"
        return f"{self.key}{also} {verb} on torch {torch.__version__} ({self.summary}): update {where}"


# ---- reproducers: each small, standalone, on the CPU, returning True while the bug is there ----

def _forward_over_forward_is_zero() -> bool:
    """jacfwd(jacfwd(f)) through a Function with a correct jvp returns zeros instead of diag(6x)."""
    from torch.func import jacfwd

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x ** 2

        @staticmethod
        def jvp(ctx, x_t):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * x_t

    Cube.generate_vmap_rule = True
    x = torch.tensor([1.0, 2.0, 3.0])
    hessian = jacfwd(jacfwd(lambda u: Cube.apply(u).sum()))(x)
    return torch.equal(hessian, torch.zeros(3, 3)) and not torch.allclose(hessian, torch.diag(6 * x))


_OP_NUMBER = itertools.count()


def _counted_custom_op():
    """A fresh NumPy custom operator with a fake kernel and an autograd formula (a new name each call)."""
    import numpy as np

    name = f"upstream_bugs::exp_{next(_OP_NUMBER)}"

    @torch.library.custom_op(name, mutates_args=())
    def op(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(np.asarray(np.exp(x.numpy(force=True)))).to(x.device)

    op.register_fake(lambda x: torch.empty_like(x))

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * out

    op.register_autograd(backward, setup_context=setup_context)
    return op


def _custom_op_grad_asks_for_setup_context() -> bool:
    """torch.func.grad through a custom operator with register_autograd raises about setup_context."""
    op = _counted_custom_op()
    try:
        torch.func.grad(lambda t: op(t).sum())(torch.randn(3))
    except RuntimeError as error:
        return "must override the setup_context staticmethod" in str(error)
    return False


def _custom_op_jvp_is_zero() -> bool:
    """torch.func.jvp through a custom operator (no forward-mode formula) gives a zero tangent, no error."""
    op = _counted_custom_op()
    x = torch.tensor([0.0, 1.0, 2.0])
    try:
        _, tangent = torch.func.jvp(op, (x,), (torch.ones(3),))
    except Exception:                                    # an error would be the fix: no silent zeros
        return False
    return torch.equal(tangent, torch.zeros(3))


def _custom_op_forward_ad_drops_tangent() -> bool:
    """torch.autograd.forward_ad through a custom operator (no forward-mode formula): the output carries no tangent,
    with no error, where a Function without a jvp raises NotImplementedError."""
    import torch.autograd.forward_ad as fwAD

    op = _counted_custom_op()
    x = torch.tensor([0.0, 1.0, 2.0])
    with fwAD.dual_level():
        try:
            out = op(fwAD.make_dual(x, torch.ones(3)))
        except Exception:                                # an error would be the fix: no silent drop
            return False
        return torch.allclose(out, torch.exp(x)) and fwAD.unpack_dual(out).tangent is None


def _custom_bwd_fails_on_the_split_style() -> bool:
    """custom_bwd on a Function written as forward(x) + setup_context looks for the autocast state on a ctx
    that custom_fwd never saw, and raises AttributeError ('..._fwd_used_autocast')."""
    class Split(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu")
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            return g * 2

    x = torch.randn(3, requires_grad=True)
    try:
        Split.apply(x).sum().backward()
    except AttributeError as error:
        return "_fwd_used_autocast" in str(error)
    return False


def _node_returns_unreduced_gradient() -> bool:
    """Calling MulBackward0 directly returns the gradient of a broadcast input at the output's shape."""
    p, q = torch.randn(2, 3, requires_grad=True), torch.randn(3, requires_grad=True)
    _, grad_q = (p * q).grad_fn(torch.ones(2, 3))
    return tuple(grad_q.shape) == (2, 3)


def _where_gradient_is_nan() -> bool:
    """where(u > 0, sqrt(u), 0) still has a NaN gradient at u = 0: the unpicked branch's 0 * inf."""
    u = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(torch.where(u > 0, u.sqrt(), 0.0).sum(), u)
    return bool(torch.isnan(grad).all())


def _cdist_puts_a_point_away_from_itself() -> bool:
    """torch.cdist's default compute_mode takes the matrix-product (Gram) formula above 25 points (documented, and
    set in Distance.cpp), and a point comes out away from itself there: 30 float32 points of scale 10, exact with
    donot_use_mm_for_euclid_dist."""
    cloud = torch.randn(30, 3, generator=torch.Generator().manual_seed(0)) * 10
    default = torch.cdist(cloud, cloud).diagonal().max().item()
    exact = torch.cdist(cloud, cloud, compute_mode="donot_use_mm_for_euclid_dist").diagonal().max().item()
    return default > 0 and exact == 0 and torch.cdist(cloud[:25], cloud[:25]).diagonal().max().item() == 0


def _clamp_min_passes_the_gradient_at_its_bound() -> bool:
    """clamp_min(u, 0) at u == 0 exactly sends the incoming gradient on (its formula: where(self >= min, grad, 0)),
    so sqrt(u.clamp_min(0)) gets sqrt's infinite derivative at 0."""
    bound = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    (at_bound,) = torch.autograd.grad(bound.clamp_min(0).sum(), bound)
    (through_sqrt,) = torch.autograd.grad(bound.clamp_min(0).sqrt().sum(), bound)
    return at_bound.item() == 1 and bool(torch.isinf(through_sqrt).all())


def _logsumexp_masked_row_gradient_is_nan() -> bool:
    """The gradient of torch.logsumexp over a row of -inf is NaN (exp(-inf + inf))."""
    leaf = torch.full((1, 3), float("-inf"), dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(torch.logsumexp(leaf, 1).sum(), leaf)
    return bool(torch.isnan(grad).all())


def _zero_dim_gradient_is_moved() -> bool:
    """A 0-dim gradient on another device than its input is moved there, where any other is refused."""
    class CpuGradient(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return 2 * x

        @staticmethod
        def backward(ctx, grad_output):
            return torch.tensor(2.0)

    on_meta = torch.tensor(1.0, device="meta", requires_grad=True)
    (grad,) = torch.autograd.grad(CpuGradient.apply(on_meta), on_meta, torch.ones((), device="meta"))
    return grad.device.type == "meta"


def _normalize_gradient_at_zero_is_one_over_eps() -> bool:
    """F.normalize's gradient at a zero vector is 1 / eps (1e12 by default): x / max(norm, eps) there is x / eps."""
    zero = torch.zeros(3, dtype=torch.float64)
    jacobian = torch.func.jacrev(lambda v: torch.nn.functional.normalize(v, dim=0))(zero)
    return torch.allclose(jacobian, torch.eye(3, dtype=torch.float64) / 1e-12)


BUGS: tuple[Bug, ...] = (
    Bug("pytorch#197867", (197867,),
        "jacfwd(jacfwd(f)) through a Function with a jvp returns zeros, with no error",
        {"10b_forward_mode": ("md-0", "md-fwd-5", "demo-fwd-5", "md-43"),
         "14_capstone": ("md-15-lse-jvp", "demo-19-forward")},
        _forward_over_forward_is_zero,
        matrix=(("split + jvp", "jacfwd(jacfwd)"),)),
    Bug("pytorch#170834", (170834, 179652, 168393),
        "grad and jacrev through a custom operator with register_autograd ask for setup_context",
        {"11_compile_and_export": ("md-38", "demo-39", "md-40", "md-43")},
        _custom_op_grad_asks_for_setup_context,
        matrix=(("custom operator", "grad"), ("custom operator", "jacrev"))),
    Bug("custom-op-forward-mode", (),
        "jvp and jacfwd through a custom operator give zero tangents, with no error",
        {"11_compile_and_export": ("md-38", "demo-39", "md-40", "md-43")},
        _custom_op_jvp_is_zero,
        matrix=(("custom operator", "jvp"), ("custom operator", "jacfwd"),
                ("custom operator", "jacfwd(jacfwd)"))),
    Bug("custom-op-forward-ad", (),
        "torch.autograd.forward_ad through a custom operator drops the tangent (the output has none), with no error",
        {"11_compile_and_export": ("md-38", "demo-39-forward-ad", "md-40", "md-43")},
        _custom_op_forward_ad_drops_tangent),
    Bug("pytorch#132388", (132388,),
        "custom_fwd/custom_bwd on a split-style Function (forward without ctx + setup_context) raise AttributeError",
        {"12_inplace_and_modules": ("md-32-split", "demo-33-split", "md-35")},
        _custom_bwd_fails_on_the_split_style,
        matrix=(("split style", "autocast custom_fwd/bwd"), ("split + jvp", "autocast custom_fwd/bwd"))),
    Bug("pytorch#144228", (144228,),
        "a backward node called directly returns a broadcast input's gradient at the output's shape",
        {"03_shapes": ("md-14", "demo-14-repair", "md-14-why", "demo-15")},
        _node_returns_unreduced_gradient),
    Bug("pytorch#52248", (52248,),
        "torch.where on the output does not stop a NaN gradient from the branch it did not pick",
        {"13_safe_gradients": ("md-10", "demo-11", "md-12", "md-11-figure", "demo-11-figure")},
        _where_gradient_is_nan),
    Bug("cdist-mm-above-25", (),
        "torch.cdist's default compute_mode puts a point away from itself above 25 points (the Gram formula)",
        {"13_safe_gradients": ("md-0", "md-8", "demo-9-cdist", "md-22")},
        _cdist_puts_a_point_away_from_itself, kind="behaviour",
        reference="https://pytorch.org/docs/stable/generated/torch.cdist.html (compute_mode: 'if P > 25 or R > 25'); "
                  "aten/src/ATen/native/Distance.cpp, cdist_impl: p == 2 && mode == 0 && (r1 > 25 || r2 > 25)"),
    Bug("clamp-min-gradient-at-bound", (),
        "clamp_min sends the gradient on at its bound, so the Gram trick with clamp_min(0) has a NaN gradient",
        {"13_safe_gradients": ("md-8", "demo-9-gram", "md-22")},
        _clamp_min_passes_the_gradient_at_its_bound, kind="behaviour",
        reference="tools/autograd/derivatives.yaml, clamp_min: where(self >= min, grad, 0)",
        until="2.14"),  # torch 2.14.1 sends no gradient at the bound (measured: grad of clamp_min(0) at 0 is 0)
    Bug("pytorch#49724", (49724, 31829),
        "the gradient of torch.logsumexp over a fully masked row (all -inf) is NaN",
        {"14_capstone": ("md-5-masked", "demo-5-masked")},
        _logsumexp_masked_row_gradient_is_nan),
    Bug("pytorch#192985", (192985,),
        "torch.func.jvp inside torch.compile never calls a Function's jvp: forward's operations are differentiated",
        {"11_compile_and_export": ("md-compile-keeps", "demo-compile-keeps-jvp", "md-43")},
        compile_drops_custom_jvp),
    Bug("pytorch#118396", (118396,),
        "torch.compile ignores ctx.set_materialize_grads(False): backward gets zeros where eager gives None",
        {"11_compile_and_export": ("md-compile-keeps", "demo-compile-keeps-materialize", "md-43")},
        compile_ignores_set_materialize_grads),
    Bug("zero-dim-gradient-moved", (),
        "a 0-dim gradient on another device than its input is moved there; any other is refused",
        {"02_inputs_and_gradients": ("md-12-dtype", "demo-12-device-0dim", "md-20")},
        _zero_dim_gradient_is_moved, kind="behaviour",
        reference="torch/csrc/autograd/engine.cpp, validate_outputs: grad.dim() == 0 -> grad.to(metadata.device()) "
                  "(kept for pytorch#65016)"),
    Bug("normalize-gradient-one-over-eps", (),
        "F.normalize's gradient at a zero vector is 1 / eps (1e12 by default), finite and huge",
        {"13_safe_gradients": ("md-9-normalize", "demo-9-normalize")},
        _normalize_gradient_at_zero_is_one_over_eps, kind="behaviour",
        reference="torch/nn/functional.py, normalize: input / norm.clamp_min(eps) (pytorch#184575, closed as "
                  "intended)"),
)


def by_matrix_cell() -> dict[tuple[str, str], Bug]:
    return {cell: bug for bug in BUGS for cell in bug.matrix}


def status() -> list[tuple[Bug, bool | str]]:
    """(bug, True / False / the reproducer's own error) for each registered bug, on this torch."""
    results = []
    for bug in BUGS:
        try:
            results.append((bug, bool(bug.reproduces())))
        except Exception as error:                    # a reproducer that breaks is a change too
            results.append((bug, f"{type(error).__name__}: {error}"))
    return results


def main() -> int:
    fixed = 0
    print(f"torch {torch.__version__}")
    for bug, result in status():
        if result is True:
            print(f"  {'reproduces' if bug.kind == 'bug' else 'holds':17} {bug.key}: {bug.summary}")
        else:
            fixed += 1
            detail = "" if result is False else f" (the reproducer raised {result})"
            print(f"  NO LONGER         {bug.update_message()}{detail}")
    return 1 if fixed else 0


if __name__ == "__main__":
    sys.exit(main())
