"""YAML 1.2 core-schema reading on top of PyYAML.

Claude Code reads frontmatter with a YAML 1.2 parser, where ``yes``, ``off`` and ``2026-01-01``
are plain strings. PyYAML implements YAML 1.1, which would turn them into booleans and dates, so
memdir swaps PyYAML's implicit resolvers for the 1.2 core schema ones and keeps its scanner.
"""

from __future__ import annotations

import math
import re

import yaml
from yaml.nodes import ScalarNode

from memdir.model.core_schema import BOOL_RE as _BOOL_RE
from memdir.model.core_schema import FLOAT_RE as _FLOAT_RE
from memdir.model.core_schema import INT_RE as _INT_RE
from memdir.model.core_schema import NULL_RE as _NULL_RE

__all__ = ["CoreSchemaResolver", "Yaml12Loader", "load_yaml12", "resolves_to_string"]

_STR_TAG = "tag:yaml.org,2002:str"


class CoreSchemaResolver(yaml.resolver.BaseResolver):
    """Implicit tags of the YAML 1.2 core schema (no yes/no/on/off, no timestamps, no ``<<``)."""


for _tag, _regexp, _first in (
    ("tag:yaml.org,2002:null", _NULL_RE, ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", _BOOL_RE, list("tTfF")),
    ("tag:yaml.org,2002:int", _INT_RE, list("-+0123456789")),
    ("tag:yaml.org,2002:float", _FLOAT_RE, list("-+.0123456789")),
):
    CoreSchemaResolver.add_implicit_resolver(_tag, _regexp.compiled, _first)


class Yaml12Loader(yaml.SafeLoader):
    """A SafeLoader whose plain scalars resolve by the YAML 1.2 core schema only."""

    yaml_implicit_resolvers = CoreSchemaResolver.yaml_implicit_resolvers

    def construct_core_bool(self, node: ScalarNode) -> bool:
        return str(self.construct_scalar(node)).lower() == "true"

    def construct_core_int(self, node: ScalarNode) -> int:
        value = str(self.construct_scalar(node))
        if value.startswith("0o"):
            return int(value[2:], 8)
        if value.startswith("0x"):
            return int(value[2:], 16)
        return int(value, 10)

    def construct_core_float(self, node: ScalarNode) -> float:
        value = str(self.construct_scalar(node)).lower()
        sign = -1.0 if value.startswith("-") else 1.0
        bare = value.lstrip("+-")
        if bare == ".inf":
            return sign * math.inf
        if bare == ".nan":
            return math.nan
        return float(value)

    def construct_as_text(self, node: ScalarNode) -> str:
        """Explicit ``!!timestamp``/``!!binary`` tags are not part of the core schema: keep the text."""
        return str(self.construct_scalar(node))


Yaml12Loader.add_constructor("tag:yaml.org,2002:bool", Yaml12Loader.construct_core_bool)
Yaml12Loader.add_constructor("tag:yaml.org,2002:int", Yaml12Loader.construct_core_int)
Yaml12Loader.add_constructor("tag:yaml.org,2002:float", Yaml12Loader.construct_core_float)
Yaml12Loader.add_constructor("tag:yaml.org,2002:timestamp", Yaml12Loader.construct_as_text)
Yaml12Loader.add_constructor("tag:yaml.org,2002:binary", Yaml12Loader.construct_as_text)


def _fastest_loader() -> type:
    """The same reading with libyaml's scanner and parser when PyYAML was built with it: a header
    scan parses hundreds of frontmatter blocks per process, and the pure-Python parser dominated it."""
    try:
        from yaml._yaml import CParser
    except ImportError:  # pragma: no cover - PyYAML built without libyaml
        return Yaml12Loader

    class Yaml12CLoader(CParser, yaml.constructor.SafeConstructor, CoreSchemaResolver):
        yaml_constructors = Yaml12Loader.yaml_constructors

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            CoreSchemaResolver.__init__(self)

    return Yaml12CLoader


_FAST_LOADER = _fastest_loader()
# Tags, anchors, aliases, directives, block scalars and tabs: where libyaml and PyYAML's own parser
# are known to differ on odd input, the pure-Python parser (the reference here) reads the text.
_SLOW_PATH = re.compile(r"[!&*%|>@`\t]")


def load_yaml12(text: str) -> object:
    """Parse one YAML document with 1.2 core semantics; raises ``yaml.YAMLError`` when malformed."""
    loader = Yaml12Loader if _SLOW_PATH.search(text) else _FAST_LOADER
    return yaml.load(text, Loader=loader)


def resolves_to_string(value: str) -> bool:
    """True when ``value`` written as a plain scalar reads back as a string.

    Checked against both the 1.2 core schema (what Claude Code uses) and PyYAML's default 1.1
    resolvers, so files memdir writes read the same in older tools too.
    """
    implicit = (True, False)
    return all(
        resolver.resolve(ScalarNode, value, implicit) == _STR_TAG  # type: ignore[no-untyped-call]
        for resolver in _RESOLVERS
    )


_RESOLVERS = (CoreSchemaResolver(), yaml.resolver.Resolver())
