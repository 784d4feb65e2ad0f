"""Papers that fail to render, for tests of batches that must go on without them."""

from __future__ import annotations

from grading.pdf import folder as pdf_folder


def paper_fails_to_render(monkeypatch, code: str, error: BaseException) -> None:
    """Make rendering the paper with this code raise the error; every other paper renders."""
    render = pdf_folder.sheets_pdf

    def sheets_pdf(sheets, *, title):
        if any(sheet.code == code for sheet in sheets):
            raise error
        return render(sheets, title=title)

    monkeypatch.setattr(pdf_folder, "sheets_pdf", sheets_pdf)
