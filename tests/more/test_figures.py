"""The notebooks' figure and widget helpers: what they say agrees with autograd, and they draw without error."""

import itertools

import matplotlib
import pytest
import torch

from autograder import figures

matplotlib.use("Agg")

SHAPES = [(), (1,), (3,), (2, 1), (1, 3), (2, 3), (4, 1, 3), (4, 2, 3), (2, 1, 1)]


def broadcastable(a, b):
    try:
        torch.broadcast_shapes(a, b)
        return True
    except RuntimeError:
        return False


@pytest.mark.parametrize("shape_a, shape_b", [p for p in itertools.product(SHAPES, SHAPES) if broadcastable(*p)])
def test_copies_and_recipe_agree_with_autograd(shape_a, shape_b):
    a = torch.ones(shape_a, requires_grad=True)
    b = torch.ones(shape_b, requires_grad=True)
    out = a * b
    out.sum().backward()
    for x, shape in ((a, shape_a), (b, shape_b)):
        assert torch.all(x.grad == figures.copies(shape, out.shape))
        roles = figures.broadcast_roles(shape, out.shape)
        away = tuple(i for i, r in enumerate(roles) if r == "summed away")
        keep = tuple(i for i, r in enumerate(roles) if r == "summed, keepdim")
        g = torch.randn(out.shape)
        summed = g.sum(dim=away) if away else g
        if keep:
            summed = summed.sum(dim=tuple(i - len(away) for i in keep), keepdim=True)
        assert summed.shape == torch.Size(shape)
        assert torch.allclose(summed, g.sum_to_size(shape))


def test_recipe_in_words():
    assert figures.recipe((3,), (2, 3)) == "sum dims (0,) away"
    assert figures.recipe((2, 1), (4, 2, 3)) == "sum dims (0,) away, then sum dims (1,) with keepdim=True"
    assert figures.recipe((2, 3), (2, 3)) == "nothing to sum"


def test_show_broadcast_one_pair_and_several():
    fig = figures.show_broadcast((2, 3), (3,), show=False)
    assert len(fig.axes) == 1 and "output (2, 3)" in fig.axes[0].get_title()
    fig = figures.show_broadcast(((2, 3), (3,)), ((), (2, 2)), ((3,), (4,)), show=False)
    assert len(fig.axes) == 3
    assert fig.axes[2].texts[0].get_text().startswith("not broadcastable")


def test_describe_broadcast():
    assert figures.describe_broadcast((4, 1, 3), (2, 1)) == [
        "gradient of a (4, 1, 3): sum dims (1,) with keepdim=True (each entry used 2 time(s))",
        "gradient of b (2, 1): sum dims (0,) away, then sum dims (1,) with keepdim=True (each entry used 12 time(s))",
    ]
    assert figures.describe_broadcast((3,), (4,))[0].startswith("not broadcastable")


def test_broadcast_explorer_is_a_widget():
    widgets = pytest.importorskip("ipywidgets")
    explorer = figures.broadcast_explorer(a="(2, 3)", b="(3,)")
    assert isinstance(explorer, widgets.interactive)
    assert [child.value for child in explorer.children[:2]] == ["(2, 3)", "(3,)"]


# ------------------------------------------------------------------ notebook 00's practice quiz (widgets.py)

def test_practice_scenarios_are_not_the_graded_ones():
    from autograder import widgets
    from autograder.checks import decisions

    assert not set(widgets.PRACTICE) & set(decisions.SCENARIOS)
    graded_texts = list(decisions.SCENARIOS.values())
    for text, right, _ in widgets.PRACTICE.values():
        assert text not in graded_texts and right in decisions.LABELS
    assert {right for _, right, _ in widgets.PRACTICE.values()} == set(decisions.LABELS)   # every label practised


