"""The compatibility matrix: each way of writing a Function the course teaches, against each thing people do
with one, on the installed torch. Every cell is an executed check, classified as

    works            the result is the one the Function defines (value, gradient, tangent)
    raises           an error, and the message it gives
    silently wrong   a result, without an error, that is not the one the Function defines
    n/a              the combination does not exist (a custom operator has no forward to decorate)

    python -m autograder.maintain.matrix run       # this torch's outcomes -> docs/compat/torch-<version>.json
    python -m autograder.maintain.matrix render    # README.md's table and docs/site/compatibility.md, from every record
    python -m autograder.maintain.matrix check     # a fresh run against the committed record (exit 1 if they differ)

Every row computes the cube of x (the in-place row: x scaled by 3 in place, as notebook 12's ScaleInplace).
The forwards of the rows made of torch operations compute x³ as `x * x * x.detach()`, whose own derivative
is 2x², not 3x²: a tool that differentiates the forward's operations instead of calling your `backward`
shows up as "silently wrong" rather than passing by luck. tests/more/test_matrix.py runs the matrix and fails
when it disagrees with the committed record for the installed release.
"""

import argparse
import json
import re
import sys
from pathlib import Path

from autograder import paths
from autograder.maintain.matrix_cells import plain, classify

RECORDS = paths.ROOT / "docs" / "compat"
SITE_PAGE = paths.ROOT / "docs" / "site" / "compatibility.md"
README = paths.ROOT / "README.md"
START, END = "<!-- compat-matrix:start -->", "<!-- compat-matrix:end -->"

ROWS = ["ctx style", "split style", "split + jvp", "NumPy inside", "custom operator", "in place + mark_dirty"]
COLUMNS = ["backward", "gradgradcheck", "vmap", "grad", "jacrev", "jvp", "jacfwd", "jacfwd(jacfwd)",
           "compile aot_eager", "compile inductor", "export", "export, then backward", "autocast custom_fwd/bwd"]

# Where the course shows a row or a cell: (notebook folder, cell id). Cells absent here link to the row's notebook.
ROW_NOTEBOOK = {"ctx style": ("01_square", "answer-Square"), "split style": ("10_torch_func", "demo-7"),
                "split + jvp": ("10b_forward_mode", "demo-fwd-3"), "NumPy inside": ("09_external_kernels", "demo-5"),
                "custom operator": ("11_compile_and_export", "demo-29"),
                "in place + mark_dirty": ("12_inplace_and_modules", "demo-7")}
SHOWN_IN = {
    ("ctx style", "vmap"): ("10_torch_func", "demo-5"), ("ctx style", "grad"): ("10_torch_func", "demo-5"),
    ("ctx style", "jacrev"): ("10_torch_func", "demo-5"),
    ("split style", "vmap"): ("10_torch_func", "demo-11"), ("split style", "grad"): ("10_torch_func", "demo-9"),
    ("split style", "jacrev"): ("10_torch_func", "demo-9"), ("split style", "jvp"): ("10b_forward_mode", "demo-fwd-2"),
    ("split style", "gradgradcheck"): ("10_torch_func", "demo-15"),
    ("split + jvp", "jvp"): ("10b_forward_mode", "demo-fwd-3"),
    ("split + jvp", "jacfwd"): ("10b_forward_mode", "demo-fwd-4"),
    ("split + jvp", "jacfwd(jacfwd)"): ("10b_forward_mode", "demo-fwd-5"),
    ("NumPy inside", "gradgradcheck"): ("09_external_kernels", "demo-11"),
    ("NumPy inside", "vmap"): ("10_torch_func", "demo-13"),
    ("NumPy inside", "compile aot_eager"): ("11_compile_and_export", "demo-19"),
    ("NumPy inside", "export"): ("11_compile_and_export", "demo-25"),
    ("split style", "compile aot_eager"): ("11_compile_and_export", "demo-19"),
    ("split style", "export"): ("11_compile_and_export", "demo-25"),
    ("split style", "export, then backward"): ("11_compile_and_export", "demo-27"),
    ("custom operator", "vmap"): ("11_compile_and_export", "demo-39"),
    ("custom operator", "grad"): ("11_compile_and_export", "demo-39"),
    ("custom operator", "jacrev"): ("11_compile_and_export", "demo-39"),
    ("custom operator", "jvp"): ("11_compile_and_export", "demo-39"),
    ("custom operator", "jacfwd"): ("11_compile_and_export", "demo-39"),
    ("custom operator", "compile aot_eager"): ("11_compile_and_export", "demo-33"),
    ("custom operator", "export"): ("11_compile_and_export", "demo-31"),
    ("in place + mark_dirty", "backward"): ("12_inplace_and_modules", "demo-7"),
    ("ctx style", "autocast custom_fwd/bwd"): ("12_inplace_and_modules", "demo-33"),
}


def run(rows=ROWS, columns=COLUMNS, say=print) -> dict:
    import torch

    torch.manual_seed(0)
    record = {"torch": torch.__version__, "cells": {}}
    for row in rows:
        for column in columns:
            cell = classify(row, column)
            record["cells"][f"{row} | {column}"] = cell
            say(f"  {row:22} {column:24} {cell['outcome']:15} {cell['detail'][:80]}")
    return record


def record_path(version: str) -> Path:
    return RECORDS / f"torch-{version}.json"


def records() -> list[dict]:
    found = [json.loads(p.read_text()) for p in sorted(RECORDS.glob("torch-*.json"))]
    return sorted(found, key=lambda r: [int(n) if n.isdigit() else n for n in re.split(r"[.+]", r["torch"])])


