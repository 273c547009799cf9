# mistake: labels the rounded weights "stable" (a formula to fix), not a surrogate gradient
# feedback: what the weights can learn from it
# code: wrong-decision
# rule: group1
# fails: group1
# score: 2/3
DECISIONS = {
    "masked_loss": "none",
    "quantized_weights": "stable",
    "transformer_memory": "checkpoint",
    "c_simulator": "external",
    "logsumexp_scores": "none",
    "rnn_early_exit": "none",
    "implicit_solver": "stable",
    "reversible_block": "memory",
    "numpy_augmentation": "none",
}
