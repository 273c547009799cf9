"""The compatibility matrix's cells (autograder/maintain/matrix.py runs and renders them): a Function per row,
each the cube of x written one way the course teaches; a check per column, each a thing people do with one;
classify runs one cell and says what happened (works, raises, silently wrong, n/a)."""

import contextlib
import io
import re
import warnings


# ---------------------------------------------------------------- the rows: one Function each
def _rows(decorate: bool = False) -> dict:
    """Row name -> (f, kind): f(x) applies the row's Function; kind is "cube" or "scale3"."""
    import numpy as np
    import torch
    from torch.autograd.function import once_differentiable

    fwd = torch.amp.custom_fwd(device_type="cpu") if decorate else (lambda fn: fn)
    bwd = torch.amp.custom_bwd(device_type="cpu") if decorate else (lambda fn: fn)

    class CtxCube(torch.autograd.Function):
        @staticmethod
        @fwd
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x.detach()

        @staticmethod
        @bwd
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            _seen.append(torch.is_autocast_enabled("cpu"))
            return grad_output * 3 * x ** 2

    class SplitCube(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        @fwd
        def forward(x):
            return x * x * x.detach()

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        @bwd
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            _seen.append(torch.is_autocast_enabled("cpu"))
            return grad_output * 3 * x ** 2

    class SplitCubeJvp(SplitCube):
        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)

        @staticmethod
        def jvp(ctx, x_t):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * x_t

    class NumpyCube(torch.autograd.Function):
        @staticmethod
        @fwd
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.from_numpy(np.asarray(x.numpy(force=True) ** 3)).to(x)

        @staticmethod
        @bwd
        @once_differentiable
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            _seen.append(torch.is_autocast_enabled("cpu"))
            result = grad_output.numpy(force=True) * 3 * x.numpy(force=True) ** 2
            return torch.from_numpy(np.asarray(result)).to(grad_output)

    class ScaleInplace(torch.autograd.Function):
        @staticmethod
        @fwd
        def forward(ctx, x):
            x.mul_(3)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        @bwd
        def backward(ctx, grad_output):
            _seen.append(torch.is_autocast_enabled("cpu"))
            return grad_output * 3

    rows = {"ctx style": (CtxCube.apply, "cube"), "split style": (SplitCube.apply, "cube"),
            "split + jvp": (SplitCubeJvp.apply, "cube"), "NumPy inside": (NumpyCube.apply, "cube"),
            "custom operator": (_custom_cube(), "cube"),
            "in place + mark_dirty": (lambda x: ScaleInplace.apply(x.clone()), "scale3")}
    return rows


_seen: list[bool] = []      # autocast state inside each backward
_OP = []


def _custom_cube():
    import numpy as np
    import torch

    if not _OP:
        @torch.library.custom_op("compat_matrix::cube", mutates_args=())
        def cube(x: torch.Tensor) -> torch.Tensor:
            return torch.from_numpy(np.asarray(x.numpy(force=True) ** 3)).to(x.device)

        cube.register_fake(lambda x: torch.empty_like(x))

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x ** 2

        cube.register_autograd(backward, setup_context=setup_context)
        _OP.append(cube)
    return _OP[0]


# ---------------------------------------------------------------- the columns: one check each
class SilentlyWrong(Exception):
    pass


def _same(got, want, what, atol=1e-6):
    import torch

    if not isinstance(got, torch.Tensor) or got.shape != want.shape or not torch.allclose(
            got.detach().to(want.dtype), want, atol=atol, rtol=1e-4):
        shown = got.detach().flatten()[:4].tolist() if isinstance(got, torch.Tensor) else got
        raise SilentlyWrong(f"{what}: got {shown}, expected {want.flatten()[:4].tolist()}")