def test_practice_feedback():
    from autograder import widgets
    from autograder.checks import decisions

    for key, (_, right, _) in widgets.PRACTICE.items():
        assert widgets.explain_practice(key, right).startswith(f"Right: {right}.")
        assert widgets.explain_practice(key, f" '{right.upper()}' ").startswith("Right")
        for label in decisions.LABELS:
            if label != right:
                assert widgets.explain_practice(key, label).startswith(f"Not {label}: the better choice is {right}.")
        assert "is not one of the labels" in widgets.explain_practice(key, "maybe")


def test_practice_quiz_shows_every_scenario(capsys):
    pytest.importorskip("ipywidgets")
    from autograder import widgets

    widgets.decision_practice()
    printed = capsys.readouterr().out
    assert all(f"{n}. {key}" in printed for n, key in enumerate(widgets.PRACTICE, start=1))


def test_the_facts_behind_the_practice_scenarios():
    import torch.nn.functional as F

    x = torch.randn(5, requires_grad=True)                       # sorted_pooling: sort values are differentiable
    values, indices = torch.sort(x)
    (values * torch.arange(5.0)).sum().backward()
    assert torch.equal(x.grad[indices], torch.arange(5.0))
    p = torch.full((4,), 0.3, requires_grad=True)                # stochastic_binary_units: zero gradient
    torch.bernoulli(p).sum().backward()
    assert torch.equal(p.grad, torch.zeros(4))
    z = torch.tensor([200.0])                                    # softplus_overflow
    assert torch.isinf(torch.log(1 + torch.exp(z))) and torch.isclose(F.softplus(z), z)
    a = torch.eye(3, dtype=torch.float64, requires_grad=True)    # matrix_sqrt: nan at equal eigenvalues
    eigenvalues, vectors = torch.linalg.eigh(a)
    (vectors @ torch.diag(eigenvalues.sqrt()) @ vectors.T).sum().backward()
    assert torch.isnan(a.grad).all()
    assert not hasattr(torch.linalg, "sqrtm")                    # no built-in matrix square root


def test_show_error_curves():
    scales = torch.logspace(0, 2, 3)
    fig = figures.show_error_curves("t", scales, {"a": ([1e-12, 1e-3, 10.0], [1e-5, 1e-4, 1e-3]),
                                                  "b": ([1e-6] * 3, [1e-6] * 3)}, show=False)
    left, right = fig.axes
    assert [line.get_label() for line in right.get_lines()] == ["a", "b"]
    assert left.get_ylim()[0] == pytest.approx(1e-10 / 3) and right.get_legend() is not None


def test_show_saved_and_compute():
    results = {"x * sigmoid(x)": (3 * 2**20, 1), "F.silu": (2 * 2**20, 1), "checkpointed_mlp": (2**20, 2.0)}
    fig = figures.show_saved_and_compute(results, depth=4, batch=64, show=False)
    left, right = fig.axes
    assert [bar.get_height() for bar in left.patches] == [3, 2, 1]          # megabytes
    assert [bar.get_height() for bar in right.patches] == [1, 1, 2]         # runs of each Linear per step
    assert "4 blocks, batch 64" in left.get_title()


# ------------------------------------------------------------------ notebook 13: fixes for sqrt at 0

def test_near_zero_sweep_values_and_gradient_lengths():
    distances = torch.tensor([0.0, 1e-4, 5.0], dtype=torch.float64)
    values, lengths = figures.near_zero_sweep(lambda d: torch.linalg.vector_norm(d, dim=-1), distances)
    assert torch.equal(values, distances)
    assert lengths[0] == 0 and torch.allclose(lengths[1:], torch.ones(2, dtype=torch.float64))
    values, lengths = figures.near_zero_sweep(lambda d: (d ** 2).sum(-1).sqrt(), distances)
    assert torch.isnan(lengths[0]) and torch.allclose(lengths[1:], torch.ones(2, dtype=torch.float64))
    _, lengths = figures.near_zero_sweep(lambda d: ((d ** 2).sum(-1) + 1e-6).sqrt(), distances)
    assert lengths[0] == 0 and lengths[1] < 0.2     # eps inside the square root: short rows' gradients shrink


