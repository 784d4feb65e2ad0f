"""A rubric file uploaded in two steps: read it, preview its effect, apply what was previewed.

The confirmation form carries the file back (base64) with a signed digest of the file and of
the previewed effect on marks, so that confirming applies exactly the previewed file, and
only while its effect is still the one previewed (`rubrics_import(expected_effect=...)`).
The rubric editor does the same with its rows: its preview signs the rows and their effect,
and applying checks both (`rubric_replace(expected_effect=...)`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass

from django.core import signing

from ioleval.uploads import upload_text

from .errors import GradingError

RUBRIC_FILE_LIMIT = 1024 * 1024
_SALT = "grading.rubrics_upload"


@dataclass
class RubricUpload:
    text: str
    name: str
    new_version: bool
    effect: str | None = None  # the digest of the previewed effect on marks

    def content_digest(self) -> str:
        data = json.dumps([self.text, self.name, self.new_version])
        return hashlib.sha256(data.encode()).hexdigest()


def rubric_upload_read(upload, *, new_version: bool) -> RubricUpload:
    """Return an uploaded rubrics file as text; GradingError when too large or not UTF-8."""
    if upload.size > RUBRIC_FILE_LIMIT:
        raise GradingError(
            f"{upload.size} bytes; a rubrics file may have {RUBRIC_FILE_LIMIT}", file=upload.name
        )
    return RubricUpload(upload_text(upload, error=GradingError), upload.name, new_version)


def rubric_upload_fields(upload: RubricUpload, *, effect: str) -> dict[str, object]:
    """Return the confirmation form's fields for a previewed upload and its effect digest."""
    token = signing.dumps({"content": upload.content_digest(), "effect": effect}, salt=_SALT)
    return {
        "content": base64.b64encode(upload.text.encode("utf-8")).decode("ascii"),
        "name": upload.name,
        "new_version": upload.new_version,
        "token": token,
    }


def rubric_upload_confirmed(
    *, content: str, name: str, new_version: bool, token: str
) -> RubricUpload:
    """Return the previewed upload from the confirmation form, refusing any other file."""
    try:
        text = base64.b64decode(content, validate=True).decode("utf-8")
        signed = signing.loads(token, salt=_SALT)
    except (ValueError, signing.BadSignature):
        signed, text = {}, ""
    upload = RubricUpload(text, name, new_version, signed.get("effect"))
    if not text or signed.get("content") != upload.content_digest():
        raise GradingError("this is not the file that was previewed; upload it again", field="file")
    return upload


# --- the rubric editor: the same two steps for the rows of one problem ----------------------

_EDIT_SALT = "grading.rubric_edit"


def _rows_digest(specs: list, *, problem_id: int) -> str:
    # Not whether a new version is asked for: ticking it after the preview changes no effect.
    data = json.dumps([problem_id, [spec.as_json() for spec in specs]])
    return hashlib.sha256(data.encode()).hexdigest()


def rubric_edit_token(specs: list, *, problem_id: int, effect: str) -> str:
    """Return the signed token of a rubric editor preview: these rows and their effect."""
    content = _rows_digest(specs, problem_id=problem_id)
    return signing.dumps({"content": content, "effect": effect}, salt=_EDIT_SALT)


def rubric_edit_previewed(token: str, specs: list, *, problem_id: int) -> str | None:
    """Return the effect digest a preview of exactly these rows signed, or None: no preview,
    a forged token, or rows changed since it."""
    try:
        signed = signing.loads(token, salt=_EDIT_SALT) if token else {}
    except signing.BadSignature:
        return None
    if signed.get("content") != _rows_digest(specs, problem_id=problem_id):
        return None
    return signed.get("effect")
