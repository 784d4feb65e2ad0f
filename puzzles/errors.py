"""The error every import raises for bad input: it names the file, line and field."""

from __future__ import annotations


class ImportFailure(ValueError):
    """Bad input in an imported file; nothing was written."""

    def __init__(
        self, message: str, *, file: str = "", line: int | None = None, field: str = ""
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.file or "input"
        if self.line is not None:
            where += f", line {self.line}"
        if self.field:
            where += f", field '{self.field}'"
        return f"{where}: {self.message}"

    @property
    def for_page(self) -> str:
        """Return the message as a page shows it: with its place when it is in a file."""
        return str(self) if self.file else self.message
