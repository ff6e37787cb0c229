"""One settings object, resolved from defaults < config file < environment < flags."""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from .errors import ConfigError
from .types import BACKEND_NAMES, GenerationSettings

APP_NAME = "local-agent"
ENV_PREFIX = "LOCAL_AGENT_"
CHECKOUT_MODELS_DIR = Path(__file__).resolve().parent.parent / "models"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def default_models_dir() -> Path:
    """The checkout's models/ when running from a checkout, else the user's data folder."""
    if (CHECKOUT_MODELS_DIR / "registry.toml").is_file():
        return CHECKOUT_MODELS_DIR
    return default_data_dir() / "models"


@dataclass
class Settings:
    model: str = "smollm2-135m-instruct-q4_1"
    backend: str = "auto"  # auto or one of types.BACKEND_NAMES
    device: str = "auto"  # auto | cpu | cuda
    ctx_size: int = 2048
    threads: int = 0  # 0: let the runtime choose (physical cores)
    max_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 0.95
    # Small models loop on their own phrases; llama.cpp's CLI default of 1.1 curbs that.
    repeat_penalty: float = 1.1
    seed: int = 0
    data_dir: Path = field(default_factory=default_data_dir)
    models_dir: Path = field(default_factory=default_models_dir)
    distill_model: str = ""  # empty: the chat model distills too
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


FIELD_TYPES: dict[str, type] = {
    f.name: (Path if f.name.endswith("_dir") else type(f.default) if f.default is not dataclasses.MISSING else str)
    for f in dataclasses.fields(Settings)
}
MAX_SEED = 2**32 - 1  # llama.cpp's samplers take a 32-bit seed
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


_CONVERTERS: dict[type, Any] = {bool: _to_bool, int: _to_int, float: _to_float, Path: _to_path, str: _to_str}


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
        raise ConfigError(f"{source}: {name} must be {kind.__name__}, got {value!r}") from None
    if name == "today" and converted.strip():
        from .clock import parse_today

        parse_today(converted, source)
    if kind is float and not math.isfinite(converted):
        raise ConfigError(f"{source}: {name} must be a finite number, got {value!r}")
    return converted


def _from_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
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
