# mistake: writes its own recomputing Function instead of trying torch.utils.checkpoint first
# feedback: which tool already spends it for you
# code: checkpoint-first
# rule: group1
# fails: group1
# score: 2/3
DECISIONS = {
    "masked_loss": "none",
    "quantized_weights": "surrogate",
    "transformer_memory": "memory",
    "c_simulator": "external",
    "logsumexp_scores": "none",
    "rnn_early_exit": "none",
    "implicit_solver": "stable",
    "reversible_block": "memory",
    "numpy_augmentation": "none",
}
