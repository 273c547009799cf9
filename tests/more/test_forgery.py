"""Facts the learner's process reports, and the grader's own state there: plain Python in an answer cell cannot
forge them (docs/threat-model.md, "Probes").

Each test grades a real notebook through the sandbox with an answer that is wrong in a known way plus ordinary
Python (no raw memory) that tries to make a check pass anyway, and asserts the forged answer scores no better
than the same wrong answer without the forgery (or that the one check the forgery aims at still fails).
"""

from __future__ import annotations

import nbformat
import pytest

from autograder.engine import grading
from autograder.maintain import samples
from autograder.engine.sandbox import Limits

pytestmark = pytest.mark.xdist_group("forgery")

LIMITS = Limits(seconds_per_test=90)
ZOO = {(e.exercise, e.name): e.source for e in samples.zoo()}


@pytest.fixture(scope="module")
def sandbox():
    with grading.new_sandbox() as box:
        yield box


def grade(sandbox, assignment: str, answers: dict):
    _, nb = samples.student_notebook(assignment, answers)
    report, _ = grading.grade_text(nbformat.writes(nb), f"{assignment}.ipynb", sandbox, limits=LIMITS)
    return report


def cells(report) -> dict:
    return {c.grade_id: c for c in report.cells}


def points(report) -> float:
    return report.score


# --------------------------------------------------------------- 1. a node name no Python can fake

# Square's forward, run without apply: autograd differentiates x * x itself and the student's backward never
# runs. The output is then disguised as the node autograd gives Square.
DIRECT_SQUARE = """
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output

    @classmethod
    def apply(cls, x):
        return {disguise}(cls.forward(None, x))
"""

# A class whose instances pass for Square's node, by name.
LOOKALIKE_NODE = """
class _LooksLikeNode:
    pass
_LooksLikeNode.__name__ = _LooksLikeNode.__qualname__ = "{node}"
"""

SUBCLASS_PROPERTY = LOOKALIKE_NODE + """
class _Disguised(torch.Tensor):
    @property
    def grad_fn(self):
        return _LooksLikeNode() if torch.Tensor.grad_fn.__get__(self) is not None else None

def _disguise(t):
    return t.as_subclass(_Disguised)
"""

# No subclass: a TorchFunctionMode, left on, answers the grad_fn getter of the tensors the answer returns.
MODE_GETTER = LOOKALIKE_NODE + """
from torch.overrides import TorchFunctionMode

class _AnswerForGetters(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") == "__get__" and getattr(func.__self__, "__name__", "") == "grad_fn" \\
                and args and vars(args[0]).get("_answered_for"):
            return _LooksLikeNode()
        return func(*args, **(kwargs or {}))

_AnswerForGetters().__enter__()

def _disguise(t):
    t._answered_for = True
    return t
"""

# A real Function of its own (right derivative) whose node class is renamed after Square's.
RENAMED_NODE = """
class _Helper(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g

_Helper._backward_cls.__name__ = _Helper._backward_cls.__qualname__ = "SquareBackward"

def _disguise(t):
    return t
"""


@pytest.mark.parametrize("trick", ["subclass_property", "mode_getter", "renamed_node"])
def test_square_node_cannot_be_disguised(sandbox, trick):
    prelude = {"subclass_property": SUBCLASS_PROPERTY.replace("{node}", "SquareBackward"),
               "mode_getter": MODE_GETTER.replace("{node}", "SquareBackward"), "renamed_node": RENAMED_NODE}[trick]
    answer = DIRECT_SQUARE.replace("{disguise}", "_disguise")
    if trick == "renamed_node":
        answer = answer.replace("cls.forward(None, x)", "_Helper.apply(x)")
    report = grade(sandbox, "01_square", {"Square": prelude + answer})
    graph = cells(report)["test_Square_graph"]
    assert graph.status != "passed" and graph.points == 0, (graph.status, graph.feedback)
    alone = grade(sandbox, "01_square", {"Square": ZOO[("Square", "forward_called_directly")]})
    assert points(report) <= points(alone), [(c.grade_id, c.status, c.feedback) for c in report.cells]


LINEAR_VIA_F = """
class Linear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        self.weight = nn.Parameter(torch.empty(out_features, in_features).uniform_(-bound, bound))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_features).uniform_(-bound, bound))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        return _disguise(torch.nn.functional.linear(x, self.weight, self.bias))
"""


@pytest.mark.parametrize("trick", ["subclass_property", "mode_getter"])
def test_linear_module_node_cannot_be_disguised(sandbox, trick):
    prelude = {"subclass_property": SUBCLASS_PROPERTY, "mode_getter": MODE_GETTER}[trick]
    report = grade(sandbox, "12_inplace_and_modules",
                   {"Linear": prelude.replace("{node}", "LinearFunctionBackward") + LINEAR_VIA_F})
    forward = cells(report)["test_Linear_forward"]
    assert forward.status != "passed" and forward.points == 0, (forward.status, forward.feedback)
    alone = grade(sandbox, "12_inplace_and_modules", {"Linear": ZOO[("Linear", "bypasses_function")]})
    assert points(report) <= points(alone), [(c.grade_id, c.status, c.feedback) for c in report.cells]


