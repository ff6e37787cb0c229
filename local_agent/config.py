"""One settings object, resolved from defaults < config file < environment < flags."""

from __future__ import annotations

import dataclasses
import math
import os
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from .errors import ConfigError
from .types import BACKEND_NAMES, GenerationSettings

APP_NAME = "local-agent"
ENV_PREFIX = "LOCAL_AGENT_"
CHECKOUT_MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DEFAULT_CTX_SIZE = 2048  # the context window used, and assumed for a model that does not state its own
MAX_IMPORT_BYTES = 200 * 1024 * 1024  # the largest file of past chats to import (CLI or the page's upload)
# The small model `make install` fetches: the chat model unless --model says otherwise, and the
# model that distills memories and writes the summary unless --distill-model does.
DEFAULT_MODEL = "smollm2-135m-instruct-q4_1"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def default_models_dir() -> Path:
    """The checkout's models/ when running from a checkout, else the user's data folder."""
    if (CHECKOUT_MODELS_DIR / "registry.toml").is_file():
        return CHECKOUT_MODELS_DIR
    return default_data_dir() / "models"


@dataclass
class Settings:
    model: str = DEFAULT_MODEL
    backend: str = "auto"  # auto or one of types.BACKEND_NAMES
    device: str = "auto"  # auto | cpu | cuda
    ctx_size: int = DEFAULT_CTX_SIZE
    threads: int = 0  # 0: let the runtime choose (physical cores)
    # How answers are generated: GenerationSettings' defaults (types.py), written there once.
    max_tokens: int = GenerationSettings.max_tokens
    temperature: float = GenerationSettings.temperature
    top_p: float = GenerationSettings.top_p
    # Small models loop on their own phrases; llama.cpp's CLI default of 1.1 curbs that (a
    # model call that asks for nothing, the distiller's say, has GenerationSettings' 1.0: off).
    repeat_penalty: float = 1.1
    seed: int = GenerationSettings.seed
    data_dir: Path = field(default_factory=default_data_dir)
    models_dir: Path = field(default_factory=default_models_dir)
    distill_model: str = ""  # empty: DEFAULT_MODEL distills (and summarizes), whatever the chat model
    recall_k: int = 6
    memory_tokens: int = 160  # prompt budget for recalled memories
    # A turn here is one exchange (the user's message and the answer): past this many unsummarized,
    # the older ones are folded into the rolling summary and the newest few stay verbatim.
    summary_after_turns: int = 8
    keep_recent_turns: int = 4
    incognito: bool = False
    today: str = ""  # empty: the clock; else YYYY-MM-DD or YYYY-MM-DDTHH:MM (see clock.py)
    verbose: bool = False
    debug: bool = False
    # Tools (off unless asked for; a database or a notes folder turns them on).
    tools: bool = False
    enabled_tools: tuple[str, ...] = ()  # empty: every tool whose source is there
    db: Path | None = None  # a SQLite file the SQL tools read
    notes: Path | None = None  # a folder of .txt/.md notes that notes_search reads
    max_steps: int = 4  # model steps in one turn
    tool_timeout: float = 10.0  # seconds per tool call
    approve: bool = False  # ask on the terminal before each call
    pull_stall_timeout: float = 30.0  # seconds `models pull` waits for a download to make progress
    # stdio MCP servers whose tools join the assistant's, each a command line (tools/mcp_commands.py)
    mcp_servers: tuple[str, ...] = ()

    @property
    def tools_on(self) -> bool:
        """Whether tools run: asked for, or implied by a database or a notes folder."""
        return self.tools or self.db is not None or self.notes is not None

    def generation(self, **overrides: Any) -> GenerationSettings:
        values: dict[str, Any] = dict(
            max_tokens=self.max_tokens, temperature=self.temperature, top_p=self.top_p, seed=self.seed,
            repeat_penalty=self.repeat_penalty,
        )
        values.update({k: v for k, v in overrides.items() if v is not None})
        return GenerationSettings(**values)


def config_file_path() -> Path:
    explicit = os.environ.get(ENV_PREFIX + "CONFIG")
    if explicit is not None:
        if not explicit.strip():
            raise ConfigError(f"{ENV_PREFIX}CONFIG is empty (unset it to use the default config file)")
        return Path(explicit).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / "config.toml"


def _field_type(hint: Any) -> type:
    """The type a setting's value is converted to: a path (optional or not), a list of
    names (a tuple), or the plain type."""
    if hint in (Path, Path | None):
        return Path
    if typing.get_origin(hint) is tuple:
        return tuple
    return hint if isinstance(hint, type) else str


FIELD_TYPES: dict[str, type] = {
    name: _field_type(hint) for name, hint in typing.get_type_hints(Settings).items()
}
MAX_SEED = 2**32 - 1  # llama.cpp's samplers take a 32-bit seed
MAX_STEPS = 20
MAX_TOOL_TIMEOUT = 600.0
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off", ""}


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = value.strip().lower() if isinstance(value, str) else None
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise ValueError(value)


def _to_int(value: Any) -> int:
    """An int, or a float or text that is one exactly (4096.0, "4096"): never a bool, never rounded."""
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            value = float(text)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(value)


def _to_float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(value)
    return float(value)


