# mistake: labels the early-exit RNN "surrogate", as if a data-dependent if were not differentiable
# feedback: the branch taken depend on tensor values
# code: function-not-needed
# rule: group2
# fails: group2
# score: 2/3
DECISIONS = {
    "masked_loss": "none",
    "quantized_weights": "surrogate",
    "transformer_memory": "checkpoint",
    "c_simulator": "external",
    "logsumexp_scores": "none",
    "rnn_early_exit": "surrogate",
    "implicit_solver": "stable",
    "reversible_block": "memory",
    "numpy_augmentation": "none",
}
