# mistake: deletes the scenarios it is unsure about
# feedback: missing
# code: missing-key
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
    "numpy_augmentation": "none",
}
