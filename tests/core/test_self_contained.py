"""`common.require_self_contained`: in a learner's kernel, an answer that uses a name only a demonstration (or
any cell other than the setup and answer cells) defined is named before grading would fail on it; honest
answers pass. The cells run in a real IPython shell, so the names, code objects and cell sources are the ones
a notebook kernel has."""

import pytest
from IPython.core.interactiveshell import InteractiveShell

from autograder.checks import common

MESSAGE = "works in your kernel; the grader won't see `{}`"


@pytest.fixture()
def kernel():
    shell = InteractiveShell.instance()
    shell.reset(new_session=True)
    common.attach_learner(None)

    def run(*cells):
        for source in cells:
            result = shell.run_cell(source, store_history=True)
            assert result.success, result.error_in_exec or result.error_before_exec
        return shell.user_ns

    yield run
    shell.reset(new_session=True)


SETUP_01 = "import torch\n\ntorch.manual_seed(0)\n"        # notebook 01's setup cell binds `torch`
SETUP_09 = "import numpy as np\nimport torch\nfrom torch.autograd.function import once_differentiable\n"


def square(forward: str = "return x * x", backward: str = "return grad_output * 2 * x", body: str = "") -> str:
    return (f"class Square(torch.autograd.Function):\n{body}"
            "    @staticmethod\n"
            f"    def forward(ctx, x):\n        ctx.save_for_backward(x)\n        {forward}\n\n"
            "    @staticmethod\n"
            f"    def backward(ctx, grad_output):\n        (x,) = ctx.saved_tensors\n        {backward}\n")


def flagged(namespace, name):
    with pytest.raises(common.Mistake) as caught:
        common.require_self_contained(namespace[name], name)
    assert caught.value.code == "outside-answer-cells"
    return str(caught.value)


# ------------------------------------------------------------------------------------- what is flagged

def test_a_helper_from_a_demonstration_cell_is_named(kernel):
    ns = kernel(SETUP_01, "def twice(t):\n    return 2 * t\n", square(backward="return grad_output * twice(x)"))
    assert MESSAGE.format("twice") in flagged(ns, "Square")


def test_a_demonstration_class_used_as_a_base_is_named(kernel):
    demo = "class Base(torch.autograd.Function):\n    pass\n"
    answer = square().replace("class Square(torch.autograd.Function)", "class Square(Base)")
    ns = kernel(SETUP_01, demo, answer)
    assert MESSAGE.format("Base") in flagged(ns, "Square")


def test_a_module_imported_only_by_a_demonstration_is_named(kernel):
    ns = kernel(SETUP_01, "import math\n", square(backward="return grad_output * math.sqrt(4.0) * x"))
    assert MESSAGE.format("math") in flagged(ns, "Square")


def test_an_earlier_answer_cell_that_leans_on_a_demonstration_is_followed(kernel):
    setup = "import torch\n"
    demo = "def sum_leading(g, n):\n    return g.sum(dim=tuple(range(n))) if n else g\n"
    unbroadcast = "def unbroadcast(grad, shape):\n    return sum_leading(grad, grad.dim() - len(shape))\n"
    mul = ("class BroadcastMul(torch.autograd.Function):\n"
           "    @staticmethod\n    def forward(ctx, a, b):\n        ctx.save_for_backward(a, b)\n        return a * b\n\n"
           "    @staticmethod\n    def backward(ctx, g):\n        a, b = ctx.saved_tensors\n"
           "        return unbroadcast(g * b, a.shape), unbroadcast(g * a, b.shape)\n")
    ns = kernel(setup, demo, unbroadcast, mul)
    assert MESSAGE.format("sum_leading") in flagged(ns, "BroadcastMul")


# ------------------------------------------------------------------------------- honest answers pass

def test_torch_from_the_setup_cell(kernel):
    ns = kernel(SETUP_01, square())
    common.require_self_contained(ns["Square"], "Square")


def test_a_helper_defined_in_the_same_answer_cell(kernel):
    answer = "def twice(t):\n    return 2 * t\n\n\n" + square(backward="return grad_output * twice(x)")
    ns = kernel(SETUP_01, answer)
    common.require_self_contained(ns["Square"], "Square")


