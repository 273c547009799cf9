"""Hand-written references the judge needs where torch's own operators are not exact enough: judge-only.

No reference answer is importable or readable from the learner's process, nor shipped in the release: this
package is denied to the learner by Landlock wherever the package lies (`root.learner_read_roots`), never imported
by the root process (so no learner, a fork of it, holds it in memory: the checks import it inside the function
that needs it, which runs in the judge), and left out of the release branch (`tools/release_branch.sh`). A check
that uses one falls back, where it cannot be imported (the released course, run in the learner's own kernel), to
torch's operators differentiated by autograd. `tests/core/test_no_reference_answers.py` holds the rule.
"""
