# style: labels in capitals and with spaces, built from a list of pairs with dict()
DECISIONS = dict([
    ("masked_loss", "None"), ("quantized_weights", " Surrogate"), ("transformer_memory", "CHECKPOINT"),
    ("c_simulator", "external "), ("logsumexp_scores", "none"), ("rnn_early_exit", "NONE"),
    ("implicit_solver", "Stable"), ("reversible_block", "memory"), ("numpy_augmentation", "none"),
])
