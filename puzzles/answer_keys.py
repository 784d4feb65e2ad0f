"""Reading answer keys: a JSON list, one element per item, alternatives as inner lists."""

from __future__ import annotations

import json

from .errors import ImportFailure
from .untrusted import value_check


def answer_key_parse(
    text: str, *, eval_type: str, file: str = "", line: int | None = None, field: str = "answer"
) -> list[list[str]]:
    """Return the key as one list of accepted alternatives per item, or raise ImportFailure."""
    try:
        value = json.loads(text)
    except ValueError as exc:  # a JSONDecodeError, or an integer of over 4300 digits
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "a number too long"
        raise ImportFailure(
            f"answer key is not valid JSON ({reason})", file=file, line=line, field=field
        ) from None
    except RecursionError:
        raise ImportFailure(
            "answer key nests lists too deeply", file=file, line=line, field=field
        ) from None
    value_check(value, file=file, line=line, field=field)
    return answer_key_from_value(value, eval_type=eval_type, file=file, line=line, field=field)


def answer_key_from_value(
    value: object, *, eval_type: str, file: str = "", line: int | None = None, field: str = "answer"
) -> list[list[str]]:
    """Validate a decoded key: a non-empty list of strings, or of lists of strings for multi."""
    if not isinstance(value, list) or not value:
        raise ImportFailure(
            "answer key must be a non-empty JSON list", file=file, line=line, field=field
        )
    key: list[list[str]] = []
    for index, element in enumerate(value, start=1):
        alternatives = element if isinstance(element, list) else [element]
        if isinstance(element, list) and eval_type != "multi":
            raise ImportFailure(
                f"item {index} is a list of alternatives but eval_type is {eval_type!r}",
                file=file,
                line=line,
                field=field,
            )
        if not alternatives or not all(isinstance(a, str | int | float) for a in alternatives):
            raise ImportFailure(
                f"item {index} must be a string or a non-empty list of strings",
                file=file,
                line=line,
                field=field,
            )
        key.append([str(a) for a in alternatives])
    return key
