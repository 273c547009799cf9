"""The compatibility matrix: each way of writing a Function the course teaches, against each thing people do
with one, on the installed torch. Every cell is an executed check, classified as

    works            the result is the one the Function defines (value, gradient, tangent)
    raises           an error, and the message it gives
    silently wrong   a result, without an error, that is not the one the Function defines
    n/a              the combination does not exist (a custom operator has no forward to decorate)

    python -m autograder.maintain.matrix run       # this torch's outcomes -> docs/compat/torch-<version>.json
    python -m autograder.maintain.matrix render    # README.md's table and docs/site/compatibility.md, from every record
    python -m autograder.maintain.matrix check     # a fresh run against the committed record (exit 1 if they differ)

Every row computes the cube of x (the in-place row: x scaled by 3 in place, as notebook 12's ScaleInplace).
The forwards of the rows made of torch operations compute x³ as `x * x * x.detach()`, whose own derivative
is 2x², not 3x²: a tool that differentiates the forward's operations instead of calling your `backward`
shows up as "silently wrong" rather than passing by luck. tests/test_matrix.py runs the matrix and fails
when it disagrees with the committed record for the installed release.
"""

import argparse
import contextlib
import io
import json
import re
import sys
import warnings
from pathlib import Path

from autograder import paths

RECORDS = paths.ROOT / "docs" / "compat"
SITE_PAGE = paths.ROOT / "docs" / "site" / "compatibility.md"
README = paths.ROOT / "README.md"
START, END = "<!-- compat-matrix:start -->", "<!-- compat-matrix:end -->"

ROWS = ["ctx style", "split style", "split + jvp", "NumPy inside", "custom operator", "in place + mark_dirty"]
COLUMNS = ["backward", "gradgradcheck", "vmap", "grad", "jacrev", "jvp", "jacfwd", "jacfwd(jacfwd)",
           "compile aot_eager", "compile inductor", "export", "export, then backward", "autocast custom_fwd/bwd"]

# Where the course shows a row or a cell: (notebook folder, cell id). Cells absent here link to the row's notebook.
ROW_NOTEBOOK = {"ctx style": ("01_square", "answer-Square"), "split style": ("10_torch_func", "demo-7"),
                "split + jvp": ("10b_forward_mode", "demo-fwd-3"), "NumPy inside": ("09_external_kernels", "demo-5"),
                "custom operator": ("11_compile_and_export", "demo-29"),
                "in place + mark_dirty": ("12_inplace_and_modules", "demo-7")}
SHOWN_IN = {
    ("ctx style", "vmap"): ("10_torch_func", "demo-5"), ("ctx style", "grad"): ("10_torch_func", "demo-5"),
    ("ctx style", "jacrev"): ("10_torch_func", "demo-5"),
    ("split style", "vmap"): ("10_torch_func", "demo-11"), ("split style", "grad"): ("10_torch_func", "demo-9"),
    ("split style", "jacrev"): ("10_torch_func", "demo-9"), ("split style", "jvp"): ("10b_forward_mode", "demo-fwd-2"),
    ("split style", "gradgradcheck"): ("10_torch_func", "demo-15"),
    ("split + jvp", "jvp"): ("10b_forward_mode", "demo-fwd-3"),
    ("split + jvp", "jacfwd"): ("10b_forward_mode", "demo-fwd-4"),
    ("split + jvp", "jacfwd(jacfwd)"): ("10b_forward_mode", "demo-fwd-5"),
    ("NumPy inside", "gradgradcheck"): ("09_external_kernels", "demo-11"),
    ("NumPy inside", "vmap"): ("10_torch_func", "demo-13"),
    ("NumPy inside", "compile aot_eager"): ("11_compile_and_export", "demo-19"),
    ("NumPy inside", "export"): ("11_compile_and_export", "demo-25"),
    ("split style", "compile aot_eager"): ("11_compile_and_export", "demo-19"),
    ("split style", "export"): ("11_compile_and_export", "demo-25"),
    ("split style", "export, then backward"): ("11_compile_and_export", "demo-27"),
    ("custom operator", "vmap"): ("11_compile_and_export", "demo-39"),
    ("custom operator", "grad"): ("11_compile_and_export", "demo-39"),
    ("custom operator", "jacrev"): ("11_compile_and_export", "demo-39"),
    ("custom operator", "jvp"): ("11_compile_and_export", "demo-39"),
    ("custom operator", "jacfwd"): ("11_compile_and_export", "demo-39"),
    ("custom operator", "compile aot_eager"): ("11_compile_and_export", "demo-33"),
    ("custom operator", "export"): ("11_compile_and_export", "demo-31"),
    ("in place + mark_dirty", "backward"): ("12_inplace_and_modules", "demo-7"),
    ("ctx style", "autocast custom_fwd/bwd"): ("12_inplace_and_modules", "demo-33"),
}


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


