"""Collection of the corpus in seconds instead of minutes.

The datalog-conformance plugin parses its 206 YAML files with ``yaml.safe_load``, PyYAML's
pure-Python scanner, once for each of the two test functions and again in every xdist
worker: about 40 CPU-seconds a time, most of the conformance step of the test command.
Here the plugin parses each file once per process, with libyaml's scanner and parser
(``CSafeLoader``: the same safe constructor and resolver, so the same values) where PyYAML
was built with it.
"""

from __future__ import annotations

import functools

import datalog_conformance.plugin as plugin
import yaml


class _LibYaml:
    """What the plugin reads of the ``yaml`` module: ``safe_load``."""

    @staticmethod
    def safe_load(text: str) -> object:
        return yaml.load(text, Loader=yaml.CSafeLoader)


if getattr(yaml, "__with_libyaml__", False):
    plugin.yaml = _LibYaml  # type: ignore[assignment]
plugin.discover_yaml_tests = functools.lru_cache(maxsize=None)(plugin.discover_yaml_tests)
