# mistake: writes a stable Function although torch.logsumexp exists
# feedback: already offers this formula
# code: function-not-needed
# rule: group2
# fails: group2
# score: 2/3
DECISIONS = {
    "masked_loss": "none",
    "quantized_weights": "surrogate",
    "transformer_memory": "checkpoint",
    "c_simulator": "external",
    "logsumexp_scores": "stable",
    "rnn_early_exit": "none",
    "implicit_solver": "stable",
    "reversible_block": "memory",
    "numpy_augmentation": "none",
}
