# mistake: answers yes/no (write a Function or not) instead of using the labels
# feedback: not a label
# code: unknown-label
# rule: group1 group2 group3
# fails: group1 group2 group3
# score: 0/3
DECISIONS = {
    "masked_loss": "no",
    "quantized_weights": "yes",
    "transformer_memory": "no",
    "c_simulator": "yes",
    "logsumexp_scores": "no",
    "rnn_early_exit": "no",
    "implicit_solver": "yes",
    "reversible_block": "yes",
    "numpy_augmentation": "no",
}
