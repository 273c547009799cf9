# mistake: misspells one scenario key of the first group (a hyphen for the underscore), all labels right
# feedback: a misspelling
# code: missing-key
# rule: group1
# fails: group1
# score: 2/3
DECISIONS = {
    "masked-loss": "none",
    "quantized_weights": "surrogate",
    "transformer_memory": "checkpoint",
    "c_simulator": "external",
    "logsumexp_scores": "none",
    "rnn_early_exit": "none",
    "implicit_solver": "stable",
    "reversible_block": "memory",
    "numpy_augmentation": "none",
}
