# mistake: uses checkpoint where only a Function can avoid keeping the inputs
# feedback: meets 'store neither'
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
    "implicit_solver": "stable",
    "reversible_block": "checkpoint",
    "numpy_augmentation": "none",
}
