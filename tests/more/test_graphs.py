"""autograder/figures/graphs.py: what the backward-graph figure says agrees with autograd's own nodes, in every
state a saved tensor can be in, and the figure draws what the description says."""

import matplotlib
import pytest
import torch

from autograder.figures.graphs import FREED, KEPT, MODIFIED, Graph, backward_graph, show_graph

matplotlib.use("Agg")


class SavesInput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_output


class SavesOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return out * grad_output


class KeepsAttributes(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.x, ctx.k = x, k
        return x * k

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.k, None


class TwoInputs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.save_for_backward(a[1:], b)
        return scale * a * b

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output, None


def test_apply_records_one_node_and_names_what_it_saved():
    x = torch.randn(3, requires_grad=True)
    graph = backward_graph(SavesInput.apply(x), x=x)
    assert graph.names() == ["SavesInputBackward", "AccumulateGrad"]
    (saved,) = graph.nodes[0].saved
    assert (saved.slot, saved.what, saved.state, saved.version) == ("saved_tensors[0]", "x", KEPT, 0)
    assert graph.nodes[0].inputs == [1] and graph.nodes[1].grad_of == "x"


def test_forward_called_directly_is_a_chain_of_builtin_nodes():
    x = torch.randn(3, requires_grad=True)
    graph = backward_graph(x * x * x, x=x)
    assert graph.names() == ["MulBackward0", "MulBackward0", "AccumulateGrad"]
    assert graph.count("MulBackward0") == 2
    assert {s.slot: s.what for s in graph.nodes[0].saved} == {"self": "an intermediate (3,)", "other": "x"}
    assert graph.nodes[1].inputs == [2, 2]                      # x * x: both arrows to the same leaf


def test_saved_output_freed_and_modified():
    x = torch.randn(3, requires_grad=True)
    out = SavesOutput.apply(x)
    assert [s.what for s in backward_graph(out, x=x).nodes[0].saved] == ["output"]
    out.sum().backward()
    assert [s.state for s in backward_graph(out, x=x).nodes[0].saved] == [FREED]
    builtin = x.exp()                                           # a built-in node's saved result, freed too
    builtin.sum().backward()
    assert [(s.slot, s.state) for s in backward_graph(builtin).nodes[0].saved] == [("result", FREED)]

    base = x.clone()
    y = SavesInput.apply(base)
    with torch.no_grad():
        base.add_(1)
        base.mul_(2)
    (stale,) = backward_graph(y, base=base).nodes[0].saved
    assert (stale.state, stale.version, stale.saved_version) == (MODIFIED, 2, 0)
    with pytest.raises(RuntimeError, match="is at version 2; expected version 0"):
        y.sum().backward()                                      # what MODIFIED promises


def test_plain_ctx_attributes_are_shown_unguarded():
    x = torch.randn(3, requires_grad=True)
    base = x.clone()
    y = KeepsAttributes.apply(base, 2.5)
    with torch.no_grad():
        base.add_(1)
    saved = backward_graph(y, base=base).nodes[0].saved
    assert [(s.slot, s.what, s.version, s.guarded) for s in saved] == [("ctx.x", "base", 1, False),
                                                                     ("ctx.k", "2.5", None, True)]
    assert "unguarded" in saved[0].label() and "unguarded" not in saved[1].label()


def test_views_inputs_without_grad_and_floats():
    a = torch.randn(4, requires_grad=True)
    frozen = torch.randn(4)
    graph = backward_graph(TwoInputs.apply(a, frozen, 3.0), a=a, frozen=frozen)
    assert [s.what for s in graph.nodes[0].saved] == ["a view of a", "frozen"]
    assert graph.nodes[0].inputs == [1, None]                   # a place for frozen, no node; none for the float
    assert graph.nodes[1].grad_of == "a"
    assert backward_graph(SavesInput.apply(a)).nodes[1].grad_of == "a leaf (4,)"   # not named: described


def test_no_graph_and_ambiguous_names_are_clear_errors():
    with pytest.raises(ValueError, match="no grad_fn"):
        backward_graph(torch.ones(2))
    x = torch.randn(2, requires_grad=True)
    with pytest.raises(KeyError, match="2 nodes named 'MulBackward0'"):
        backward_graph(x * x * x).node("MulBackward0")


def test_show_graph_draws_each_node_and_saved_item():
    x = torch.randn(3, requires_grad=True)
    before = backward_graph(SavesInput.apply(x), x=x)
    later = SavesInput.apply(x)
    later.sum().backward()
    graphs = show_graph(before, later, x * x, titles=["a", "b", "c"], show=False, x=x)
    assert isinstance(graphs, list) and all(isinstance(g, Graph) for g in graphs) and graphs[0] is before
    figure = matplotlib.pyplot.gcf()
    assert [ax.get_title() for ax in figure.axes] == ["a", "b", "c"]
    for ax, graph in zip(figure.axes, graphs):
        texts = [t.get_text() for t in ax.texts]
        assert all(node.title in texts for node in graph.nodes)
        assert all(item.label() in texts for node in graph.nodes for item in node.saved)
    assert "saved_tensors: freed" in [t.get_text() for t in figure.axes[1].texts]
    single = show_graph(SavesInput.apply(x), show=False, x=x)
    assert isinstance(single, Graph)