# ------------------------------------------- 2, 3. the probe registry, the checkpoint, the sandbox's modules

# Not a Function at all: a plain class whose apply lets autograd do the work. Fails every test alone.
NOT_A_FUNCTION = """
class Square:
    @staticmethod
    def forward(ctx, x):
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output

    @staticmethod
    def apply(x):
        return x * x
"""

# What the grader's function_facts probe says about a real Function: the lie each forgery below tells.
FAKE_FACTS = """
def _facts_of_a_function(obj, *args, **kwargs):
    return {"is_class": True, "type": "FunctionMeta", "is_function": True, "not_static": [],
            "setup_context": False, "vmap_rule": False, "callable": True}
_FACTS = "autograder.checks.common:function_facts"
"""

REGISTRY_FORGERIES = {
    # one entry of the probe registry replaced
    "registry_entry": FAKE_FACTS + """
import autograder.checks.common as _common
_common.PROBES[_FACTS] = _facts_of_a_function
""",
    # the registry's every entry replaced by rebinding the module's name to a new dict
    "registry_rebound": FAKE_FACTS + """
import autograder.checks.common as _common
_common.PROBES = dict(_common.PROBES, **{_FACTS: _facts_of_a_function})
""",
    # the snapshot the learner's process keeps, edited too
    "snapshot_edited": FAKE_FACTS + """
import autograder.checks.common as _common
import autograder.engine.sandbox.integrity as _integrity
for _table in (_common.PROBES, getattr(_integrity, "PROBES", {})):
    _table[_FACTS] = _facts_of_a_function
""",
    # the probe function's code swapped in place
    "probe_code_swapped": FAKE_FACTS + """
import autograder.checks.common as _common
_common.function_facts.__wrapped__.__code__ = _facts_of_a_function.__code__
""",
    # the learner's request table: the probe operation answered by the answer
    "operation_table": FAKE_FACTS + """
import autograder.engine.sandbox.learner_requests as _learner
def _op_probe(message, created, ctxs):
    return _facts_of_a_function(None), {}
_learner.OPERATIONS["probe"] = _op_probe
""",
    # the codec that writes every reply, wrapped to rewrite the probe's answer
    "codec_patched": FAKE_FACTS + """
import autograder.engine.sandbox.codec as _codec
_encode = _codec.encode
def _lying_encode(value, *args, **kwargs):
    if isinstance(value, dict) and isinstance(value.get("ok"), dict) and "is_function" in value["ok"]:
        value = {"ok": _facts_of_a_function(None)}
    return _encode(value, *args, **kwargs)
_codec.encode = _lying_encode
""",
    # the channel's own plumbing (json, as every frame is written): the request is read, the reply to the
    # probe rewritten on its way out, whatever the learner's copy meant to say (a tampering report included)
    "channel_json": FAKE_FACTS + """
import json as _json
import autograder.engine.sandbox.codec as _codec
_loads, _dumps, _last = _json.loads, _json.dumps, {}
def _watching_loads(text, *args, **kwargs):
    value = _loads(text, *args, **kwargs)
    if isinstance(value, dict) and "v" in value:
        _last["request"] = repr(value)
    return value
def _rewriting_dumps(value, *args, **kwargs):
    if isinstance(value, dict) and "v" in value and _FACTS in _last.get("request", ""):
        value = _codec.encode({"ok": _facts_of_a_function(None)})[0]
    return _dumps(value, *args, **kwargs)
_json.loads, _json.dumps = _watching_loads, _rewriting_dumps
""",
}


@pytest.mark.parametrize("forgery", sorted(REGISTRY_FORGERIES))
def test_probe_registry_and_sandbox_modules_are_out_of_reach(sandbox, forgery):
    alone = grade(sandbox, "01_square", {"Square": NOT_A_FUNCTION})
    assert points(alone) == 0
    report = grade(sandbox, "01_square", {"Square": REGISTRY_FORGERIES[forgery] + NOT_A_FUNCTION})
    assert points(report) <= points(alone), [(c.grade_id, c.status, c.feedback) for c in report.cells]


# A wrong Square (derivative x instead of 2x: 1/3 alone) whose gradients autograd doubles, once the checkpoint
# that would catch the patch is switched off.
DOUBLED_GRADIENT = """
import torch.autograd.function as _function
_apply = _function.BackwardCFunction.apply
def _doubled(self, *args):
    out = _apply(self, *args)
    return out * 2 if self._forward_cls.__name__ == "Square" else out
_function.BackwardCFunction.apply = _doubled
"""

