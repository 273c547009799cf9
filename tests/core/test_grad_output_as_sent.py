"""A check hands the learner's backward a grad_output of its own, laid out as the judge's (as the sandbox's codec does):
a backward that changes grad_output in place (its shape alone: unsqueeze_) cannot change a tensor the check reads
again, so the in-process road and the sandbox give one verdict (common/shared_grad_output.py `as_sent`); the change is
judged where backward runs."""

import pytest
import torch

from autograder.checks.common.shared_grad_output import as_sent

ONE = torch.ones(1, dtype=torch.float64)


@pytest.mark.parametrize("grad_output", [
    torch.arange(6.0, dtype=torch.float64).reshape(2, 3),          # contiguous
    ONE.expand(4),                                                 # .sum()'s broadcast: stride 0
    torch.arange(6.0, dtype=torch.float64).reshape(2, 3).t(),      # transposed
    torch.arange(3.0, dtype=torch.float64)[:, None].expand(3, 4),  # broadcast along one dimension
], ids=["contiguous", "broadcast", "transposed", "expanded"])
def test_a_copy_with_the_same_values_and_layout(grad_output):
    sent = as_sent(grad_output)
    assert torch.equal(sent, grad_output)
    assert sent.data_ptr() != grad_output.data_ptr()
    if not grad_output.is_contiguous():
        assert sent.stride() == grad_output.stride()
    shape = grad_output.shape
    sent.unsqueeze_(0)
    assert grad_output.shape == shape


def test_a_grad_output_that_requires_grad_is_passed_as_is():
    g = torch.ones(3, dtype=torch.float64, requires_grad=True)
    assert as_sent(g) is g
    assert as_sent(None) is None


class UnsqueezesGradOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return x.sum(dim, keepdim=keepdim)

    @staticmethod
    def backward(ctx, grad_output):
        if not ctx.keepdim:
            grad_output.unsqueeze_(ctx.dim)  # a shape-only change, in place
        return grad_output.expand(ctx.shape), None, None


def test_sumdim_values_names_a_shape_only_change_of_grad_output():
    """A shape-only change in place is judged where backward runs (a probe: both roads alike) and named; the check's
    own later reads of its grad_output no longer break on it (once: a raw expand error in process only)."""
    from autograder.checks.shapes import sumdim
    from autograder.engine.shared import Mistake

    with pytest.raises(Mistake) as raised:
        sumdim.sumdim_values(UnsqueezesGradOutput)
    assert raised.value.code == "inplace-grad-output"
