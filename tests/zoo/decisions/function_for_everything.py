# mistake: writes a custom Function for everything, even where autograd already works
# feedback: could not record, if any
# code: function-not-needed
# rule: group1 group2 group3
# fails: group1 group2 group3
# score: 0/3
DECISIONS = {
    "masked_loss": "stable",
    "quantized_weights": "surrogate",
    "transformer_memory": "checkpoint",
    "c_simulator": "external",
    "logsumexp_scores": "stable",
    "rnn_early_exit": "stable",
    "implicit_solver": "stable",
    "reversible_block": "memory",
    "numpy_augmentation": "external",
}