def _check(row: str, column: str) -> None:
    """Runs one cell's check: returns if it works, raises SilentlyWrong or the tool's own error otherwise."""
    import torch
    from torch.func import grad, jacfwd, jacrev, jvp, vmap

    f, kind = _rows()[row]
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    value = x ** 3 if kind == "cube" else 3 * x
    first = 3 * x ** 2 if kind == "cube" else torch.full_like(x, 3.0)
    second = 6 * x if kind == "cube" else torch.zeros_like(x)
    torch.compiler.reset()

    if column == "backward":
        leaf = x.clone().requires_grad_(True)
        f(leaf).sum().backward()
        _same(leaf.grad, first, "gradient")
    elif column == "gradgradcheck":
        torch.autograd.gradgradcheck(f, (x.clone().requires_grad_(True),))
    elif column == "vmap":
        batch = torch.stack([x, x + 1])
        want = batch ** 3 if kind == "cube" else 3 * batch
        _same(vmap(f)(batch), want, "vmap")
    elif column == "grad":
        _same(grad(lambda t: f(t).sum())(x), first, "grad")
    elif column == "jacrev":
        _same(jacrev(f)(x), torch.diag(first), "jacrev")
    elif column == "jvp":
        tangent = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
        _, out = jvp(f, (x,), (tangent,))
        _same(out, first * tangent, "tangent")
    elif column == "jacfwd":
        _same(jacfwd(f)(x), torch.diag(first), "jacfwd")
    elif column == "jacfwd(jacfwd)":
        _same(jacfwd(jacfwd(lambda t: f(t).sum()))(x), torch.diag(second), "jacfwd(jacfwd)")
    elif column in ("compile aot_eager", "compile inductor"):
        backend = "aot_eager" if column == "compile aot_eager" else "inductor"
        compiled = torch.compile(lambda t: f(t) * 2, backend=backend)
        leaf = x.clone().requires_grad_(True)
        out = compiled(leaf)
        _same(out, 2 * value, "compiled value")
        out.sum().backward()
        _same(leaf.grad, 2 * first, "compiled gradient")
    elif column in ("export", "export, then backward"):
        class Uses(torch.nn.Module):
            def forward(self, t):
                return f(t) * 2

        program = torch.export.export(Uses(), (x.clone(),))
        leaf = x.clone().requires_grad_(True)
        out = program.module()(leaf)
        _same(out, 2 * value, "exported value")
        if column == "export, then backward":
            out.sum().backward()
            _same(leaf.grad, 2 * first, "gradient through the exported program")
    elif column == "autocast custom_fwd/bwd":
        if row == "custom operator":
            raise NotImplementedError("n/a")
        f, kind = _rows(decorate=True)[row]
        leaf = x.float().clone().requires_grad_(True)
        _seen.clear()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = f(leaf)
        out.sum().backward()
        _same(out, value.float(), "value under autocast", atol=1e-2)
        _same(leaf.grad, first.float(), "gradient after autocast", atol=1e-2)
        if _seen != [True]:
            raise SilentlyWrong(f"autocast enabled in backward: {_seen}, "
                                "unlike its forward (custom_bwd's job)")
    else:
        raise KeyError(column)


def classify(row: str, column: str) -> dict:
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            _check(row, column)
    except NotImplementedError as error:
        if str(error) == "n/a":
            return {"outcome": "n/a", "detail": ""}
        return {"outcome": "raises", "detail": _short(error)}
    except SilentlyWrong as error:
        return {"outcome": "silently wrong", "detail": str(error)}
    except Exception as error:
        return {"outcome": "raises", "detail": _short(error)}
    return {"outcome": "works", "detail": ""}


def plain(text: str) -> str:
    """A message as the tables show it: no addresses, no links (pointers to PyTorch's docs), no newlines."""
    text = re.sub(r"0x[0-9a-f]+", "0x…", text)
    text = re.sub(r"\s*(For more details, please see )?https?://\S+", "", text)
    return text.strip()


def _short(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {plain(lines[0] if lines else '')[:200]}"
