# base: wrong
# says: replaced | changed
import autograder.checks.square as s
s.values = s.gradcheck = s.graph_node = s.saves_input = lambda *a, **k: None
{WRONG}
