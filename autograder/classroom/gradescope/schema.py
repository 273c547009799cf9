"""Gradescope's results.json schema (https://gradescope-autograders.readthedocs.io/en/latest/specs/), checked on every
results.json this autograder writes, at run time: a file Gradescope cannot read would show the student an error
page and no score. tests/more/test_gradescope.py checks every results.json of its runs against it too.
"""

from __future__ import annotations

FORMAT = {"enum": ["text", "html", "simple_format", "md", "ansi"]}
VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
# Gradescope's results.json: `score` (required unless every test has one), `output`, `visibility`,
# `stdout_visibility`, `execution_time`, `extra_data`, and `tests`, each with `score`, `max_score`, `name`,
# `number`, `output`, `visibility`, `status` ("passed" or "failed"), `tags`, `extra_data`.
RESULTS_SCHEMA = {
    "type": "object",
    "required": ["score", "output", "tests", "output_format", "test_output_format", "test_name_format"],
    "properties": {
        "score": {"type": "number", "minimum": 0},
        "execution_time": {"type": "number", "minimum": 0},
        "output": {"type": "string"},
        "output_format": FORMAT,
        "test_output_format": FORMAT,
        "test_name_format": FORMAT,
        "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY,
        "extra_data": {"type": "object"},
        "leaderboard": {"type": "array", "items": {"type": "object", "required": ["name", "value"]}},
        "tests": {
            "type": "array",
            "items": {
                "type": "object",
                # a test without score/max_score is an informational check (Gradescope's docs); ours always
                # name their format
                "required": ["name", "status", "output", "visibility", "output_format", "name_format"],
                "dependentRequired": {"score": ["max_score"], "max_score": ["score"]},
                "properties": {
                    "score": {"type": "number", "minimum": 0},
                    "max_score": {"type": "number", "minimum": 0},
                    "status": {"enum": ["passed", "failed"]},
                    "name": {"type": "string", "minLength": 1},
                    "name_format": FORMAT,
                    "output_format": FORMAT,
                    "number": {"type": "string"},
                    "output": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "visibility": VISIBILITY,
                    "extra_data": {"type": "object"},
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}


def problems(results: dict) -> list[str]:
    """Where `results` breaks the schema (empty: valid), plus what the schema cannot say: the top score is its
    tests' sum, no test scores above its maximum."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(RESULTS_SCHEMA)
    found = [f"{'/'.join(map(str, e.absolute_path)) or 'results'}: {e.message}" for e in validator.iter_errors(results)]
    if found:
        return found
    tests = results["tests"]
    if tests and any("score" in t for t in tests) and abs(results["score"] - sum(t.get("score", 0) for t in tests)) > 1e-9:
        found.append(f"score {results['score']} is not the sum of its tests' scores")
    found += [f"tests/{i}: score {t['score']} above max_score {t['max_score']}" for i, t in enumerate(tests)
              if "score" in t and t["score"] > t["max_score"]]
    return found
