"""Rubrics: import and edit criteria; once marks exist, changes need a new version.

One module per concern: `specs` checks criteria (from a file or the rubric editor's rows),
`changes` tells what a change does to the marks, `versions` applies it, and `files` reads,
previews, imports and exports rubrics files.
"""

from ...selectors import rubric_current
from .changes import (
    RubricChange,
    RubricEffectChanged,
    rubric_change_preview,
    rubrics_effect_digest,
)
from .files import rubrics_export, rubrics_import, rubrics_preview, rubrics_read
from .specs import CriterionSpec, rubric_specs
from .versions import rubric_replace

__all__ = [
    "CriterionSpec",
    "RubricChange",
    "RubricEffectChanged",
    "rubric_change_preview",
    "rubric_current",
    "rubric_replace",
    "rubric_specs",
    "rubrics_effect_digest",
    "rubrics_export",
    "rubrics_import",
    "rubrics_preview",
    "rubrics_read",
]
