# base: wrong
from torch._C._dynamo import eval_frame
eval_frame.set_eval_frame(lambda *a: None)
{WRONG}
