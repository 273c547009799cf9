"""The capstone's case tables (notebook 14): each check's `*_EXAMPLE` is its default, what the visible test runs;
the `*_CASES` tables are what the hidden tests pass as `cases=`."""

from __future__ import annotations

from autograder.checks.torch_func.rules import F32, F64


# (shape, dim, keepdim): square shapes make a wrongly aligned broadcast silent instead of an error.
# Forgetting to unsqueeze is harmless for dim 0 (broadcasting adds leading dims), so most cases reduce elsewhere.
CASES = [((3, 3), 1, False), ((3, 3), 0, True), ((2, 3, 4), -1, False), ((2, 3, 4), 1, True),
         ((4, 1, 3), 0, False), ((5,), 0, False), ((4, 4), -1, False), ((2, 2, 2), 1, False)]

# values: (shape, dim, keepdim, dtype, seed)
VALUE_EXAMPLE = (((3, 4), 1, False, F64, 0),)
VALUE_CASES = tuple((shape, dim, keepdim, F32 if k % 2 else F64, 10 * seed + k)
                    for seed in (0, 1) for k, (shape, dim, keepdim) in enumerate(CASES[:5]))

# stability: (label, shift, scale, dtype, seed)
_MAGNITUDES = (("entries of size 1e4", 0.0, 1e4, F64), ("entries near -1e4", -1e4, 1.0, F64),
               ("entries near +1e4", 1e4, 1.0, F64), ("float32 entries of size 1e4", 0.0, 1e4, F32))
STABILITY_EXAMPLE = tuple(m + (100,) for m in _MAGNITUDES)
STABILITY_CASES = tuple(m + (100 + seed,) for seed in (1, 2) for m in _MAGNITUDES)

# masked rows: (shape, dim, keepdim, dtype, seed); along dim, the first row is fully masked, the second partly
MASKED_EXAMPLE = (((3, 4), 1, False, F64, 700),)
MASKED_CASES = (((3, 4), 1, False, F64, 701), ((4, 3), 0, True, F64, 702), ((3, 5), -1, True, F32, 703),
                ((2, 3, 4), 1, False, F64, 704))

# shapes: (shape, seed) with every dim (negative too) and both keepdim values
SHAPE_EXAMPLE = (((3, 3), 200), ((2, 3, 4), 210))
SHAPE_CASES = (((3, 3), 220), ((2, 3, 4), 230), ((4, 1, 3), 250), ((5,), 270), ((2, 2, 2), 280))

# None for dim and keepdim: (dim, keepdim, seed)
NONE_EXAMPLE = ((1, False, 301),)
NONE_CASES = ((1, False, 302), (0, True, 300), (-1, False, 303), (-2, True, 304))

# gradcheck and gradgradcheck: (shape, dim, keepdim, seed); keepdim=True first, so that a wrong derivative is
# not blamed on unsqueeze
_KEEPDIM_FIRST = sorted(CASES, key=lambda case: not case[2])
GRADCHECK_EXAMPLE = tuple(case + (400 + k,) for k, case in enumerate(_KEEPDIM_FIRST))
GRADCHECK_CASES = tuple(case + (400 + 10 * seed + k,) for seed in (1, 2) for k, case in enumerate(_KEEPDIM_FIRST))
GRADGRAD_EXAMPLE = tuple(case + (450 + k,) for k, case in enumerate(CASES[:3]))
GRADGRAD_CASES = tuple(case + (460 + k,) for k, case in enumerate(CASES[3:]))

# vmap: (shape of the batch, dim, keepdim, in_dims, seed) for vmap itself, then vmap(grad) and vmap(jvp)
VMAP_EXAMPLE = (((5, 4, 3), 0, False, 0, 500), ((5, 4, 3), -1, True, 0, 500), ((5, 4, 3), 1, False, 1, 500))
VMAP_CASES = VMAP_EXAMPLE + (((3, 2, 5), 1, True, 2, 510), ((4, 3, 3), -2, False, 0, 511))

# forward mode, the Function's own jvp: (shape, dim, keepdim, dtype, also gradcheck's forward-AD check, seed)
FORWARD_EXAMPLE = (((2, 3), 1, False, F64, True, 805), ((2, 3, 4), 1, True, F64, False, 806))
FORWARD_CASES = tuple((shape, dim, keepdim, F32 if k % 3 == 2 else F64, seed == 0 and k % 3 != 2,
                       800 + 10 * seed + k) for seed in (0, 1) for k, (shape, dim, keepdim) in enumerate(CASES))

# torch.func's forward-mode transforms: (transform, shape, dim, keepdim, seed)
TRANSFORM_EXAMPLE = (("jvp", (2, 3), 1, False, 940), ("jacfwd", (2, 3), 1, False, 941),
                     ("hessian", (3, 4), 1, False, 960))
TRANSFORM_CASES = (("jvp", (3, 3), 1, False, 942), ("jvp", (2, 3, 4), -1, True, 943), ("jvp", (4, 2), 0, False, 944),
                   ("jacfwd", (3, 3), 1, False, 950), ("jacfwd", (2, 3, 4), -1, True, 951),
                   ("jacfwd", (4, 2), 0, False, 952), ("hessian", (5,), 0, False, 961),
                   ("hessian", (2, 3, 2), 1, True, 962))

# memory: (shape, dim, keepdim, seed), on inputs the value tests use too
MEMORY_EXAMPLE = (((3, 3), 1, False, 600),)
MEMORY_CASES = (((2, 3, 4), -1, False, 601), ((2, 3, 4), 1, True, 602), ((4, 4), 0, False, 603))
