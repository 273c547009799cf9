# An honest answer: a correct Square, with a thread count set and a matmul left from trying it out.
# stopped by: nothing should stop it (the learner's PyTorch may use threads, or one thread quietly)
torch.set_num_threads(4)
_a = torch.randn(512, 512)
_b = (_a @ _a).sum()
{CORRECT}
