# mistake: labels the implicit solver "memory" (it is memory-hungry), not a hand-derived backward
# feedback: wrong or only costly
# code: wrong-decision
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
    "implicit_solver": "memory",
    "reversible_block": "memory",
    "numpy_augmentation": "none",
}