def test_show_fixes_near_zero_draws_two_panels_with_a_nan_band():
    distances = torch.cat([torch.zeros(1), torch.logspace(-8, 1, 10)]).double()
    curves = {"plain": figures.near_zero_sweep(lambda d: (d ** 2).sum(-1).sqrt(), distances),
              "vector_norm": figures.near_zero_sweep(lambda d: torch.linalg.vector_norm(d, dim=-1), distances)}
    fig = figures.show_fixes_near_zero(distances, curves, show=False)
    left, right = fig.axes
    assert left.get_title() == "value" and right.get_title().startswith("gradient length")
    assert [t.get_text() for t in right.texts] == ["nan gradient"]
    labels = [line.get_label() for line in left.get_lines()]
    assert labels == ["plain", "vector_norm", "the exact distance"]


def test_show_saved_against_depth():
    curves = {"plain": [2 * 2**20, 4 * 2**20], "checkpoint": [2**20, 2 * 2**20], "reversible": [2**20, 2**20]}
    fig = figures.show_saved_against_depth([1, 2], curves, batch=64, width=256, show=False)
    (ax,) = fig.axes
    assert [line.get_label() for line in ax.get_lines()] == ["plain", "checkpoint", "reversible"]
    assert list(ax.get_lines()[0].get_ydata()) == [2, 4]                      # megabytes
    assert list(ax.get_lines()[2].get_ydata()) == [1, 1]
    assert "width 256, batch 64" in ax.get_title() and ax.get_legend() is not None


# ------------------------------------------------------------------ notebook 15: gradcheck map, memory held (measures)