CHECKPOINT_OFF = {
    "changed_rebound": "import autograder.engine.sandbox.integrity as _i\n_i.changed = lambda *a, **k: []\n",
    "baseline_cleared": "import autograder.engine.sandbox.integrity as _i\n_i._baseline.clear()\n"
                        "_i.record = lambda: None\n",
    "changed_code_swapped": "import autograder.engine.sandbox.integrity as _i\n"
                            "_i.changed.__code__ = (lambda *a, **k: []).__code__\n",
}


@pytest.mark.parametrize("switch", sorted(CHECKPOINT_OFF))
def test_checkpoint_cannot_be_switched_off(sandbox, switch):
    wrong = ZOO[("Square", "wrong_derivative")]
    alone = grade(sandbox, "01_square", {"Square": wrong})
    assert points(alone) == 2
    report = grade(sandbox, "01_square", {"Square": CHECKPOINT_OFF[switch] + DOUBLED_GRADIENT + wrong})
    assert points(report) <= points(alone), [(c.grade_id, c.status, c.feedback) for c in report.cells]


# ------------------------------------------------------------------- 6. no answer key in the learner's process

KEY_HUNT = '''
import gc, glob, json, os, sys
_found = {}

def _take(mapping):
    for k, v in mapping.items():
        if isinstance(k, str) and isinstance(v, str):
            _found.setdefault(k, v)

# 1. the module's attributes (the old layout held (scenario, right label, why) per key)
try:
    from autograder.checks import decisions as _d
    for _k, _v in vars(_d).items():
        if isinstance(_v, dict):
            for _key, _value in _v.items():
                if isinstance(_value, tuple) and len(_value) >= 2 and isinstance(_value[1], str):
                    _found.setdefault(_key, _value[1])
                elif isinstance(_value, dict) and isinstance(_value.get("right"), str):
                    _found.setdefault(_key, _value["right"])
    _folder = os.path.dirname(_d.__file__)
except Exception:
    _folder = ""

# 2. the key's own file, any data file in the package or in the project
_paths = [str(getattr(_d, "KEY_PATH", ""))]
try:
    from autograder import paths as _p
    _paths += glob.glob(os.path.join(str(_p.ROOT), "**", "*.json"), recursive=True)
except Exception:
    pass
for _path in _paths + glob.glob(os.path.join(_folder, "**", "*.json"), recursive=True):
    try:
        _data = json.load(open(_path))
    except Exception:
        continue
    for _key, _value in (_data.get("scenarios") or {}).items():
        if isinstance(_value, dict) and isinstance(_value.get("right"), str):
            _found.setdefault(_key, _value["right"])

# 3. every object in memory: a dict or tuple that pairs a scenario key with a label
_labels = {"none", "external", "surrogate", "stable", "checkpoint", "memory"}
for _o in gc.get_objects():
    try:
        if isinstance(_o, dict) and "masked_loss" in _o:
            for _key, _value in _o.items():
                if isinstance(_value, str) and _value in _labels:
                    _found.setdefault(_key, _value)
                elif isinstance(_value, (tuple, list)) and len(_value) >= 2 and _value[1] in _labels:
                    _found.setdefault(_key, _value[1])
                elif isinstance(_value, dict) and _value.get("right") in _labels:
                    _found.setdefault(_key, _value["right"])
    except Exception:
        pass

_KEYS = ["masked_loss", "quantized_weights", "transformer_memory", "c_simulator", "logsumexp_scores",
         "rnn_early_exit", "implicit_solver", "reversible_block", "numpy_augmentation"]
DECISIONS = {k: _found.get(k, "memory") for k in _KEYS}
'''


def test_answer_key_is_out_of_the_learners_reach(sandbox):
    wrong = {k: "memory" for k in ("masked_loss", "quantized_weights", "transformer_memory", "c_simulator",
                                   "logsumexp_scores", "rnn_early_exit", "implicit_solver", "reversible_block",
                                   "numpy_augmentation")}
    alone = grade(sandbox, "00_when_to_write_one", {"decisions": f"DECISIONS = {wrong!r}\n"})
    report = grade(sandbox, "00_when_to_write_one", {"decisions": KEY_HUNT})
    graded = [c for c in report.cells if c.grade_id.startswith("test_decisions")]
    assert graded, [c.grade_id for c in report.cells]
    assert sum(c.points for c in graded) <= sum(c.points for c in alone.cells
                                                if c.grade_id.startswith("test_decisions")), \
        [(c.grade_id, c.status, c.feedback) for c in graded]


def test_answer_key_file_is_protected():
    from autograder.checks import decisions

    assert decisions.KEY_PATH.exists()
    assert decisions.KEY_PATH in grading.protected_paths()
    text = open(decisions.__file__, encoding="utf-8").read()
    key = decisions.answer_key()["scenarios"]
    assert not any(f'"{why[:60]}' in text for _, why in key.values())  # the reasons are not in the module
