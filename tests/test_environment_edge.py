"""The environment is read once, at the edge: only config.py reads variables, nothing below takes a mapping of them.

``config.read_environment`` turns the process environment into one ``Environment`` value and
``MemoryConfig.environment`` carries it; every other module receives that value, or just the
strings it needs (``config_home``, a model spec). A child process inherits the environment without
anyone reading it; a child that needs an edited copy gets it built at the edge.
"""

import ast

from source_modules import parsed_modules

# The one module that reads the process environment.
EDGE = "config.py"

ENV_READS = frozenset({"environ", "environb", "getenv", "getenvb"})
ENV_PARAMETERS = frozenset({"env", "environ"})


def _env_reads(tree: ast.Module) -> list[str]:
    """``os.environ``/``os.getenv`` (any alias of ``os``) and ``from os import environ``, by line."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ENV_READS:
            if isinstance(node.value, ast.Name) and node.value.id == "os":
                found.append(f"line {node.lineno}: os.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"line {node.lineno}: from os import {a.name}" for a in node.names if a.name in ENV_READS]
    return found


def _is_mapping(annotation: ast.expr) -> bool:
    text = ast.unparse(annotation)
    return "Mapping" in text or "dict" in text


def _mapping_parameters(tree: ast.Module) -> list[str]:
    """Parameters (and annotated fields) named ``env``/``environ`` holding a mapping of variables."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name | ast.Attribute):
            name = node.target.id if isinstance(node.target, ast.Name) else node.target.attr
            if name.lstrip("_") in ENV_PARAMETERS and _is_mapping(node.annotation):
                found.append(f"line {node.lineno}: {name}: {ast.unparse(node.annotation)}")
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = node.args
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            if argument.arg in ENV_PARAMETERS and argument.annotation is not None and _is_mapping(argument.annotation):
                found.append(f"line {node.lineno}: {node.name}({argument.arg}: {ast.unparse(argument.annotation)})")
    return found


def test_only_the_configuration_reads_the_process_environment():
    offenders = {name: reads for name, tree in parsed_modules() if name != EDGE and (reads := _env_reads(tree))}
    assert not offenders, (
        f"these modules read the process environment, which only {EDGE} (read_environment) may do; "
        f"take the Environment value (config.environment) or the value you need instead: {offenders}"
    )


def test_no_function_below_the_edge_takes_a_mapping_of_environment_variables():
    offenders = {
        name: found for name, tree in parsed_modules() if name != EDGE and (found := _mapping_parameters(tree))
    }
    assert not offenders, (
        "these functions take an env mapping; take the memdir.environment.Environment value "
        f"(config.environment) or just the values they need (config_home: str, ...): {offenders}"
    )


def test_the_scan_finds_an_environment_read_and_an_env_parameter():
    tree = ast.parse(
        "import os\n"
        "from collections.abc import Mapping\n"
        "def home(env: Mapping[str, str] | None = None) -> str:\n"
        "    return os.environ.get('HOME', '')\n"
    )
    assert _env_reads(tree) == ["line 4: os.environ"]
    assert _mapping_parameters(tree) == ["line 3: home(env: Mapping[str, str] | None)"]
