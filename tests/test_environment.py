from memdir.config import read_environment, resolve_config
from memdir.environment import VARIABLES, Environment


def test_every_environment_field_names_the_variable_it_is_read_from() -> None:
    assert set(VARIABLES) | {"home"} == set(Environment._fields)


def test_each_variable_is_read_into_its_field() -> None:
    variables = {variable: f"value of {variable}" for variable in VARIABLES.values()} | {"HOME": "/home/ana"}
    environment = Environment.read(variables)
    for name, variable in VARIABLES.items():
        assert getattr(environment, name) == f"value of {variable}"
    assert environment.home == "/home/ana"


def test_the_legacy_team_sync_variable_is_the_fallback_for_the_team_server() -> None:
    assert Environment.read({"HOME": "/h", "TEAM_MEMORY_SYNC_URL": "http://old"}).team_server == "http://old"
    both = {"HOME": "/h", "TEAM_MEMORY_SYNC_URL": "http://old", "MEMDIR_TEAM_SERVER": "http://new"}
    assert Environment.read(both).team_server == "http://new"


def test_the_resolved_configuration_carries_the_environment_it_was_resolved_from(tmp_path) -> None:
    variables = {"HOME": str(tmp_path), "MEMDIR_MODEL": "scripted:x.json"}
    config = resolve_config(str(tmp_path), env=variables)
    assert config.environment == read_environment(variables)
    assert config.environment.model == "scripted:x.json"