class _ForgetsLowerBound(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(-1.0, 1.0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x < 1.0)


def test_gradcheck_map_fails_exactly_where_the_gradient_is_wrong():
    from autograder.figures.measures import gradcheck_map, show_gradcheck_map

    edges = [-3.0, -2.0, -1.5, -0.5, 0.5, 1.5, 3.0]                       # regions 2 and 4 hold a kink
    broken = gradcheck_map(_ForgetsLowerBound.apply, edges)
    assert broken == [False, False, False, True, False, True]
    assert gradcheck_map(torch.nn.functional.hardtanh, edges) == [True, True, False, True, False, True]
    fig = show_gradcheck_map(edges, {"broken": broken}, show=False)
    (ax,) = fig.axes
    colours = [patch.get_facecolor()[:3] for patch in ax.patches]
    assert colours[0] == colours[2] != colours[3] == colours[5]           # red where it failed, green where not
    assert [t.get_text() for t in ax.get_yticklabels()] == ["broken"]


def test_show_held_over_steps():
    from autograder.figures.measures import show_held_over_steps

    fig = show_held_over_steps({"a": [1024, 2048, 0], "b": [0, 0, 0]}, collected_at=3, show=False)
    (ax,) = fig.axes
    assert list(ax.get_lines()[0].get_ydata()) == [1, 2, 0]                  # kilobytes
    assert [line.get_label() for line in ax.get_lines()[:2]] == ["a", "b"]
    assert any("gc.collect()" in t.get_text() for t in ax.texts)


def test_jacobian_costs_measures_both_transforms_both_ways():
    from autograder.figures.measures import jacobian_costs, show_jacobian_costs

    costs = jacobian_costs([2, 4], fixed=3, min_run_time=0.01)
    assert set(costs) == {"inputs", "outputs"}
    for sweep in costs.values():
        assert set(sweep) == {"jacfwd", "jacrev"} and all(len(t) == 2 and min(t) > 0 for t in sweep.values())
    fig = show_jacobian_costs([2, 4], costs, fixed=3, show=False)
    assert [ax.get_xlabel() for ax in fig.axes] == ["number of inputs (3 outputs)", "number of outputs (3 inputs)"]


# ------------------------------------------------------------------ notebook 16: memory layouts

def test_memory_order_follows_the_strides():
    from autograder.figures.layouts import memory_order, show_layouts

    x = torch.randn(4, 3)
    assert torch.equal(memory_order(x), torch.arange(12).reshape(4, 3))
    assert torch.equal(memory_order(x.t()), torch.arange(12).reshape(4, 3).t())
    assert torch.equal(memory_order(torch.empty_like(x.t())), memory_order(x.t()))
    assert torch.equal(memory_order(x[:, ::2]), torch.tensor([[0, 2], [3, 5], [6, 8], [9, 11]]))
    with pytest.raises(ValueError, match="2-d"):
        memory_order(torch.randn(2, 2, 2))
    fig = show_layouts(a=x.t(), b=x, show=False)
    assert [ax.get_title() for ax in fig.axes] == ["a\nshape (3, 4), stride (1, 3)", "b\nshape (4, 3), stride (3, 1)"]
    assert sorted(int(t.get_text()) for t in fig.axes[0].texts) == list(range(12))


# ------------------------------------------------------------------ notebook 10: where vmap puts the batch

def test_batched_running_sum_is_right_only_with_the_batch_first():
    from autograder.figures.batching import batched_running_sum, samples_of, show_batch_dim

    samples = samples_of(4, length=3)
    first = batched_running_sum(samples, 0)
    assert first.right == [True] * 4 and torch.equal(first.results, samples.cumsum(dim=1))
    last = batched_running_sum(samples, 1)
    assert tuple(last.kernel_input.shape) == (3, 4) and torch.equal(last.results, samples.cumsum(dim=0))
    assert last.right == [False] * 4
    runs = show_batch_dim(samples, 1, 0, show=False)
    assert [run.batch_dim for run in runs] == [1, 0] and len(matplotlib.pyplot.gcf().axes) == 4


def test_batch_dim_explorer_redraws_on_each_control(capsys):
    pytest.importorskip("ipywidgets")
    from autograder.figures.batching import batch_dim_explorer

    explorer = batch_dim_explorer(count=3)
    menu, slider = explorer.children[:2]
    assert (menu.value, slider.value) == (0, 3)
    menu.value = 1
    assert "batch on dimension 1: 0 of 3 samples right" in capsys.readouterr().out
    slider.value = 5
    assert "batch on dimension 1: 0 of 5 samples right" in capsys.readouterr().out


# ------------------------------------------------------------------ notebook 11: which registration runs

def test_registration_calls_and_its_table():
    from autograder.figures.registrations import PARTS, registration_calls, show_registration_calls

    table = registration_calls()
    used = {consumer: {part for part, n in counts.items() if n} for consumer, counts in table.items()}
    assert used == {"eager call": {"kernel"}, "eager call + backward": {"kernel", "setup_context", "backward"},
                    "torch.compile + backward": set(PARTS), "the same, called again": {"kernel"},
                    "torch.export": {"register_fake"}}
    fig = show_registration_calls(table, show=False)
    shown = [t.get_text() for t in fig.axes[0].texts]
    assert shown.count("–") == sum(n == 0 for counts in table.values() for n in counts.values())


# ------------------------------------------------------------------ notebook 12: dtypes under autocast

def test_show_dtype_flow_colours_each_value():
    from autograder.figures.dtypes import COLOURS, show_dtype_flow

    flows = {"one": {"in": "float32", "out": "bfloat16"}, "two": {"in": "float32", "out": "error"}}
    fig = show_dtype_flow(flows, show=False)
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_xticklabels()] == ["in", "out"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["one", "two"]
    assert [t.get_text() for t in ax.texts] == ["float32", "bfloat16", "float32", "error"]
    faces = [matplotlib.colors.to_hex(p.get_facecolor()) for p in ax.patches]
    assert faces == [COLOURS["float32"], COLOURS["bfloat16"], COLOURS["float32"], COLOURS["error"]]
