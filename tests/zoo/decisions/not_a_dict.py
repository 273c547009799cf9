# mistake: a list of labels in scenario order instead of a dict
# feedback: must be a dict
# code: not-a-dict
DECISIONS = ["none", "surrogate", "checkpoint", "external", "none", "none", "stable", "memory", "none"]