def _plain(text: str) -> str:
    """A message as the tables show it: no addresses, no links (pointers to PyTorch's docs), no newlines."""
    text = re.sub(r"0x[0-9a-f]+", "0x…", text)
    text = re.sub(r"\s*(For more details, please see )?https?://\S+", "", text)
    return text.strip()


def _short(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {_plain(lines[0] if lines else '')[:200]}"


def run(rows=ROWS, columns=COLUMNS, say=print) -> dict:
    import torch

    torch.manual_seed(0)
    record = {"torch": torch.__version__, "cells": {}}
    for row in rows:
        for column in columns:
            cell = classify(row, column)
            record["cells"][f"{row} | {column}"] = cell
            say(f"  {row:22} {column:24} {cell['outcome']:15} {cell['detail'][:80]}")
    return record


def record_path(version: str) -> Path:
    return RECORDS / f"torch-{version}.json"


def records() -> list[dict]:
    found = [json.loads(p.read_text()) for p in sorted(RECORDS.glob("torch-*.json"))]
    return sorted(found, key=lambda r: [int(n) if n.isdigit() else n for n in re.split(r"[.+]", r["torch"])])


# ---------------------------------------------------------------- rendering
SYMBOL = {"works": "✓", "raises": "raises", "silently wrong": "**silently wrong**", "n/a": "n/a"}


def _link(folder: str) -> str:
    return f"course/{folder}/{folder}.ipynb"


def number(folder: str) -> str:
    """A notebook's number as the course table writes it: "10" for 10_torch_func, "10b" for 10b_forward_mode."""
    return folder.split("_", 1)[0]


def table(recs: list[dict], site: bool = False) -> str:
    """A row per way of writing a Function, a column per thing done with it, one column group per release;
    then what each error and each silently wrong result says, and where the course shows it."""
    from autograder.maintain import upstream_bugs

    bugs = upstream_bugs.by_matrix_cell()
    versions = [r["torch"].split("+")[0] for r in recs]
    head = ["way of writing it"] + [f"{column} ({version})" for version in versions for column in COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes = []
    for row in ROWS:
        folder, cell_id = ROW_NOTEBOOK[row]
        cells = [f"**{row}** ([{number(folder)}]({_link(folder)}))"]
        for rec in recs:
            for column in COLUMNS:
                cell = rec["cells"].get(f"{row} | {column}", {"outcome": "?", "detail": ""})
                text = SYMBOL.get(cell["outcome"], cell["outcome"])
                if (row, column) in SHOWN_IN:
                    text = f"[{text}]({_link(SHOWN_IN[(row, column)][0])})"
                if (row, column) in bugs and bugs[(row, column)].url:
                    text += f" [#{bugs[(row, column)].issues[0]}]({bugs[(row, column)].url})"
                cells.append(text)
        lines.append("| " + " | ".join(cells) + " |")
    for row in ROWS:
        for column in COLUMNS:
            said = {}
            for rec, version in zip(recs, versions):
                cell = rec["cells"].get(f"{row} | {column}", {})
                if cell.get("outcome") in ("raises", "silently wrong"):
                    said.setdefault(cell["detail"], []).append(version)
            if not said:
                continue
            where = SHOWN_IN.get((row, column))
            shown = f"; shown in notebook {number(where[0])}, cell `{where[1]}`" if where else ""
            bug = bugs.get((row, column))
            upstream = (f"; upstream: [{bug.key}]({bug.url})" if bug and bug.url else
                        f"; upstream: {bug.summary} (no issue filed)" if bug else "")
            for detail, on in said.items():
                detail = _plain(detail).replace("|", "\\|").replace("`", "'")
                notes.append(f"- **{row}**, {column} (torch {', '.join(on)}): {detail}{shown}{upstream}")
    return "\n".join(lines) + "\n\n" + "\n".join(notes)


LEGEND = ("✓: the value, gradient or tangent the Function defines; raises: an error (its message shortened); "
          "**silently wrong**: a result without an error that is not the one the Function defines; n/a: the "
          "combination does not exist. Every cell is a check `python -m autograder.maintain.matrix run` executes on that "
          "release (autograder/maintain/matrix.py): rows compute x³ (in place: 3x), forwards of torch operations as "
          "`x * x * x.detach()` so that a tool which differentiates the forward instead of calling `backward` "
          "shows up; `torch.compile` runs with its default `fullgraph=False`; the autocast column decorates "
          "`forward` and `backward` with `torch.amp.custom_fwd`/`custom_bwd` (`device_type=\"cpu\"`, bfloat16) "
          "and checks that `backward` runs under the forward's autocast state.")


def render(recs: list[dict] | None = None) -> tuple[str, str]:
    """(README section body, site page) from the committed records."""
    recs = recs if recs is not None else records()
    versions = ", ".join(r["torch"] for r in recs)
    readme = (f"{START}\n<!-- Generated by `python -m autograder.maintain.matrix render` from docs/compat/: do not edit. -->\n"
              f"{table(recs)}\n\n{LEGEND}\n{END}")
    page = ("<!-- Generated by `python -m autograder.maintain.matrix render` from docs/compat/: do not edit. -->\n"
            "# Compatibility matrix\n\n"
            f"What works with each way of writing a custom `Function` the course teaches, on torch {versions}. "
            "The course is written for the pinned release; the others show what changes as PyTorch moves.\n\n"
            f"{table(recs, site=True)}\n\n{LEGEND}\n")
    return readme, page


def write_rendered() -> None:
    readme_section, page = render()
    text = README.read_text(encoding="utf-8")
    if START in text:
        text = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda m: readme_section, text, flags=re.S)
    else:
        raise SystemExit(f"README.md has no {START} ... {END} markers")
    README.write_text(text, encoding="utf-8")
    SITE_PAGE.write_text(page, encoding="utf-8")


def differences(fresh: dict, committed: dict) -> list[str]:
    out = []
    for key in fresh["cells"].keys() | committed["cells"].keys():
        a, b = committed["cells"].get(key, {}).get("outcome"), fresh["cells"].get(key, {}).get("outcome")
        if a != b:
            out.append(f"{key}: committed {a}, now {b} ({fresh['cells'].get(key, {}).get('detail', '')})")
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.maintain.matrix", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["run", "render", "check"])
    args = parser.parse_args(argv)
    if args.command == "render":
        write_rendered()
        print(f"wrote {README.name}'s matrix and {SITE_PAGE.relative_to(paths.ROOT)}")
        return 0
    record = run()
    target = record_path(record["torch"].split("+")[0])
    if args.command == "run":
        RECORDS.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {target.relative_to(paths.ROOT)}")
        return 0
    if not target.exists():
        print(f"no committed record for torch {record['torch']}: run `python -m autograder.maintain.matrix run`")
        return 1
    diff = differences(record, json.loads(target.read_text()))
    print("\n".join(diff) or "the matrix matches its committed record")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
