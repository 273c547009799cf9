"""The lessons' shared instruments (autograder/lab.py) measure what they say."""

import pytest
import torch

from autograder.lab import count_nodes, distinct_bytes, expect_error, record_saved


def test_count_nodes_with_and_without_leaves():
    x = torch.ones(3, requires_grad=True)
    y = (x * 2).exp().sum()
    assert count_nodes(y) == 4                      # sum, exp, mul, the leaf's accumulator
    assert count_nodes(y, leaves=False) == 3
    assert count_nodes(torch.ones(2)) == 0          # no graph at all


def test_expect_error_returns_the_message_and_refuses_silence():
    message = expect_error(lambda: torch.ones(2, requires_grad=True).numpy(), RuntimeError, "numpy()")
    assert "requires grad" in message
    with pytest.raises(AssertionError, match="nothing was raised"):
        expect_error(lambda: None, RuntimeError, "x")
    with pytest.raises(AssertionError):
        expect_error(lambda: torch.ones(2, requires_grad=True).numpy(), RuntimeError, "another text")


def test_record_saved_sees_save_for_backward_and_distinct_bytes_counts_storages_once():
    x = torch.randn(1000, requires_grad=True)               # 4000 bytes
    _, saved = record_saved(lambda: x * torch.sigmoid(x))   # sigmoid saves s; the product saves x and s
    assert len(saved) == 3
    assert distinct_bytes(saved) == 8000
    assert distinct_bytes(saved, skip=[x]) == 4000
    _, saved = record_saved(lambda: torch.nn.functional.silu(x))
    assert len(saved) == 1 and saved[0] is x

