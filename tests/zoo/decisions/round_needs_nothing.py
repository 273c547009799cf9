# mistake: believes autograd's gradient of round is usable
# feedback: what the weights can learn from it
# code: function-needed
# rule: group1
# fails: group1
# score: 2/3
DECISIONS = {
    "masked_loss": "none",
    "quantized_weights": "none",
    "transformer_memory": "checkpoint",
    "c_simulator": "external",
    "logsumexp_scores": "none",
    "rnn_early_exit": "none",
    "implicit_solver": "stable",
    "reversible_block": "memory",
    "numpy_augmentation": "none",
}
