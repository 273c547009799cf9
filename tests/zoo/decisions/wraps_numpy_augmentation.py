# mistake: wraps a NumPy call in a Function although no gradient flows through it
# feedback: where are the parameters?
# code: function-not-needed
# rule: group3
# fails: group3
# score: 2/3
DECISIONS = {
    "masked_loss": "none",
    "quantized_weights": "surrogate",
    "transformer_memory": "checkpoint",
    "c_simulator": "external",
    "logsumexp_scores": "none",
    "rnn_early_exit": "none",
    "implicit_solver": "stable",
    "reversible_block": "memory",
    "numpy_augmentation": "external",
}
