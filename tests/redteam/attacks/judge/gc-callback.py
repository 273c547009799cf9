# base: wrong
import gc
gc.callbacks.append(lambda phase, info: None)
{WRONG}