def test_an_import_in_the_answer_cell_and_one_inside_a_function(kernel):
    answer = "import math\n\n" + square(backward="import operator\n        "
                                                  "return operator.mul(grad_output, math.sqrt(4.0) * x)")
    ns = kernel(SETUP_01, answer)
    common.require_self_contained(ns["Square"], "Square")


def test_class_level_names(kernel):
    body = "    FACTOR = 2.0\n    HALF = FACTOR / 2\n\n"
    ns = kernel(SETUP_01, square(backward="return grad_output * Square.FACTOR * Square.HALF * x", body=body))
    common.require_self_contained(ns["Square"], "Square")


def test_recursion_and_an_earlier_answer_cell(kernel):
    unbroadcast = ("def unbroadcast(grad, shape):\n"
                   "    if grad.dim() > len(shape):\n        return unbroadcast(grad.sum(0), shape)\n"
                   "    dims = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)\n"
                   "    return grad.sum(dim=dims, keepdim=True) if dims else grad\n")
    mul = ("class BroadcastMul(torch.autograd.Function):\n"
           "    @staticmethod\n    def forward(ctx, a, b):\n        ctx.save_for_backward(a, b)\n        return a * b\n\n"
           "    @staticmethod\n    def backward(ctx, g):\n        a, b = ctx.saved_tensors\n"
           "        return unbroadcast(g * b, a.shape), unbroadcast(g * a, b.shape)\n")
    ns = kernel("import torch\n", unbroadcast, mul)
    common.require_self_contained(ns["unbroadcast"], "unbroadcast")
    common.require_self_contained(ns["BroadcastMul"], "BroadcastMul")


def test_numpy_and_a_decorator_from_the_setup_cell(kernel):
    answer = ("class NumpyCumsum(torch.autograd.Function):\n"
              "    @staticmethod\n    def forward(ctx, x, dim):\n        ctx.dim = dim\n"
              "        return torch.from_numpy(np.cumsum(x.detach().numpy(), axis=dim))\n\n"
              "    @staticmethod\n    @once_differentiable\n    def backward(ctx, g):\n"
              "        flipped = np.flip(g.numpy(), ctx.dim)\n"
              "        return torch.from_numpy(np.flip(np.cumsum(flipped, axis=ctx.dim), ctx.dim).copy()), None\n")
    ns = kernel(SETUP_09, "import math\n", answer)
    common.require_self_contained(ns["NumpyCumsum"], "NumpyCumsum")


def test_a_setup_name_that_a_demonstration_rebinds(kernel):
    ns = kernel(SETUP_01, "import torch\n", square())
    common.require_self_contained(ns["Square"], "Square")


# -------------------------------------------------------------------------------------- where it applies

def test_no_op_while_grading(kernel):
    ns = kernel(SETUP_01, "def twice(t):\n    return 2 * t\n", square(backward="return grad_output * twice(x)"))
    common.attach_learner(object())      # a test cell in the judge: the learner's name is a proxy there
    try:
        common.require_self_contained(ns["Square"], "Square")
    finally:
        common.attach_learner(None)


def test_no_op_outside_a_notebook():
    namespace = {"__name__": "__main__"}
    exec(compile("import torch\ndef twice(t):\n    return 2 * t\n", "<demo>", "exec"), namespace)
    exec(compile(square(backward="return grad_output * twice(x)"), "<answer:answer_Square>", "exec"), namespace)
    common.require_self_contained(namespace["Square"], "Square")


def test_no_op_for_a_value_and_for_a_name_of_no_exercise(kernel):
    ns = kernel(SETUP_01, "LABEL = 'none'\n", "DECISIONS = {'masked_loss': LABEL}\n",
                "def twice(t):\n    return 2 * t\n", "def helper(t):\n    return twice(t)\n")
    common.require_self_contained(ns["DECISIONS"], "DECISIONS")
    common.require_self_contained(ns["helper"], "helper")