# ---------------------------------------------------------------- rendering
SYMBOL = {"works": "✓", "raises": "raises", "silently wrong": "**silently wrong**", "n/a": "n/a"}


def _link(folder: str) -> str:
    return f"course/{folder}/{folder}.ipynb"


def number(folder: str) -> str:
    """A notebook's number as the course table writes it: "10" for 10_torch_func, "10b" for 10b_forward_mode."""
    return folder.split("_", 1)[0]


def table(recs: list[dict], site: bool = False) -> str:
    """A row per way of writing a Function, a column per thing done with it, one column group per release;
    then what each error and each silently wrong result says, and where the course shows it."""
    from autograder.maintain import upstream_bugs

    bugs = upstream_bugs.by_matrix_cell()
    versions = [r["torch"].split("+")[0] for r in recs]
    head = ["way of writing it"] + [f"{column} ({version})" for version in versions for column in COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes = []
    for row in ROWS:
        folder, cell_id = ROW_NOTEBOOK[row]
        cells = [f"**{row}** ([{number(folder)}]({_link(folder)}))"]
        for rec in recs:
            for column in COLUMNS:
                cell = rec["cells"].get(f"{row} | {column}", {"outcome": "?", "detail": ""})
                text = SYMBOL.get(cell["outcome"], cell["outcome"])
                if (row, column) in SHOWN_IN:
                    text = f"[{text}]({_link(SHOWN_IN[(row, column)][0])})"
                if (row, column) in bugs and bugs[(row, column)].url:
                    text += f" [#{bugs[(row, column)].issues[0]}]({bugs[(row, column)].url})"
                cells.append(text)
        lines.append("| " + " | ".join(cells) + " |")
    for row in ROWS:
        for column in COLUMNS:
            said = {}
            for rec, version in zip(recs, versions):
                cell = rec["cells"].get(f"{row} | {column}", {})
                if cell.get("outcome") in ("raises", "silently wrong"):
                    said.setdefault(cell["detail"], []).append(version)
            if not said:
                continue
            where = SHOWN_IN.get((row, column))
            shown = f"; shown in notebook {number(where[0])}, cell `{where[1]}`" if where else ""
            bug = bugs.get((row, column))
            upstream = (f"; upstream: [{bug.key}]({bug.url})" if bug and bug.url else
                        f"; upstream: {bug.summary} (no issue filed)" if bug else "")
            for detail, on in said.items():
                detail = plain(detail).replace("|", "\\|").replace("`", "'")
                notes.append(f"- **{row}**, {column} (torch {', '.join(on)}): {detail}{shown}{upstream}")
    return "\n".join(lines) + "\n\n" + "\n".join(notes)


LEGEND = ("✓: the value, gradient or tangent the Function defines; raises: an error (its message shortened); "
          "**silently wrong**: a result without an error that is not the one the Function defines; n/a: the "
          "combination does not exist. Every cell is a check `python -m autograder.maintain.matrix run` executes on that "
          "release (autograder/maintain/matrix.py): rows compute x³ (in place: 3x), forwards of torch operations as "
          "`x * x * x.detach()` so that a tool which differentiates the forward instead of calling `backward` "
          "shows up; `torch.compile` runs with its default `fullgraph=False`; the autocast column decorates "
          "`forward` and `backward` with `torch.amp.custom_fwd`/`custom_bwd` (`device_type=\"cpu\"`, bfloat16) "
          "and checks that `backward` runs under the forward's autocast state.")


def render(recs: list[dict] | None = None) -> tuple[str, str]:
    """(README section body, site page) from the committed records."""
    recs = recs if recs is not None else records()
    versions = ", ".join(r["torch"] for r in recs)
    readme = (f"{START}\n<!-- Generated by `python -m autograder.maintain.matrix render` from docs/compat/: do not edit. -->\n"
              f"{table(recs)}\n\n{LEGEND}\n{END}")
    page = ("<!-- Generated by `python -m autograder.maintain.matrix render` from docs/compat/: do not edit. -->\n"
            "# Compatibility matrix\n\n"
            f"What works with each way of writing a custom `Function` the course teaches, on torch {versions}. "
            "The course is written for the pinned release; the others show what changes as PyTorch moves.\n\n"
            f"{table(recs, site=True)}\n\n{LEGEND}\n")
    return readme, page


def write_rendered() -> None:
    readme_section, page = render()
    text = README.read_text(encoding="utf-8")
    if START in text:
        text = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda m: readme_section, text, flags=re.S)
    else:
        raise SystemExit(f"README.md has no {START} ... {END} markers")
    README.write_text(text, encoding="utf-8")
    SITE_PAGE.write_text(page, encoding="utf-8")


def differences(fresh: dict, committed: dict) -> list[str]:
    out = []
    for key in fresh["cells"].keys() | committed["cells"].keys():
        a, b = committed["cells"].get(key, {}).get("outcome"), fresh["cells"].get(key, {}).get("outcome")
        if a != b:
            out.append(f"{key}: committed {a}, now {b} ({fresh['cells'].get(key, {}).get('detail', '')})")
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.maintain.matrix", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["run", "render", "check"])
    args = parser.parse_args(argv)
    if args.command == "render":
        write_rendered()
        print(f"wrote {README.name}'s matrix and {SITE_PAGE.relative_to(paths.ROOT)}")
        return 0
    record = run()
    target = record_path(record["torch"].split("+")[0])
    if args.command == "run":
        RECORDS.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {target.relative_to(paths.ROOT)}")
        return 0
    if not target.exists():
        print(f"no committed record for torch {record['torch']}: run `python -m autograder.maintain.matrix run`")
        return 1
    diff = differences(record, json.loads(target.read_text()))
    print("\n".join(diff) or "the matrix matches its committed record")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
