# An honest answer: a correct Square next to large plain-data tables (lookup tables, test inputs), each
# under the size that travels by value.
# stopped by: nothing should stop it (the ready report must carry any size the judge accepts)
{CORRECT}
for _k in range({count}):
    globals()[f"table_{_k}"] = {"rows": ["r%06d" % i for i in range({rows})], "k": _k}