def _to_path(value: Any) -> Path:
    if not isinstance(value, (str, Path)):
        raise ValueError(value)
    return Path(value).expanduser()


def _to_str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(value)
    return value


def _to_names(value: Any) -> tuple[str, ...]:
    """A list of names: a TOML list of strings, or text with the names separated by commas."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise ValueError(value)
    return tuple(dict.fromkeys(name.strip() for name in value if name.strip()))


_CONVERTERS: dict[type, Any] = {bool: _to_bool, int: _to_int, float: _to_float, Path: _to_path, str: _to_str,
                                tuple: _to_names}


def _coerce(name: str, value: Any, source: str) -> Any:
    """`value` as setting `name`'s type, converted only where nothing is lost: text is parsed
    (environment variables are text), but 2048.9 is no int, true is no number, inf no setting."""
    kind = FIELD_TYPES[name]
    if kind is Path and isinstance(value, (str, Path)) and not str(value).strip():
        # An empty path would silently mean the current folder.
        raise ConfigError(f"{source}: {name} is empty (unset it to use the default folder)")
    try:
        converted = _CONVERTERS[kind](value)
    except (TypeError, ValueError, OverflowError):
        what = "a list of names" if kind is tuple else kind.__name__
        raise ConfigError(f"{source}: {name} must be {what}, got {value!r}") from None
    if name == "today" and converted.strip():
        from .dates.clock import parse_today

        parse_today(converted, source)
    if kind is float and not math.isfinite(converted):
        raise ConfigError(f"{source}: {name} must be a finite number, got {value!r}")
    return converted


def _from_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        import tomllib  # only where a config file is read

        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    values = {}
    for key, value in raw.items():
        name = key.replace("-", "_")
        if name not in FIELD_TYPES:
            raise ConfigError(f"config file {path}: unknown setting {key!r}")
        values[name] = _coerce(name, value, f"config file {path}")
    return values


def _from_env(environ: dict[str, str]) -> dict[str, Any]:
    values = {}
    for name in FIELD_TYPES:
        env_name = ENV_PREFIX + name.upper()
        if env_name in environ:
            values[name] = _coerce(name, environ[env_name], env_name)
    return values


def _checks(settings: Settings) -> list[tuple[bool, str]]:
    cores = os.cpu_count()
    return [
        (settings.ctx_size >= 256, "ctx_size must be at least 256"),
        (settings.max_tokens >= 1, "max_tokens must be at least 1"),
        (settings.max_tokens < settings.ctx_size, "max_tokens must be smaller than ctx_size"),
        (settings.temperature >= 0, "temperature must be 0 or more"),
        (0 < settings.top_p <= 1, "top_p must be in (0, 1]"),
        (0 < settings.repeat_penalty <= 2, "repeat_penalty must be in (0, 2]"),
        (settings.threads >= 0, "threads must be 0 (auto) or more"),
        # Thousands of threads crash or hang llama.cpp's thread pool; more than the cores never helps.
        (cores is None or settings.threads <= cores,
         f"threads must be at most {cores}, the number of CPU cores here (0: choose for me), got {settings.threads}"),
        (0 <= settings.seed <= MAX_SEED, f"seed must be between 0 and {MAX_SEED}"),
        (settings.recall_k >= 0, "recall_k must be 0 or more"),
        (settings.memory_tokens >= 0, "memory_tokens must be 0 or more"),
        (settings.backend in ("auto", *BACKEND_NAMES),
         f"unknown backend {settings.backend!r} (choose auto, {', '.join(BACKEND_NAMES)})"),
        (settings.device in {"auto", "cpu", "cuda"}, f"unknown device {settings.device!r} (choose auto, cpu, cuda)"),
        (1 <= settings.max_steps <= MAX_STEPS, f"max_steps must be between 1 and {MAX_STEPS}"),
        (0 < settings.tool_timeout <= MAX_TOOL_TIMEOUT,
         f"tool_timeout must be above 0 and at most {MAX_TOOL_TIMEOUT:g} s"),
        (0 < settings.pull_stall_timeout <= 3600, "pull_stall_timeout must be above 0 and at most 3600 s"),
    ]


def _validate(settings: Settings) -> None:
    for ok, message in _checks(settings):
        if not ok:
            raise ConfigError(message)



def with_overrides(settings: Settings, values: dict[str, Any], source: str) -> dict[str, Any]:
    """Check `values` (setting names) on top of `settings` exactly as flags are checked, and
    return them converted; a ConfigError names the first bad one. Used for a batch line's settings."""
    converted = {name: _coerce(name, value, source) for name, value in values.items()}
    _validate(dataclasses.replace(settings, **converted))
    return converted


def load_settings(flags: dict[str, Any] | None = None, environ: dict[str, str] | None = None) -> Settings:
    """Resolve settings: defaults, then config.toml, then LOCAL_AGENT_* variables, then flags
    (a flag left as None does not count)."""
    environ = dict(os.environ) if environ is None else environ
    values: dict[str, Any] = {}
    values.update(_from_file(config_file_path()))
    values.update(_from_env(environ))
    for name, value in (flags or {}).items():
        if value is not None:
            values[name] = _coerce(name, value, f"--{name.replace('_', '-')}")
    settings = Settings(**values)
    _validate(settings)
    return settings
