"""The engine: a submission read once, matched to its assignment, graded, and the verdict recorded.

grading (the pipeline of one notebook), notebooks (reading and matching notebooks), shared (what the
checks and the engine both speak: Mistake, the exercise registry), mistakes (every mistake code).
The engine never imports torch: the checks run in the sandbox's judge (autograder.engine.sandbox)."""
