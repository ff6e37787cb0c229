import pytest

from local_agent.config import load_settings
from local_agent.errors import ConfigError


def test_flag_beats_env_beats_file(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text('max_tokens = 11\ntemperature = 0.5\nctx-size = 1024\n')
    monkeypatch.setenv("LOCAL_AGENT_CONFIG", str(config))
    monkeypatch.setenv("LOCAL_AGENT_MAX_TOKENS", "22")
    settings = load_settings({"temperature": 0.0})
    assert settings.max_tokens == 22  # env over file
    assert settings.temperature == 0.0  # flag over file
    assert settings.ctx_size == 1024  # file over default
    assert load_settings({"max_tokens": 33}).max_tokens == 33  # flag over env


def test_data_dir_from_env(tmp_path, monkeypatch):
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(tmp_path / "d"))
    assert load_settings().data_dir == tmp_path / "d"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"max_tokens": 0}, "max_tokens"),
        ({"backend": "nope"}, "unknown backend"),
        ({"device": "tpu"}, "unknown device"),
        ({"top_p": 2.0}, "top_p"),
        ({"max_tokens": "many"}, "--max-tokens: max_tokens must be int"),
    ],
)
def test_invalid_settings_are_one_line_errors(flags, message):
    with pytest.raises(ConfigError, match=message):
        load_settings(flags)


def test_bad_config_file(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text("max_tokens = [\n")
    monkeypatch.setenv("LOCAL_AGENT_CONFIG", str(config))
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings()
    config.write_text("colour = 'blue'\n")
    with pytest.raises(ConfigError, match="unknown setting"):
        load_settings()


def test_bad_env_value(monkeypatch):
    monkeypatch.setenv("LOCAL_AGENT_VERBOSE", "maybe")
    with pytest.raises(ConfigError, match="LOCAL_AGENT_VERBOSE"):
        load_settings()
