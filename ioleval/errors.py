"""The application's one error type: a refusal that names the file, line and field.

Import failures (`ImportFailure`, here so that every app reads files with it; `puzzles.errors`
re-exports it), refused account actions and refused jury actions (`grading.errors.GradingError`)
subclass it. Views turn it into a message and a redirect (`ioleval.http.post_redirect`);
commands exit non-zero with it (`CommandError`)."""

from __future__ import annotations

from pathlib import Path


class AppError(ValueError):
    """Bad input or an action that is not allowed; nothing was changed."""

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

    def inside(self, archive: str, root: Path) -> AppError:
        """Return this error naming a member of `archive` rather than its path under `root`."""
        prefix = f"{root}/"
        file = self.file
        if file.startswith(prefix):
            file = f"{archive}: {file.removeprefix(prefix)}"
        elif not file or file == str(root):
            file = archive
        message = self.message.replace(prefix, "").replace(str(root), archive)
        return type(self)(message, file=file, line=self.line, field=self.field)


class ImportFailure(AppError):
    """Bad input in an imported file; nothing was written."""
