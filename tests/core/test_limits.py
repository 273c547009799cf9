"""Limits.from_settings: the one builder of a grading's limits (the CLI's options, gradescope.json's "limits")."""

from __future__ import annotations

from autograder.engine.sandbox import Limits


def test_settings_override_the_defaults_in_each_fields_type():
    limits = Limits.from_settings({"seconds_per_test": "30", "memory_mb": 900.0}, "no-namespaces")
    assert (limits.seconds_per_test, limits.memory_mb, limits.isolation) == (30.0, 900, "no-namespaces")
    assert type(limits.memory_mb) is int and limits.output_bytes == Limits().output_bytes


def test_unset_unknown_and_isolation_settings_are_left_out():
    limits = Limits.from_settings({"seconds_per_test": None, "cores": 8, "isolation": "none"}, "full")
    assert limits == Limits()  # the level is the caller's argument, never a setting's


def test_the_budget_cuts_each_tests_time_never_raises_it_and_never_below_a_second():
    assert Limits.from_settings({"seconds_per_test": 60}, "full", 96).seconds_per_test == 60
    assert Limits.from_settings({}, "full", 12.5).seconds_per_test == 12.5
    assert Limits.from_settings({}, "full", 0.2).seconds_per_test == 1.0


def test_the_cli_builds_its_limits_with_it(monkeypatch):
    import argparse

    from autograder import cli

    monkeypatch.delenv("AUTOGRADER_ISOLATION", raising=False)
    limits = cli._limits(argparse.Namespace(isolation=None, timeout=7.0, memory_mb=None))
    assert limits == Limits.from_settings({"seconds_per_test": 7.0}, "full")
    monkeypatch.setenv("AUTOGRADER_ISOLATION", "none")
    assert cli._limits(argparse.Namespace()).isolation == "none"
