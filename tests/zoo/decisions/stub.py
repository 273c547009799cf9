# mistake: the unfilled template (None everywhere, still raises NotImplementedError)
# feedback: not answered
# code: not-answered
# rule: unanswered
# fails: group1 group2 group3
# score: 0/3
DECISIONS = {
    "masked_loss": None,
    "quantized_weights": None,
    "transformer_memory": None,
    "c_simulator": None,
    "logsumexp_scores": None,
    "rnn_early_exit": None,
    "implicit_solver": None,
    "reversible_block": None,
    "numpy_augmentation": None,
}
# YOUR CODE HERE
raise NotImplementedError()
