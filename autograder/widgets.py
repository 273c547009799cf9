"""Widgets the notebooks show, so that a lesson cell stays short.

Notebook 00: `decision_practice()` shows practice scenarios for the exercise "which tool, if any?", each with a
menu of the exercise's labels and immediate feedback; `explain_practice(key, label)` gives the same feedback as
text. The practice scenarios are deliberately not the graded ones (those live in autograder/checks/decisions.py),
so practising never hands out an answer of the exercise.
"""

from __future__ import annotations

import textwrap

from autograder.checks.decisions import LABELS, feedback

# key -> (scenario, right label, why the right label is right)
PRACTICE = {
    "sorted_pooling": (
        "Your pooling layer sorts each row of features with `torch.sort` and returns a weighted sum of the sorted "
        "values, with learned weights.",
        "none",
        "The values torch.sort returns are differentiable: each one's gradient goes back to the position it came "
        "from, as with indexing, and the learned weights get theirs as usual.",
    ),
    "stochastic_binary_units": (
        "Your hidden units fire at random: each outputs 1 with probability sigmoid(h) and 0 otherwise, written "
        "`torch.bernoulli(torch.sigmoid(h))`. Training runs, but the layers below the units never change.",
        "surrogate",
        "torch.bernoulli sends a zero gradient back to its probabilities, so nothing below the units learns. A "
        "Function can sample in forward and pass a surrogate gradient back (for example straight through to the "
        "probabilities).",
    ),
    "long_sequence_memory": (
        "An LSTM unrolled over 5,000 time steps runs out of memory in training. Running the forward of each "
        "segment of 100 steps a second time during backward would be affordable.",
        "checkpoint",
        "Keeping only each segment's input and recomputing the segment in backward is exactly what "
        "torch.utils.checkpoint.checkpoint(segment, h, use_reentrant=False) does.",
    ),
    "cpp_renderer": (
        "Your loss renders images with a C++ ray tracer called through pybind11, from scene parameters held in "
        "tensors. The renderer also ships a function returning the gradient of an image loss with respect to "
        "those parameters.",
        "external",
        "Autograd cannot see inside the C++ code. Wrap the call in a Function: forward renders, backward calls "
        "the renderer's gradient function.",
    ),
    "softplus_overflow": (
        "Your loss computes `torch.log(1 + torch.exp(z))` on scores that reach 200, and returns inf for them.",
        "none",
        "torch.nn.functional.softplus computes log(1 + exp(z)) stably, with a stable backward. An unstable "
        "composition is first a reason to look for the built-in op.",
    ),
    "matrix_sqrt": (
        "Your layer takes the square root of covariance matrices through `torch.linalg.eigh` (square roots of the "
        "eigenvalues, then back with the eigenvectors). Whenever two eigenvalues are equal the gradient is nan, "
        "although the derivative of the matrix square root has a closed form (a Sylvester equation) that stays "
        "finite.",
        "stable",
        "The composed backward goes through the eigenvectors, whose derivative divides by differences of "
        "eigenvalues. A hand-derived backward that solves the Sylvester equation is the 'composed backward is "
        "unstable' reason for a Function (PyTorch has no built-in matrix square root).",
    ),
    "invertible_flow": (
        "Your normalizing flow stacks 64 invertible coupling layers: each layer's input can be computed exactly "
        "from its output. You need training memory that does not grow with the number of layers.",
        "memory",
        "checkpoint keeps every layer's input, so its memory still grows with depth. Only a Function whose "
        "backward rebuilds each input from the output (then recomputes the layer) keeps that memory flat.",
    ),
}


def explain_practice(key: str, choice) -> str:
    """One line of feedback for `choice` on practice scenario `key`."""
    _, right, why = PRACTICE[key]
    return feedback(right, why, choice)


def decision_practice(width: int = 100) -> None:
    """Print each practice scenario, followed by a menu of labels whose choice prints `explain_practice`."""
    import ipywidgets as widgets
    from IPython.display import display

    def feedback(key, choice):
        print("Pick a label." if choice is None else textwrap.fill(explain_practice(key, choice), width=width))

    options = [("choose a label", None)] + [(label, label) for label in LABELS]
    for number, (key, (text, _, _)) in enumerate(PRACTICE.items(), start=1):
        print(f"{number}. {key}")
        print(textwrap.fill(text, width=width, initial_indent="   ", subsequent_indent="   "))
        display(widgets.interactive(feedback, key=widgets.fixed(key),
                                    choice=widgets.Dropdown(options=options, description=f"{number}.")))
