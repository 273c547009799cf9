# mistake: a list of labels in scenario order instead of a dict
# feedback: must be a dict
# code: not-a-dict
# rule: group1 group2 group3
# fails: group1 group2 group3
# score: 0/3
DECISIONS = ["none", "surrogate", "checkpoint", "external", "none", "none", "stable", "memory", "none"]
