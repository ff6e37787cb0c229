"""The project's exception hierarchy. The CLI turns each into a one-line message."""


class LocalAgentError(Exception):
    """Base class: an error the user can act on, shown as one line."""


class ConfigError(LocalAgentError):
    """A setting, flag or config file value is invalid."""


class ModelError(LocalAgentError):
    """A model is missing, corrupt, unknown, or cannot be loaded offline."""


class BackendError(LocalAgentError):
    """A runtime cannot run here (no GPU, library missing) or failed while generating."""


class ContextOverflowError(BackendError):
    """The prompt does not fit in the model's context window."""


class StoreError(LocalAgentError):
    """The memory store cannot be read or written."""


class StoreBusyError(StoreError):
    """Another process holds the store's write lock for too long."""


class DataDirError(StoreError):
    """The data dir is not local-agent's (a folder it did not make), or holds a link it refuses."""


class StoreCorruptError(StoreError):
    """A file in the data dir is damaged; the message names the file and the problem."""


class NotFoundError(LocalAgentError):
    """A memory id, session or file does not exist (or an id prefix is ambiguous)."""


class InputError(LocalAgentError):
    """User input (a message, a batch line, an import file) is invalid."""


class ToolError(LocalAgentError):
    """A tool was given input it cannot use (a bad expression, a refused query, a missing
    file); the message goes back to the model as the tool's error."""


class ApprovalUnavailable(ToolError):
    """Approval is on but nobody can be asked (no terminal): the call is denied."""
