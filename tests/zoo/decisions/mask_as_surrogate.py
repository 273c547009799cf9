# mistake: labels the masked loss "surrogate", as if boolean-mask indexing had no gradient
# feedback: could not record, if any
# code: function-not-needed
# rule: group1
# fails: group1
# score: 2/3
DECISIONS = {
    "masked_loss": "surrogate",
    "quantized_weights": "surrogate",
    "transformer_memory": "checkpoint",
    "c_simulator": "external",
    "logsumexp_scores": "none",
    "rnn_early_exit": "none",
    "implicit_solver": "stable",
    "reversible_block": "memory",
    "numpy_augmentation": "none",
}
